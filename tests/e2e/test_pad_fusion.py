"""A static ``tensor.pad`` fused into its convolution's dispatch (IREE's FusePadWithConsumer,
ireec/passes/flow/form_dispatch_regions.py): depthwise and regular convolutions and a max
pool, NCHW and NHWC, padded on one or both sides, with a fused bias + relu6 epilogue, built
for c and openmp and compared with numpy; the pad leaves no dispatch of its own, the padded
tile is a per-tile temporary under the stack budget (``--max-stack-bytes`` shrinks it), the
openmp kernel keeps several workgroups. Pads the rule leaves alone keep their dispatch. All
fused cases are functions of one module, so each target compiles once."""
from __future__ import annotations

import re

import numpy as np
import pytest

import ireec
from ireec.compiler import compile_source as compile_to_c
from ireec.passes.hal.im2col import WIDE_COL_BYTES

from .common import nchw_depthwise_generic

NEG_INF = "0xFF800000"

#: (kind, layout, N, C, H, W, F, K, stride, (pad_lo, pad_hi)): input N x C x H x W (NCHW) or
#: N x H x W x C (NHWC) padded along H and W, a K x K window, F output channels (regular
#: convolutions, batches of two: workgroups divide the pad by image, each computing it whole
#: along the distributed output channels; depthwise and pooling keep C).
CASES = [
    ("dw", "nchw", 1, 8, 18, 18, 8, 3, 2, (1, 1)),
    ("dw", "nchw", 1, 40, 2, 2, 40, 3, 1, (1, 1)),  # a 2x2 image: repacked channels-last
    ("dw", "nhwc", 1, 32, 9, 9, 32, 3, 2, (0, 1)),
    ("dw", "nhwc", 2, 20, 7, 11, 20, 3, 1, (1, 1)),
    ("conv", "nchw", 2, 4, 12, 12, 8, 3, 1, (1, 1)),
    ("conv", "nhwc", 2, 10, 10, 16, 8, 3, 1, (1, 1)),
    ("conv", "nhwc", 2, 16, 8, 8, 16, 3, 1, (1, 1)),
    ("pool", "nchw", 1, 6, 9, 9, 6, 3, 2, (1, 1)),
]


def _shapes(kind, layout, n, c, h, w, f, k, s, pad):
    lo, hi = pad
    ph, pw = h + lo + hi, w + lo + hi
    oh, ow = (ph - k) // s + 1, (pw - k) // s + 1
    oc = f if kind == "conv" else c
    if layout == "nchw":
        x, p, o = (n, c, h, w), (n, c, ph, pw), (n, oc, oh, ow)
        flt = {"dw": (c, k, k), "conv": (f, c, k, k), "pool": (k, k)}[kind]
        low, high = f"[0, 0, {lo}, {lo}]", f"[0, 0, {hi}, {hi}]"
    else:
        x, p, o = (n, h, w, c), (n, ph, pw, c), (n, oh, ow, oc)
        flt = {"dw": (k, k, c), "conv": (k, k, c, f), "pool": (k, k)}[kind]
        low, high = f"[0, {lo}, {lo}, 0]", f"[0, {hi}, {hi}, 0]"
    return x, p, o, flt, oc, low, high


def _t(shape) -> str:
    return "tensor<" + "x".join(str(d) for d in shape) + "xf32>"


def _window_op(op, s, p, flt, o, filt) -> str:
    """The window op on the padded image ``%p``: the named op, except a depthwise NCHW one,
    which is written as its generic form (the named one runs channels-last on target c,
    convert-conv-to-channels-last; the generic keeps the NCHW layout whose fused pad
    these cases test)."""
    if op != "depthwise_conv_2d_nchw_chw":
        return f"""linalg.{op} {{dilations = dense<1> : tensor<2xi64>, strides = dense<{s}> : tensor<2xi64>}}
      ins(%p, {filt} : {_t(p)}, {_t(flt)}) outs(%z : {_t(o)}) -> {_t(o)}"""
    return nchw_depthwise_generic("%p", filt, "%z", _t(p), _t(flt), _t(o), s)


