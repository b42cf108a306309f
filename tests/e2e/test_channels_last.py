"""Channels-last execution of NCHW depthwise networks (convert-conv-to-channels-last and
propagate-linalg-transpose) against numpy: a MobileNetV3-style NCHW network, as torch-mlir
writes one (named NCHW convolutions, bias broadcasts as inits, pads, hardswish, a
squeeze-and-excitation gate, a residual add, odd image sizes, stride 2), on c (where the
depthwise convolutions and the 1x1 convolutions around them run NHWC, the 3x3 stem NCHW) and
openmp (which keeps NCHW); the results (the NCHW feature map and a global pool of it) match
numpy."""
from __future__ import annotations

import numpy as np
import pytest

import ireec
from ireec.compiler import compile_source as compile_to_c

_ID = "affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>"
_PAR4 = '["parallel", "parallel", "parallel", "parallel"]'


class _Net:
    """Builds the function's body: one SSA value per layer, weights as arguments."""

    def __init__(self):
        self.lines, self.args, self.n = [], [], 0

    def _new(self) -> str:
        self.n += 1
        return f"%v{self.n}"

    def arg(self, shape) -> str:
        name = f"%a{len(self.args)}"
        self.args.append((name, shape))
        return name

    @staticmethod
    def t(shape) -> str:
        return "tensor<" + "x".join(map(str, shape)) + "xf32>"

    def conv(self, x, xs, w, ws, b, stride, depthwise=False):
        n, c, h, wd = xs
        k = ws[-1]
        oh, ow = (h - k) // stride + 1, (wd - k) // stride + 1
        f = c if depthwise else ws[0]
        os_ = (n, f, oh, ow)
        e, init, r = self._new(), self._new(), self._new()
        op = "depthwise_conv_2d_nchw_chw" if depthwise else "conv_2d_nchw_fchw"
        self.lines += [
            f"{e} = tensor.empty() : {self.t(os_)}",
            f"{init} = linalg.broadcast ins({b} : {self.t((f,))}) outs({e} : {self.t(os_)}) dimensions = [0, 2, 3]",
            f"{r} = linalg.{op} {{dilations = dense<1> : vector<2xi64>, strides = dense<{stride}> : vector<2xi64>}} "
            f"ins({x}, {w} : {self.t(xs)}, {self.t(ws)}) outs({init} : {self.t(os_)}) -> {self.t(os_)}"]
        return r, os_

    def pad(self, x, xs, p):
        os_ = (xs[0], xs[1], xs[2] + 2 * p, xs[3] + 2 * p)
        r = self._new()
        self.lines += [f"{r} = tensor.pad {x} low[0, 0, {p}, {p}] high[0, 0, {p}, {p}] {{",
                       "^bb0(%i0: index, %i1: index, %i2: index, %i3: index):",
                       "  tensor.yield %zero : f32",
                       f"}} : {self.t(xs)} to {self.t(os_)}"]
        return r, os_

    def elementwise(self, ins, shapes, maps, body, out_shape):
        """``body``: payload lines over %in0, %in1, ... ending in a value %y."""
        e, r = self._new(), self._new()
        args = ", ".join(f"%in{i}: f32" for i in range(len(ins)))
        self.lines += [
            f"{e} = tensor.empty() : {self.t(out_shape)}",
            f"{r} = linalg.generic {{indexing_maps = [{', '.join(maps + [_ID])}], iterator_types = {_PAR4}}} "
            f"ins({', '.join(ins)} : {', '.join(self.t(s) for s in shapes)}) outs({e} : {self.t(out_shape)}) {{",
            f"^bb0({args}, %out: f32):", *body, "  linalg.yield %y : f32", f"}} -> {self.t(out_shape)}"]
        return r

    def unary(self, x, xs, body):
        return self.elementwise([x], [xs], [_ID], body, xs)


RELU6 = ["  %m = arith.maximumf %in0, %zero : f32", "  %y = arith.minimumf %m, %six : f32"]
HARDSWISH = ["  %s = arith.addf %in0, %three : f32", "  %m = arith.maximumf %s, %zero : f32",
             "  %c = arith.minimumf %m, %six : f32", "  %p = arith.mulf %in0, %c : f32",
             "  %y = arith.divf %p, %six : f32"]


