"""8-bit convolutions through im2col and the ireec_uk_igemm micro-kernel
(ireec/passes/hal/im2col.py, convert_conv_to_im2col.py) against numpy, exactly: the quantized
convolutions in each layout (conv_2d_nhwc_hwcf_q, conv_2d_nhwc_fhwc_q, conv_2d_nchw_fchw_q),
strides 1 and 2, dilations, nonzero zero points (constants, and read from a tensor by the
host), zero points large enough for the int32 sums to wrap, odd channel counts, batch 2, an
input padded with its zero point (TOSA's explicit pad), a caller's accumulator, a plain i8
conv_2d_nhwc_hwcf into i32, a 1x1 filter (a quantized matmul after
convert-1x1-filter-conv2d-to-matmul), a window below the threshold (the loop nest) and Col
chunks under a small stack budget; on c and openmp."""
from __future__ import annotations

import numpy as np
import pytest

import ireec
from ireec.compiler import compile_source as compile_to_c

from .common import cached_module, random_i8

#: name -> (op, n, c, h, w, f, kh, kw, strides, dilations, izp, kzp, pad)
CASES = {
    "hwcf_s1": ("conv_2d_nhwc_hwcf_q", 1, 13, 11, 12, 17, 3, 3, (1, 1), (1, 1), -3, 5, 0),
    "fhwc_s2_b2": ("conv_2d_nhwc_fhwc_q", 2, 7, 12, 13, 19, 3, 3, (2, 2), (1, 1), 12, -7, 0),
    "fhwc_dil": ("conv_2d_nhwc_fhwc_q", 1, 5, 15, 14, 9, 3, 2, (1, 1), (2, 2), -128, 0, 0),
    "fhwc_pad": ("conv_2d_nhwc_fhwc_q", 1, 8, 16, 16, 16, 3, 3, (2, 2), (1, 1), -5, 3, 1),
    "fchw_s2_b2": ("conv_2d_nchw_fchw_q", 2, 3, 13, 11, 10, 3, 3, (2, 2), (1, 1), 4, -2, 0),
    "fchw_mixed": ("conv_2d_nchw_fchw_q", 1, 5, 14, 16, 11, 3, 3, (1, 2), (2, 1), 0, 9, 0),
    "fchw_pad": ("conv_2d_nchw_fchw_q", 1, 2, 20, 20, 8, 3, 3, (1, 1), (1, 1), 17, 0, 1),
    # (x - 70000) * (w + 90000) overflows int32: the sums wrap as the loop nest's do
    "hwcf_wrap": ("conv_2d_nhwc_hwcf_q", 1, 6, 7, 9, 5, 2, 3, (1, 1), (1, 1), 70000, -90000, 0),
    "hwcf_plain": ("conv_2d_nhwc_hwcf", 1, 9, 10, 10, 12, 3, 3, (1, 1), (1, 1), 0, 0, 0),
    "hwcf_1x1": ("conv_2d_nhwc_hwcf_q", 1, 24, 6, 7, 20, 1, 1, (1, 1), (1, 1), -1, 2, 0),
    "fhwc_small": ("conv_2d_nhwc_fhwc_q", 1, 1, 9, 9, 4, 2, 3, (1, 1), (1, 1), 3, 1, 0),  # K = 6 < INT_MIN_K
}
#: Cases whose convolution keeps the plain loop nest (K below im2col.INT_MIN_K).
LOOPS = {"fhwc_small"}


def _out(h, k, s, d, pad):
    return (h + 2 * pad - d * (k - 1) - 1) // s + 1


def _shapes(op, n, c, h, w, f, kh, kw, strides, dilations, pad):
    """(input, filter, output) shapes of ``op``; the input unpadded."""
    oh, ow = _out(h, kh, strides[0], dilations[0], pad), _out(w, kw, strides[1], dilations[1], pad)
    if "nchw" in op:
        return (n, c, h, w), (f, c, kh, kw), (n, f, oh, ow)
    flt = (f, kh, kw, c) if "fhwc" in op else (kh, kw, c, f)
    return (n, h, w, c), flt, (n, oh, ow, f)


def _t(shape, e):
    return "tensor<" + "x".join(str(d) for d in shape) + f"x{e}>"