def _func(idx, kind, layout, n, c, h, w, f, k, s, pad) -> str:
    x, p, o, flt, oc, low, high = _shapes(kind, layout, n, c, h, w, f, k, s, pad)
    op = {("dw", "nchw"): "depthwise_conv_2d_nchw_chw", ("dw", "nhwc"): "depthwise_conv_2d_nhwc_hwc",
          ("conv", "nchw"): "conv_2d_nchw_fchw", ("conv", "nhwc"): "conv_2d_nhwc_hwcf",
          ("pool", "nchw"): "pooling_nchw_max", ("pool", "nhwc"): "pooling_nhwc_max"}[(kind, layout)]
    padv, init = ("%ninf", "%ninf") if kind == "pool" else ("%zero", "%zero")
    bias_map = "(d1)" if layout == "nchw" else "(d3)"
    window = f"%w: {_t(flt)}" if kind != "pool" else "%b: tensor<1xf32>"
    filt_in = (f"%win = tensor.empty() : {_t(flt)}\n" if kind == "pool" else "")
    filt = "%win" if kind == "pool" else "%w"
    return f"""
func.func @f{idx}(%x: {_t(x)}, {window}, %bias: tensor<{oc}xf32>) -> {_t(o)} {{
  %zero = arith.constant 0.0 : f32
  %six = arith.constant 6.0 : f32
  %ninf = arith.constant {NEG_INF} : f32
  %p = tensor.pad %x low{low} high{high} {{
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield {padv} : f32
  }} : {_t(x)} to {_t(p)}
  {filt_in}%e = tensor.empty() : {_t(o)}
  %z = linalg.fill ins({init} : f32) outs(%e : {_t(o)}) -> {_t(o)}
  %r = {_window_op(op, s, p, flt, o, filt)}
  %e2 = tensor.empty() : {_t(o)}
  %y = linalg.generic {{indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>,
      affine_map<(d0, d1, d2, d3) -> {bias_map}>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>],
      iterator_types = ["parallel", "parallel", "parallel", "parallel"]}}
      ins(%r, %bias : {_t(o)}, tensor<{oc}xf32>) outs(%e2 : {_t(o)}) {{
  ^bb0(%a: f32, %bb: f32, %out: f32):
    %s = arith.addf %a, %bb : f32
    %m = arith.maximumf %s, %zero : f32
    %q = arith.minimumf %m, %six : f32
    linalg.yield %q : f32
  }} -> {_t(o)}
  return %y : {_t(o)}
}}
"""


SRC = "".join(_func(i, *case) for i, case in enumerate(CASES))


def _reference(kind, layout, x, flt, bias, k, s, pad):
    """Pad, window op and bias + relu6 in float64, computed NCHW (NHWC transposed to it)."""
    lo, hi = pad
    if layout == "nhwc":
        x = x.transpose(0, 3, 1, 2)
        flt = {"dw": lambda f: f.transpose(2, 0, 1), "conv": lambda f: f.transpose(3, 2, 0, 1),
               "pool": lambda f: f}[kind](flt)
    value = -np.inf if kind == "pool" else 0.0
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (lo, hi), (lo, hi)), constant_values=value)
    n, c, ph, pw = xp.shape
    oh, ow = (ph - k) // s + 1, (pw - k) // s + 1
    oc = flt.shape[0] if kind == "conv" else c
    out = np.full((n, oc, oh, ow), -np.inf if kind == "pool" else 0.0)
    for ty in range(k):
        for tx in range(k):
            patch = xp[:, :, ty: ty + s * (oh - 1) + 1: s, tx: tx + s * (ow - 1) + 1: s]
            if kind == "dw":
                out += patch * flt[None, :, ty, tx, None, None]
            elif kind == "conv":
                out += np.einsum("nchw,fc->nfhw", patch, flt[:, :, ty, tx].astype(np.float64))
            else:
                out = np.maximum(out, patch)
    out = np.clip(out + bias[None, :, None, None], 0.0, 6.0)
    return out if layout == "nchw" else out.transpose(0, 2, 3, 1)


def _kernels(ir: str):
    """{entry point: body text} of the executables of a flow-phase module."""
    names = re.findall(r'func\.func @(\w+_dispatch_\d+\w*)\(', ir)
    parts = re.split(r'func\.func @\w+_dispatch_\d+\w*\(', ir)[1:]
    return dict(zip(names, parts))


def test_pads_join_their_convolution_dispatch():
    """No case keeps a pad dispatch: each function is one dispatch holding the pad, the
    window op and the epilogue."""
    flow = compile_to_c(SRC, "t.mlir", target="c", compile_to="flow").ir_text
    kernels = _kernels(flow)
    assert len(kernels) == len(CASES), sorted(kernels)
    for name, body in kernels.items():
        assert "_pad_" not in name
        assert "tensor.pad" in body and "arith.minimumf" in body, name