def _network():
    """The MLIR source, the weight shapes (in argument order after the image) and a numpy
    reference function of (image, *weights)."""
    net = _Net()
    x = net.arg((1, 8, 17, 17))
    xs = (1, 8, 17, 17)
    shapes = {}

    def weight(name, shape):
        shapes[name] = shape
        return net.arg(shape)

    # Stem: 3x3 stride 2 (stays NCHW), hardswish.
    w0, b0 = weight("w0", (16, 8, 3, 3)), weight("b0", (16,))
    p, ps = net.pad(x, xs, 1)
    h, hs = net.conv(p, ps, w0, (16, 8, 3, 3), b0, 2)
    h = net.unary(h, hs, HARDSWISH)
    # Block 1: expand 1x1, relu6, depthwise 5x5 stride 2, relu6, squeeze-excite, project.
    w1, b1 = weight("w1", (32, 16, 1, 1)), weight("b1", (32,))
    e, es = net.conv(h, hs, w1, (32, 16, 1, 1), b1, 1)
    e = net.unary(e, es, RELU6)
    wd, bd = weight("wd", (32, 5, 5)), weight("bd", (32,))
    pe, pes = net.pad(e, es, 2)
    d, ds = net.conv(pe, pes, wd, (32, 5, 5), bd, 2, depthwise=True)
    d = net.unary(d, ds, RELU6)
    # Squeeze: the spatial mean (a reduction generic into 1x32), two matmuls, hardsigmoid.
    sq, z0, sm = net._new(), net._new(), net._new()
    n_px = ds[2] * ds[3]
    net.lines += [
        f"{z0} = tensor.empty() : tensor<1x32xf32>",
        f"%sqinit = linalg.fill ins(%zero : f32) outs({z0} : tensor<1x32xf32>) -> tensor<1x32xf32>",
        f"{sq} = linalg.generic {{indexing_maps = [{_ID}, affine_map<(d0, d1, d2, d3) -> (d0, d1)>], "
        f'iterator_types = ["parallel", "parallel", "reduction", "reduction"]}} ins({d} : {net.t(ds)}) '
        f"outs(%sqinit : tensor<1x32xf32>) {{",
        "^bb0(%in0: f32, %out: f32):", "  %y = arith.addf %in0, %out : f32", "  linalg.yield %y : f32",
        "} -> tensor<1x32xf32>",
        f"%npx = arith.constant {float(n_px)} : f32",
        f"{sm} = linalg.generic {{indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], "
        f'iterator_types = ["parallel", "parallel"]}} ins({sq} : tensor<1x32xf32>) outs({z0} : tensor<1x32xf32>) {{',
        "^bb0(%in0: f32, %out: f32):", "  %y = arith.divf %in0, %npx : f32", "  linalg.yield %y : f32",
        "} -> tensor<1x32xf32>"]
    ws1, ws2 = weight("ws1", (32, 8)), weight("ws2", (8, 32))
    net.lines += [
        "%se0 = tensor.empty() : tensor<1x8xf32>",
        "%se0z = linalg.fill ins(%zero : f32) outs(%se0 : tensor<1x8xf32>) -> tensor<1x8xf32>",
        f"%se1 = linalg.matmul ins({sm}, {ws1} : tensor<1x32xf32>, tensor<32x8xf32>) outs(%se0z : tensor<1x8xf32>) -> tensor<1x8xf32>",
        "%se1r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], "
        'iterator_types = ["parallel", "parallel"]} ins(%se1 : tensor<1x8xf32>) outs(%se0 : tensor<1x8xf32>) {',
        "^bb0(%in0: f32, %out: f32):", "  %y = arith.maximumf %in0, %zero : f32", "  linalg.yield %y : f32",
        "} -> tensor<1x8xf32>",
        "%se2z = linalg.fill ins(%zero : f32) outs(%z1e : tensor<1x32xf32>) -> tensor<1x32xf32>",
        f"%se2 = linalg.matmul ins(%se1r, {ws2} : tensor<1x8xf32>, tensor<8x32xf32>) outs(%se2z : tensor<1x32xf32>) -> tensor<1x32xf32>"]
    net.lines.insert(0, "%z1e = tensor.empty() : tensor<1x32xf32>")
    gate = ["  %s = arith.addf %in1, %three : f32", "  %m = arith.maximumf %s, %zero : f32",
            "  %c = arith.minimumf %m, %six : f32", "  %g = arith.divf %c, %six : f32",
            "  %y = arith.mulf %in0, %g : f32"]
    d = net.elementwise([d, "%se2"], [ds, (1, 32)], [_ID, "affine_map<(d0, d1, d2, d3) -> (d0, d1)>"], gate, ds)
    w2, b2 = weight("w2", (16, 32, 1, 1)), weight("b2", (16,))
    q, qs = net.conv(d, ds, w2, (16, 32, 1, 1), b2, 1)
    # Block 2 (stride 1, residual): expand, relu6, depthwise 3x3, relu6, project, add.
    w3, b3 = weight("w3", (24, 16, 1, 1)), weight("b3", (24,))
    e2, e2s = net.conv(q, qs, w3, (24, 16, 1, 1), b3, 1)
    e2 = net.unary(e2, e2s, RELU6)
    wd2, bd2 = weight("wd2", (24, 3, 3)), weight("bd2", (24,))
    pe2, pe2s = net.pad(e2, e2s, 1)
    d2, d2s = net.conv(pe2, pe2s, wd2, (24, 3, 3), bd2, 1, depthwise=True)
    d2 = net.unary(d2, d2s, RELU6)
    w4, b4 = weight("w4", (16, 24, 1, 1)), weight("b4", (16,))
    r, rs = net.conv(d2, d2s, w4, (16, 24, 1, 1), b4, 1)
    out = net.elementwise([r, q], [rs, qs], [_ID, _ID], ["  %y = arith.addf %in0, %in1 : f32"], rs)
    # A global pool of the result too (a reduction reading the channels-last values).
    net.lines += [
        "%pe = tensor.empty() : tensor<1x16xf32>",
        "%pz = linalg.fill ins(%zero : f32) outs(%pe : tensor<1x16xf32>) -> tensor<1x16xf32>",
        f"%pool = linalg.generic {{indexing_maps = [{_ID}, affine_map<(d0, d1, d2, d3) -> (d0, d1)>], "
        f'iterator_types = ["parallel", "parallel", "reduction", "reduction"]}} ins({out} : {net.t(rs)}) '
        "outs(%pz : tensor<1x16xf32>) {",
        "^bb0(%in0: f32, %out: f32):", "  %y = arith.addf %in0, %out : f32", "  linalg.yield %y : f32",
        "} -> tensor<1x16xf32>"]
    params = ", ".join(f"{n}: {net.t(s)}" for n, s in net.args)
    src = "\n".join([
        f"func.func @main({params}) -> ({net.t(rs)}, tensor<1x16xf32>) {{",
        "  %zero = arith.constant 0.0 : f32", "  %three = arith.constant 3.0 : f32",
        "  %six = arith.constant 6.0 : f32",
        *("  " + ln for ln in net.lines),
        f"  return {out}, %pool : {net.t(rs)}, tensor<1x16xf32>", "}"])
    return src, shapes, rs