def _qconv(name, op, n, c, h, w, f, kh, kw, strides, dilations, izp, kzp, pad, acc=False, zps_arg=False):
    """A function computing ``op`` on i8 operands into i32 (from zero, or from an accumulator
    argument with ``acc``), the input first padded by ``pad`` with its zero point, the zero
    points constants (or read from a tensor<2xi32> argument with ``zps_arg``)."""
    xs, ws, os_ = _shapes(op, n, c, h, w, f, kh, kw, strides, dilations, pad)
    args = [f"%x: {_t(xs, 'i8')}", f"%w: {_t(ws, 'i8')}"]
    body = ""
    if zps_arg:
        args.append("%zps: tensor<2xi32>")
        body += ("  %i0 = arith.constant 0 : index\n  %i1 = arith.constant 1 : index\n"
                 "  %izp = tensor.extract %zps[%i0] : tensor<2xi32>\n"
                 "  %kzp = tensor.extract %zps[%i1] : tensor<2xi32>\n")
    elif op.endswith("_q"):
        body += f"  %izp = arith.constant {izp} : i32\n  %kzp = arith.constant {kzp} : i32\n"
    x, xt = "%x", _t(xs, "i8")
    if pad:
        sp = (2, 3) if "nchw" in op else (1, 2)
        lo = ", ".join(str(pad if d in sp else 0) for d in range(4))
        pshape = tuple(s + 2 * pad if d in sp else s for d, s in enumerate(xs))
        body += (f"  %pv = arith.constant {izp} : i8\n"
                 f"  %xp = tensor.pad %x low[{lo}] high[{lo}] {{\n"
                 "  ^bb0(%a0: index, %a1: index, %a2: index, %a3: index):\n"
                 f"    tensor.yield %pv : i8\n  }} : {xt} to {_t(pshape, 'i8')}\n")
        x, xt = "%xp", _t(pshape, "i8")
    ot = _t(os_, "i32")
    if acc:
        args.append(f"%c: {ot}")
    else:
        body += (f"  %zero = arith.constant 0 : i32\n  %e = tensor.empty() : {ot}\n"
                 f"  %c = linalg.fill ins(%zero : i32) outs(%e : {ot}) -> {ot}\n")
    attrs = (f"{{dilations = dense<[{dilations[0]}, {dilations[1]}]> : vector<2xi64>, "
             f"strides = dense<[{strides[0]}, {strides[1]}]> : vector<2xi64>}}")
    if op.endswith("_q"):
        ins = f"ins({x}, %w, %izp, %kzp : {xt}, {_t(ws, 'i8')}, i32, i32)"
    else:
        ins = f"ins({x}, %w : {xt}, {_t(ws, 'i8')})"
    body += f"  %r = linalg.{op} {attrs}\n         {ins} outs(%c : {ot}) -> {ot}\n"
    return f"func.func @{name}({', '.join(args)}) -> {ot} {{\n{body}  return %r : {ot}\n}}\n"


EXTRA = {  # name -> (case, acc, zps_arg)
    "fhwc_acc": ("fhwc_s2_b2", True, False),
    "fchw_zps_arg": ("fchw_mixed", False, True),
    "hwcf_zps_arg": ("hwcf_s1", False, True),
}
SRC = ("".join(_qconv(name, *case) for name, case in CASES.items())
       + "".join(_qconv(name, *CASES[base], acc=acc, zps_arg=zps) for name, (base, acc, zps) in EXTRA.items()))


def _reference(op, x, w, strides, dilations, izp, kzp, pad, c0=None):
    """The convolution in int64 over the zero-point-padded input, wrapped to int32 as the
    i32 loop nest wraps."""
    x = x.astype(np.int64)
    w = w.astype(np.int64)
    if "nchw" in op:
        x, w = x.transpose(0, 2, 3, 1), w.transpose(2, 3, 1, 0)
    elif "fhwc" in op:
        w = w.transpose(1, 2, 3, 0)
    x = np.pad(x, ((0, 0), (pad, pad), (pad, pad), (0, 0)), constant_values=izp) - izp
    w = w - kzp
    n, h, wd, _ = x.shape
    kh, kw, _, f = w.shape
    (sh, sw), (dh, dw) = strides, dilations
    oh, ow = (h - dh * (kh - 1) - 1) // sh + 1, (wd - dw * (kw - 1) - 1) // sw + 1
    out = np.zeros((n, oh, ow, f), np.int64)
    for a in range(kh):
        for b in range(kw):
            win = x[:, a * dh: a * dh + sh * (oh - 1) + 1: sh, b * dw: b * dw + sw * (ow - 1) + 1: sw, :]
            out += win @ w[a, b]
    if "nchw" in op:
        out = out.transpose(0, 3, 1, 2)
    if c0 is not None:
        out = out + c0
    return out.astype(np.int32)




@pytest.fixture(scope="module")
def modules():
    return {}