def test_micro_kernels_read_the_padded_tile():
    """The depthwise micro-kernel and the im2col + sgemm path (NCHW with a window of 36 taps,
    below direct_conv.MIN_K, and NHWC with 16 channels in and out) read the fused pad's
    temporary: every depthwise case calls ireec_uk_dwconv, two regular ones the sgemm
    micro-kernel (the direct convolution reading the padded tile: FOLDED below)."""
    kernels = compile_to_c(SRC, "t.mlir", target="c").files["t_kernels.c"]
    # Calls with or without a fused epilogue (``ireec_uk_<name>_fused``).
    assert len(re.findall(r"ireec_uk_dwconv\w*\(", kernels)) == sum(c[0] == "dw" for c in CASES)
    assert len(re.findall(r"ireec_uk_sgemm\w*\(", kernels)) == 2


def _check_against_numpy(src: str, cases, target: str, seed: int) -> None:
    """Build ``src`` (function ``f<i>`` per case of ``cases``) for ``target`` and compare each
    function with :func:`_reference` on random inputs."""
    m = ireec.compile_source(src, target=target)
    rng = np.random.default_rng(seed)
    for i, (kind, layout, n, c, h, w, f, k, s, pad) in enumerate(cases):
        x_shape, _, _, flt_shape, oc, _, _ = _shapes(kind, layout, n, c, h, w, f, k, s, pad)
        x = rng.standard_normal(x_shape).astype(np.float32)
        flt = rng.standard_normal(flt_shape).astype(np.float32) if kind != "pool" else np.zeros((1,), np.float32)
        bias = rng.standard_normal(oc).astype(np.float32)
        got = getattr(m, f"f{i}")(x, flt, bias)
        np.testing.assert_allclose(got, _reference(kind, layout, x, flt, bias, k, s, pad), rtol=1e-5, atol=1e-5,
                                   err_msg=f"case {cases[i]} on {target}")


@pytest.mark.parametrize("target", ["c", "openmp"])
def test_fused_pads_match_numpy(target):
    _check_against_numpy(SRC, CASES, target, 0)


def _workgroup_counts(hal: str):
    return [tuple(int(v) for v in c.split(", ")) for c in re.findall(r"workgroup_count = array<i64: ([0-9, ]+)>", hal)]


def _allocas(hal: str, min_rank: int = 1):
    """Bytes of each f32 stack temporary of a hal-phase module of at least ``min_rank`` dims
    (3: the padded tiles, not an im2col patch array, which is 2-d)."""
    sizes = []
    for shape in re.findall(r'memref\.alloca"?\(\)[^\n]*?: (?:\(\) -> )?memref<([0-9x]+)xf32', hal):
        dims = [int(d) for d in shape.split("x")]
        if len(dims) >= min_rank:
            sizes.append(4 * int(np.prod(dims)))
    return sizes


def test_padded_tile_is_a_stack_temporary_and_workgroups_stay_several():
    """The padded tile is a per-tile temporary (``ireec.tile_dims``) within the 32 KiB budget
    (an im2col patch array may take up to ``WIDE_COL_BYTES``); on openmp every fused kernel
    runs as more than one workgroup (both threads busy)."""
    hal = compile_to_c(SRC, "t.mlir", target="openmp", compile_to="hal").ir_text
    assert "ireec.tile_dims" in hal
    assert len(_allocas(hal)) >= len(CASES) and all(b <= 32768 for b in _allocas(hal, min_rank=3))
    assert all(b <= WIDE_COL_BYTES for b in _allocas(hal))
    counts = _workgroup_counts(hal)
    assert len(counts) == len(CASES) and all(np.prod(c) > 1 for c in counts), counts


def test_max_stack_bytes_shrinks_the_padded_tile():
    """Under --max-stack-bytes the padded tile is cut to half the budget (more workgroups),
    and the results stay exact."""
    src = _func(0, "dw", "nchw", 1, 16, 30, 30, 16, 3, 1, (1, 1))
    default = compile_to_c(src, "t.mlir", target="c", compile_to="hal").ir_text
    small = compile_to_c(src, "t.mlir", target="c", compile_to="hal", options={"max_stack_bytes": 12000}).ir_text
    assert max(_allocas(default)) > 6000 >= max(_allocas(small))
    assert np.prod(_workgroup_counts(small)[0]) > np.prod(_workgroup_counts(default)[0])
    m = ireec.compile_source(src, target="c", options={"max_stack_bytes": 12000})
    rng = np.random.default_rng(2)
    x = rng.standard_normal((1, 16, 30, 30)).astype(np.float32)
    flt = rng.standard_normal((16, 3, 3)).astype(np.float32)
    bias = rng.standard_normal(16).astype(np.float32)
    np.testing.assert_allclose(m.f0(x, flt, bias), _reference("dw", "nchw", x, flt, bias, 3, 1, (1, 1)),
                               rtol=1e-5, atol=1e-5)