def _conv(x, w, b, stride, pad, depthwise=False):
    x = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    k = w.shape[-1]
    oh, ow = (x.shape[2] - k) // stride + 1, (x.shape[3] - k) // stride + 1
    f = x.shape[1] if depthwise else w.shape[0]
    out = np.broadcast_to(b[None, :, None, None], (1, f, oh, ow)).astype(np.float64).copy()
    for ty in range(k):
        for tx in range(k):
            patch = x[:, :, ty: ty + stride * (oh - 1) + 1: stride, tx: tx + stride * (ow - 1) + 1: stride]
            if depthwise:
                out += patch * w[None, :, ty, tx, None, None]
            else:
                out += np.einsum("nchw,fc->nfhw", patch, w[:, :, ty, tx])
    return out


def _reference(x, p):
    relu6 = lambda v: np.minimum(np.maximum(v, 0), 6)  # noqa: E731
    h = _conv(x, p["w0"], p["b0"], 2, 1)
    h = h * relu6(h + 3) / 6
    e = relu6(_conv(h, p["w1"], p["b1"], 1, 0))
    d = relu6(_conv(e, p["wd"], p["bd"], 2, 2, depthwise=True))
    s = d.mean(axis=(2, 3))
    s = np.maximum(s @ p["ws1"], 0) @ p["ws2"]
    d = d * (relu6(s + 3) / 6)[:, :, None, None]
    q = _conv(d, p["w2"], p["b2"], 1, 0)
    e2 = relu6(_conv(q, p["w3"], p["b3"], 1, 0))
    d2 = relu6(_conv(e2, p["wd2"], p["bd2"], 1, 1, depthwise=True))
    out = _conv(d2, p["w4"], p["b4"], 1, 0) + q
    return out, out.sum(axis=(2, 3))


SRC, SHAPES, OUT_SHAPE = _network()


def test_layouts():
    """The depthwise convolutions and the 1x1 convolutions next to them run NHWC, the stem
    NCHW; two transposes are left in the flow IR (into NHWC after the stem, back to NCHW
    for the result), the others cancelled."""
    flow = compile_to_c(SRC, "t.mlir", target="c", compile_to="flow").ir_text
    assert "depthwise_conv_2d_nchw" not in flow and flow.count("depthwise_conv_2d_nhwc_hwc") >= 2
    assert "conv_2d_nchw_fchw_1x16x9x9" in flow  # the 3x3 stem's dispatch
    dispatches = [ln for ln in flow.splitlines() if "flow.dispatch @" in ln]
    nhwc = [ln for ln in dispatches if "x16xf32>" in ln.split("->")[-1] or "x32xf32>" in ln.split("->")[-1]
            or "x24xf32>" in ln.split("->")[-1]]
    assert len(nhwc) >= 6, dispatches


@pytest.mark.parametrize("target", ["c", "openmp"])
def test_matches_numpy(target):
    rng = np.random.default_rng(7)
    x = rng.standard_normal((1, 8, 17, 17)).astype(np.float32)
    params = {n: (0.3 * rng.standard_normal(s)).astype(np.float32) for n, s in SHAPES.items()}
    got, pooled = ireec.compile_source(SRC, target=target).main(x, *params.values())
    want, want_pool = _reference(x.astype(np.float64), {n: v.astype(np.float64) for n, v in params.items()})
    assert got.shape == OUT_SHAPE
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(pooled, want_pool, rtol=1e-4, atol=1e-3)