def test_convolutions_call_the_micro_kernel():
    """Every convolution but the one below the window threshold calls ireec_uk_igemm once
    per chunk (an im2col copy into an int8 Col array before it; the 1x1 one as a matmul),
    with its zero points; the lowering strategy records the descriptor and the chunk."""
    out = compile_to_c(SRC, "t.mlir", target="c")
    kernels = out.files["t_kernels.c"]
    calls = [ln.strip() for ln in kernels.splitlines() if "ireec_uk_igemm(" in ln]
    assert len(calls) == len(CASES) + len(EXTRA) - len(LOOPS), calls
    assert any("((int32_t)-3), ((int32_t)5)" in c for c in calls)  # NHWC: A = Col (image zp)
    assert any("((int32_t)-2), ((int32_t)4)" in c for c in calls)  # NCHW: A = the filter
    assert any("((int32_t)70000), ((int32_t)-90000)" in c for c in calls)
    assert "IREEC_UK_FLAG_LHS_UNSIGNED" not in kernels and "IREEC_UK_FLAG_RHS_UNSIGNED" not in kernels
    assert kernels.count("int8_t t") >= len(CASES) + len(EXTRA) - len(LOOPS) - 1  # Col arrays (not 1x1)
    hal = compile_to_c(SRC, "t.mlir", target="openmp", compile_to="hal").ir_text
    assert hal.count('ireec.im2col = array<i64: ') >= len(CASES) + len(EXTRA) - len(LOOPS) - 1
    assert "ireec.im2col = array<i64: 117, " in hal  # hwcf_s1: K = 3 * 3 * 13


@pytest.mark.parametrize("target", ["c", "openmp"])
def test_matches_numpy_exactly(target, modules):
    m = cached_module(modules, SRC, target)
    rng = np.random.default_rng(0)
    for name, (op, n, c, h, w, f, kh, kw, st, dl, izp, kzp, pad) in CASES.items():
        xs, ws, _ = _shapes(op, n, c, h, w, f, kh, kw, st, dl, pad)
        for extreme in (False, True):
            x, wt = random_i8(rng, xs, extreme), random_i8(rng, ws, extreme)
            got = getattr(m, name)(x, wt)
            assert got.dtype == np.int32
            np.testing.assert_array_equal(got, _reference(op, x, wt, st, dl, izp, kzp, pad),
                                          err_msg=f"{name} extreme={extreme}")
    for name, (base, acc, zps) in EXTRA.items():
        op, n, c, h, w, f, kh, kw, st, dl, izp, kzp, pad = CASES[base]
        xs, ws, os_ = _shapes(op, n, c, h, w, f, kh, kw, st, dl, pad)
        x, wt = random_i8(rng, xs), random_i8(rng, ws)
        if acc:
            c0 = rng.integers(-2**31, 2**31, os_, dtype=np.int64).astype(np.int32)
            want = _reference(op, x, wt, st, dl, izp, kzp, pad, c0.astype(np.int64))
            np.testing.assert_array_equal(getattr(m, name)(x, wt, c0), want, err_msg=name)
        else:
            for zp in ((izp, kzp), (-100, 77), (0, 0)):
                got = getattr(m, name)(x, wt, np.array(zp, np.int32))
                np.testing.assert_array_equal(got, _reference(op, x, wt, st, dl, zp[0], zp[1], pad),
                                              err_msg=f"{name} zero points {zp}")


@pytest.mark.parametrize("target", ["c", "openmp"])
def test_small_stack_budget_packs_chunks(target, tmp_path):
    """Under --max-stack-bytes the Col array holds a chunk of the tile's pixels; the
    results stay exact."""
    case = ("conv_2d_nhwc_fhwc_q", 1, 16, 20, 20, 24, 3, 3, (1, 1), (1, 1), -4, 6, 0)
    src = _qconv("f", *case)
    opts = {"max_stack_bytes": 32768}
    out = compile_to_c(src, "t.mlir", target=target, options=opts)
    hal = compile_to_c(src, "t.mlir", target=target, options=opts, compile_to="hal").ir_text
    pixels = int(hal.split("ireec.im2col = array<i64: 144, ")[1].split(">")[0])
    assert 8 <= pixels < 18 * 18, pixels
    assert "ireec_uk_igemm(" in out.files["t_kernels.c"]
    m = ireec.compile_source(src, target=target, options=opts)
    rng = np.random.default_rng(1)
    xs, ws, _ = _shapes(*case[:10], case[12])
    x, wt = random_i8(rng, xs), random_i8(rng, ws)
    np.testing.assert_array_equal(m.f(x, wt), _reference(case[0], x, wt, case[8], case[9], -4, 6, 0))