def test_pads_the_rule_leaves_alone_keep_their_dispatch():
    """A pad also returned (two uses) and the pad of a regular convolution of one image (every
    workgroup would compute it whole: 42x42x16 padded, more than SMALL_PAD_BYTES) stay
    dispatches of their own, a small one (8x8x16, 36 output pixels: split along the output
    channels anyway) joins its convolution; an NHWC depthwise pad whose
    tile could hold fewer than 16 channels of a 33x33 image within the budget joins its
    convolution all the same (the micro-kernel reads it unpadded: UNPADDED below); results
    still match."""
    two_uses = _func(0, "dw", "nchw", 1, 8, 18, 18, 8, 3, 2, (1, 1)).replace(
        f"-> {_t((1, 8, 9, 9))} {{", f"-> ({_t((1, 8, 9, 9))}, {_t((1, 8, 20, 20))}) {{").replace(
        "return %y : " + _t((1, 8, 9, 9)), f"return %y, %p : {_t((1, 8, 9, 9))}, {_t((1, 8, 20, 20))}")
    narrow = _func(1, "dw", "nhwc", 1, 64, 32, 32, 64, 3, 2, (0, 1))
    single = _func(2, "conv", "nhwc", 1, 16, 40, 40, 16, 3, 1, (1, 1))
    small = _func(3, "conv", "nhwc", 1, 16, 6, 6, 16, 3, 1, (1, 1))
    src = two_uses + narrow + single + small
    flow = compile_to_c(src, "t.mlir", target="c", compile_to="flow").ir_text
    names = list(_kernels(flow))
    assert [n for n in names if "_pad_" in n] == ["f0_dispatch_0_pad_1x8x20x20_f32", "f2_dispatch_0_pad_1x42x42x16_f32"]
    assert sum(n.startswith("f3_") for n in names) == 1, names
    m = ireec.compile_source(src, target="c")
    rng = np.random.default_rng(3)
    x = rng.standard_normal((1, 8, 18, 18)).astype(np.float32)
    flt = rng.standard_normal((8, 3, 3)).astype(np.float32)
    bias = rng.standard_normal(8).astype(np.float32)
    y, p = m.f0(x, flt, bias)
    np.testing.assert_allclose(y, _reference("dw", "nchw", x, flt, bias, 3, 2, (1, 1)), rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(p, np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1))))
    x = rng.standard_normal((1, 32, 32, 64)).astype(np.float32)
    flt = rng.standard_normal((3, 3, 64)).astype(np.float32)
    bias = rng.standard_normal(64).astype(np.float32)
    np.testing.assert_allclose(m.f1(x, flt, bias), _reference("dw", "nhwc", x, flt, bias, 3, 2, (0, 1)),
                               rtol=1e-5, atol=1e-5)
    for f, hw in ((m.f2, 40), (m.f3, 6)):
        x = rng.standard_normal((1, hw, hw, 16)).astype(np.float32)
        flt = rng.standard_normal((3, 3, 16, 16)).astype(np.float32)
        bias = rng.standard_normal(16).astype(np.float32)
        np.testing.assert_allclose(f(x, flt, bias), _reference("conv", "nhwc", x, flt, bias, 3, 1, (1, 1)),
                                   rtol=1e-5, atol=1e-5)


#: NCHW convolutions of one image (FCHW filters): the pad joins the dispatch though no
#: workgroup divides it, and the im2col packing reads its source (no padded tensor anywhere):
#: stride 1 and 2, a 5x5 window padded by 2, a pad on one side, and 96 channels of a 5x5
#: image (few pixels: a channels-last filter and a padded tile materialized per workgroup).
FOLDED = [
    ("conv", "nchw", 1, 12, 20, 20, 16, 3, 1, (1, 1)),
    ("conv", "nchw", 1, 12, 20, 20, 24, 3, 2, (1, 1)),
    ("conv", "nchw", 1, 8, 9, 9, 16, 5, 1, (2, 2)),
    ("conv", "nchw", 1, 6, 11, 11, 8, 3, 2, (0, 1)),
    ("conv", "nchw", 1, 48, 5, 5, 96, 3, 1, (1, 1)),
]


def test_nchw_conv_pads_fold_into_the_patch_packing():
    """Each case is one dispatch; the kernels keep no stack array of a padded image's shape
    where the packing runs along image rows (the strided cases), a padded tile where the
    direct convolution reads it in place (unit strides, ireec_uk_conv), the openmp kernels
    more than one workgroup, and every result matches numpy on c and openmp (sums of up to
    432 products with FMA: 1e-4)."""
    src = "".join(_func(i, *case) for i, case in enumerate(FOLDED))
    flow = compile_to_c(src, "t.mlir", target="c", compile_to="flow").ir_text
    assert not any("_pad_" in n for n in _kernels(flow)), sorted(_kernels(flow))
    hal = compile_to_c(src, "t.mlir", target="openmp", compile_to="hal").ir_text
    assert all(np.prod(c) > 1 for c in _workgroup_counts(hal)), _workgroup_counts(hal)
    sizes = [(4 * int(np.prod(_shapes(*case)[1])), case[8] == 1) for case in FOLDED[:-1]]
    packed = {b for b, direct in sizes if not direct} - {b for b, direct in sizes if direct}
    assert packed and not packed & set(_allocas(hal)), sorted(_allocas(hal))
    kernels = compile_to_c(src, "t.mlir", target="c").files["t_kernels.c"]
    assert len(re.findall(r"ireec_uk_conv\(", kernels)) == sum(case[8] == 1 for case in FOLDED[:-1])
    rng = np.random.default_rng(5)
    for target in ("c", "openmp"):
        m = ireec.compile_source(src, target=target)
        for i, (kind, layout, n, c, h, w, f, k, s, pad) in enumerate(FOLDED):
            x_shape, _, _, flt_shape, oc, _, _ = _shapes(kind, layout, n, c, h, w, f, k, s, pad)
            x = rng.standard_normal(x_shape).astype(np.float32)
            flt = rng.standard_normal(flt_shape).astype(np.float32)
            bias = rng.standard_normal(oc).astype(np.float32)
            np.testing.assert_allclose(getattr(m, f"f{i}")(x, flt, bias),
                                       _reference(kind, layout, x, flt, bias, k, s, pad), rtol=1e-4, atol=1e-4,
                                       err_msg=f"case {FOLDED[i]} on {target}")


#: Channels-last depthwise convolutions whose zero-padded image the micro-kernel reads in place
#: (ireec/passes/hal/dwconv_padding.py, ``ireec_uk_dwconv_padded``), whatever its size: a
#: 34x34x48 image padded to more than the stack budget, stride 1 and 2, padding on one side
#: and uneven, a batch of two, 3 channels (below a vector), a 2x2 image (all pixels on the
#: border) and a 5x5 window padded by two.
UNPADDED = [
    ("dw", "nhwc", 1, 48, 34, 34, 48, 3, 1, (1, 1)),
    ("dw", "nhwc", 1, 48, 33, 33, 48, 3, 2, (1, 1)),
    ("dw", "nhwc", 1, 64, 32, 32, 64, 3, 2, (0, 1)),
    ("dw", "nhwc", 2, 20, 7, 11, 20, 3, 1, (2, 0)),
    ("dw", "nhwc", 1, 3, 9, 9, 3, 3, 1, (1, 1)),
    ("dw", "nhwc", 1, 96, 2, 2, 96, 3, 1, (1, 1)),
    ("dw", "nhwc", 1, 16, 12, 12, 16, 5, 1, (2, 2)),
]
UNPADDED_SRC = "".join(_func(i, *case) for i, case in enumerate(UNPADDED))


def test_channels_last_depthwise_reads_its_padded_image_unpadded():
    """Every UNPADDED case is one dispatch (no pad dispatch) whose kernel calls
    ireec_uk_dwconv_padded on the pad's source: no stack temporary holds a padded tile, and on
    openmp the output rows are distributed as without the pad (several workgroups)."""
    flow = compile_to_c(UNPADDED_SRC, "t.mlir", target="c", compile_to="flow").ir_text
    assert len(_kernels(flow)) == len(UNPADDED) and not any("_pad_" in n for n in _kernels(flow))
    for target in ("c", "openmp"):
        kernels = compile_to_c(UNPADDED_SRC, "t.mlir", target=target).files["t_kernels.c"]
        assert len(re.findall(r"ireec_uk_dwconv_padded\(", kernels)) == len(UNPADDED), target
        hal = compile_to_c(UNPADDED_SRC, "t.mlir", target=target, compile_to="hal").ir_text
        assert _allocas(hal) == [], target
    counts = _workgroup_counts(compile_to_c(UNPADDED_SRC, "t.mlir", target="openmp", compile_to="hal").ir_text)
    assert all(np.prod(c) > 1 for c in counts), counts


@pytest.mark.parametrize("target", ["c", "openmp"])
def test_unpadded_depthwise_matches_numpy(target):
    _check_against_numpy(UNPADDED_SRC, UNPADDED, target, 5)
