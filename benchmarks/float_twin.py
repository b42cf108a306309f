"""The float network behind an int8 QDQ ONNX model, as linalg MLIR: the f32 twin that
benchmarks/cortex_m.py runs beside the int8 build of the same network.

../shared/models/quant holds the QDQ models (``onnxruntime.quantization.quantize_static``) and
the float model's output (``out0.float.npy``, torch) but not the float model itself. Its twin is
rebuilt from the ``.qdq.onnx`` file (read with the small protobuf reader below; the ``onnx``
package is not needed):

- every weight and bias ``DequantizeLinear`` of an initializer is folded to f32,
  ``(q - zero_point) * scale`` (per channel along ``axis``): the float weights up to half a
  quantization step, the only difference left from the float model;
- every activation ``QuantizeLinear`` → ``DequantizeLinear`` pair is removed (no rounding, no
  clamping), except that a pair whose zero point is the type's minimum (-128 for int8, 0 for
  uint8) directly after a Conv, Gemm or MatMul becomes a ``Relu``: the quantizer removes a
  ``Relu`` there (``QDQRemovableActivation``) and lets the quantized range, calibrated to start
  at 0, clamp instead; without it the twin would not be the float network;
- what remains (Conv with group 1, Gemm, MatMul, ReduceMean, Reshape, Relu, Add) is written
  as linalg on tensors (``tensor.pad`` + ``linalg.conv_2d_nchw_fchw`` on a broadcast bias,
  ``linalg.matmul`` on pre-transposed weights, ``linalg.generic`` reductions and elementwise ops,
  ``tensor.collapse_shape`` / ``expand_shape``), function ``@main_graph`` like the QDQ files.

Any other op raises ``ValueError``. ``python3 -m benchmarks.float_twin m.qdq.onnx -o m.float.mlir``.
"""
from __future__ import annotations

import argparse
import struct
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

# ---------------------------------------------------------------------------
# ONNX protobuf (onnx/onnx.proto3 field numbers)
# ---------------------------------------------------------------------------

_DTYPES = {1: np.float32, 2: np.uint8, 3: np.int8, 4: np.uint16, 5: np.int16, 6: np.int32,
           7: np.int64, 11: np.float64, 12: np.uint32, 13: np.uint64}


def _varint(b: bytes, i: int) -> Tuple[int, int]:
    r = s = 0
    while True:
        c = b[i]
        i += 1
        r |= (c & 0x7F) << s
        s += 7
        if c < 0x80:
            return r, i


def _fields(b: bytes) -> List[Tuple[int, int, object]]:
    """(field number, wire type, value) of a protobuf message: int for varints, bytes else."""
    i, out = 0, []
    while i < len(b):
        key, i = _varint(b, i)
        num, wire = key >> 3, key & 7
        if wire == 0:
            v, i = _varint(b, i)
        elif wire == 1:
            v, i = b[i:i + 8], i + 8
        elif wire == 5:
            v, i = b[i:i + 4], i + 4
        elif wire == 2:
            n, i = _varint(b, i)
            v, i = b[i:i + n], i + n
        else:
            raise ValueError(f"protobuf wire type {wire} not supported")
        out.append((num, wire, v))
    return out


def _signed(v: int) -> int:
    return v - (1 << 64) if v >= 1 << 63 else v


def _ints(fields, num: int) -> List[int]:
    """A repeated integer field, packed or not, as signed 64-bit values."""
    out: List[int] = []
    for n, wire, v in fields:
        if n != num:
            continue
        if wire == 0:
            out.append(_signed(v))
        else:
            i = 0
            while i < len(v):
                x, i = _varint(v, i)
                out.append(_signed(x))
    return out


def _tensor(b: bytes) -> Tuple[str, np.ndarray]:
    f = _fields(b)
    name = next((v.decode() for n, _, v in f if n == 8), "")
    dims = _ints(f, 1)
    dt = np.dtype(_DTYPES[next(v for n, _, v in f if n == 2)])
    raw = [v for n, _, v in f if n == 9]
    if raw:
        a = np.frombuffer(raw[0], dtype=dt.newbyteorder("<")).astype(dt)
    elif dt == np.float32:
        a = np.concatenate([np.frombuffer(v, "<f4") for n, _, v in f if n == 4] or [np.zeros(0, "<f4")])
    elif dt == np.float64:
        a = np.concatenate([np.frombuffer(v, "<f8") for n, _, v in f if n == 10] or [np.zeros(0, "<f8")])
    else:
        a = np.array(_ints(f, 7 if dt == np.int64 else 5), dtype=np.int64).astype(dt)
    return name, a.reshape(dims)


@dataclass
class Node:
    op: str
    inputs: List[str]
    outputs: List[str]
    attrs: Dict[str, object] = field(default_factory=dict)


@dataclass
class Graph:
    nodes: List[Node]
    initializers: Dict[str, np.ndarray]
    inputs: List[Tuple[str, List[int]]]  # graph inputs that are not initializers
    outputs: List[str]


def _attribute(b: bytes) -> Tuple[str, object]:
    f = _fields(b)
    name = next(v.decode() for n, _, v in f if n == 1)
    kind = next((v for n, _, v in f if n == 20), 0)
    if kind == 1:  # FLOAT
        return name, struct.unpack("<f", next(v for n, _, v in f if n == 2))[0]
    if kind == 2:  # INT
        return name, _signed(next(v for n, _, v in f if n == 3))
    if kind == 3:  # STRING
        return name, next(v for n, _, v in f if n == 4).decode()
    if kind == 7:  # INTS
        return name, _ints(f, 8)
    if kind == 6:  # FLOATS
        return name, [x for n, _, v in f if n == 7 for x in struct.unpack(f"<{len(v) // 4}f", v)]
    return name, None


def read_onnx(path: Path) -> Graph:
    """The graph of the ONNX model file ``path``: nodes, initializers (numpy), inputs with
    their static shapes, output names."""
    model = _fields(Path(path).read_bytes())
    graph = _fields(next(v for n, _, v in model if n == 7))
    inits = dict(_tensor(v) for n, _, v in graph if n == 5)
    nodes = []
    for n, _, v in graph:
        if n != 1:
            continue
        f = _fields(v)
        nodes.append(Node(next(x.decode() for k, _, x in f if k == 4),
                          [x.decode() for k, _, x in f if k == 1],
                          [x.decode() for k, _, x in f if k == 2],
                          dict(_attribute(x) for k, _, x in f if k == 5)))
    inputs = []
    for n, _, v in graph:
        if n != 11:
            continue
        f = _fields(v)
        name = next(x.decode() for k, _, x in f if k == 1)
        if name in inits:
            continue
        ttype = _fields(next(x for k, _, x in _fields(next(x for k, _, x in f if k == 2)) if k == 1))
        shape = _fields(next(x for k, _, x in ttype if k == 2))
        dims = []
        for k, _, d in shape:
            vals = [x for kk, _, x in _fields(d) if kk == 1]
            if k != 1 or not vals:
                raise ValueError(f"input {name}: only static shapes are supported")
            dims.append(int(vals[0]))
        inputs.append((name, dims))
    outputs = [next(x.decode() for k, _, x in _fields(v) if k == 1) for n, _, v in graph if n == 12]
    return Graph(nodes, inits, inputs, outputs)


# ---------------------------------------------------------------------------
# QDQ → float
# ---------------------------------------------------------------------------

_QMIN = {np.dtype(np.int8): -128, np.dtype(np.uint8): 0, np.dtype(np.int16): -32768,
         np.dtype(np.uint16): 0}
_RELU_BEFORE = ("Conv", "Gemm", "MatMul")


def _dequantize(q: np.ndarray, scale: np.ndarray, zp: Optional[np.ndarray], axis: int) -> np.ndarray:
    zp = np.zeros((), np.int64) if zp is None else zp
    if scale.ndim == 1 and q.ndim > 0 and scale.size > 1:
        shape = [1] * q.ndim
        shape[axis % q.ndim] = scale.size
        scale, zp = scale.reshape(shape), zp.reshape(shape)
    return ((q.astype(np.int64) - zp.astype(np.int64)).astype(np.float32) * scale).astype(np.float32)


def strip_qdq(g: Graph) -> Graph:
    """The float graph of the QDQ graph ``g`` (see the module docstring)."""
    consts = dict(g.initializers)
    producer = {o: n for n in g.nodes for o in n.outputs}
    rename: Dict[str, str] = {}
    nodes: List[Node] = []
    relu_count = 0

    def src(name: str) -> str:
        while name in rename:
            name = rename[name]
        return name

    for n in g.nodes:
        ins = [src(x) for x in n.inputs]
        if n.op == "DequantizeLinear" and all(x in consts for x in ins if x):
            zp = consts[ins[2]] if len(ins) > 2 and ins[2] else None
            consts[n.outputs[0]] = _dequantize(consts[ins[0]], consts[ins[1]], zp, int(n.attrs.get("axis", 1)))
            continue
        if n.op == "QuantizeLinear":
            continue  # replaced with its DequantizeLinear below
        if n.op == "DequantizeLinear":
            q = producer.get(n.inputs[0])
            if q is None or q.op != "QuantizeLinear":
                raise ValueError(f"DequantizeLinear of {n.inputs[0]}: not a QuantizeLinear output")
            x = src(q.inputs[0])
            zp = consts.get(q.inputs[2]) if len(q.inputs) > 2 else None
            made_by = producer.get(q.inputs[0])
            if (zp is not None and zp.dtype in _QMIN and np.all(zp == _QMIN[zp.dtype])
                    and made_by is not None and made_by.op in _RELU_BEFORE):
                relu_count += 1
                out = f"{x}_relu{relu_count}"
                nodes.append(Node("Relu", [x], [out]))
                rename[n.outputs[0]] = out
            else:
                rename[n.outputs[0]] = x
            continue
        nodes.append(Node(n.op, ins, list(n.outputs), dict(n.attrs)))
    outputs = [src(o) for o in g.outputs]
    used = {x for n in nodes for x in n.inputs}
    inits = {k: v for k, v in consts.items() if k in used}
    return Graph(nodes, inits, g.inputs, outputs)


# ---------------------------------------------------------------------------
# float graph → linalg MLIR
# ---------------------------------------------------------------------------

def _ty(shape: Sequence[int]) -> str:
    return f"tensor<{'x'.join(str(d) for d in shape)}{'x' if shape else ''}f32>"


def _f32(x: float) -> str:
    return f"{float(np.float32(x)):.9e}"


def _reassociation(src: Sequence[int], dst: Sequence[int]) -> Optional[List[List[int]]]:
    """Groups of consecutive ``src`` dims whose products are the ``dst`` dims (trailing 1s
    join the last group), or None when there are none."""
    groups: List[List[int]] = []
    i = 0
    for d in dst:
        g, p = [], 1
        while i < len(src) and (not g or p < d):
            g.append(i)
            p *= src[i]
            i += 1
        if p != d:
            return None
        groups.append(g)
    if not groups or any(src[j] != 1 for j in range(i, len(src))):
        return None
    groups[-1].extend(range(i, len(src)))
    return groups


class _Emitter:
    def __init__(self) -> None:
        self.lines: List[str] = []
        self.consts: List[str] = []
        self.n = 0

    def fresh(self) -> str:
        self.n += 1
        return f"%v{self.n}"

    def const(self, a: np.ndarray) -> str:
        name = f"%w{len(self.consts)}"
        hexs = np.ascontiguousarray(a, dtype="<f4").tobytes().hex().upper()
        self.consts.append(f'    {name} = arith.constant dense<"0x{hexs}"> : {_ty(a.shape)}')
        return name

    def emit(self, line: str) -> None:
        self.lines.append("    " + line)

    def empty(self, shape) -> str:
        v = self.fresh()
        self.emit(f"{v} = tensor.empty() : {_ty(shape)}")
        return v

    def zeros(self, shape) -> str:
        v = self.fresh()
        self.emit(f"{v} = linalg.fill ins(%zero : f32) outs({self.empty(shape)} : {_ty(shape)}) -> {_ty(shape)}")
        return v

    def broadcast(self, vec: str, n: int, shape, dim: int) -> str:
        v = self.fresh()
        dims = ", ".join(str(d) for d in range(len(shape)) if d != dim)
        self.emit(f"{v} = linalg.broadcast ins({vec} : {_ty([n])}) outs({self.empty(shape)} : {_ty(shape)}) "
                  f"dimensions = [{dims}]")
        return v

    def elementwise(self, xs: List[Tuple[str, List[int]]], shape, body: str) -> str:
        """A linalg.generic over ``shape``: ``xs`` (value, shape broadcast from the trailing
        dims) are %a0, %a1... in ``body`` (which yields %r)."""
        r = len(shape)
        dims = [f"d{i}" for i in range(r)]
        maps = []
        for _, s in xs:
            used = [f"d{r - len(s) + i}" if s[i] == shape[r - len(s) + i] else "0" for i in range(len(s))]
            maps.append(f"affine_map<({', '.join(dims)}) -> ({', '.join(used)})>")
        maps.append(f"affine_map<({', '.join(dims)}) -> ({', '.join(dims)})>")
        v = self.fresh()
        its = ", ".join(['"parallel"'] * r)
        ins = ", ".join(x for x, _ in xs)
        tys = ", ".join(_ty(s) for _, s in xs)
        args = ", ".join(f"%a{i}: f32" for i in range(len(xs)))
        self.emit(f"{v} = linalg.generic {{indexing_maps = [{', '.join(maps)}], iterator_types = "
                  f"[{its}]}} ins({ins} : {tys}) outs({self.empty(shape)} : "
                  f"{_ty(shape)}) {{")
        self.emit(f"^bb0({args}, %out: f32):")
        for line in body.strip().splitlines():
            self.emit("  " + line.strip())
        self.emit("  linalg.yield %r : f32")
        self.emit(f"}} -> {_ty(shape)}")
        return v


def to_linalg(g: Graph) -> str:
    """linalg-on-tensors MLIR of the float graph ``g`` (one function ``@main_graph``)."""
    if len(g.inputs) != 1 or len(g.outputs) != 1:
        raise ValueError("one input and one output expected")
    e = _Emitter()
    vals: Dict[str, Tuple[str, List[int]]] = {g.inputs[0][0]: ("%arg0", list(g.inputs[0][1]))}

    def value(name: str) -> Tuple[str, List[int]]:
        if name not in vals:
            if name not in g.initializers:
                raise ValueError(f"{name}: no producer")
            a = np.asarray(g.initializers[name], np.float32)
            vals[name] = (e.const(a), list(a.shape))
        return vals[name]

    for n in g.nodes:
        if n.op == "Conv":
            if int(n.attrs.get("group", 1)) != 1 or any(d != 1 for d in n.attrs.get("dilations", [1, 1])):
                raise ValueError("Conv: only group 1 and dilation 1")
            x, xs = value(n.inputs[0])
            w = np.asarray(g.initializers[n.inputs[1]], np.float32)
            f, c, kh, kw = w.shape
            pt, pl, pb, pr = n.attrs.get("pads", [0, 0, 0, 0])
            sh, sw = n.attrs.get("strides", [1, 1])
            if pt or pl or pb or pr:
                ps = [xs[0], xs[1], xs[2] + pt + pb, xs[3] + pl + pr]
                p = e.fresh()
                e.emit(f"{p} = tensor.pad {x} low[0, 0, {pt}, {pl}] high[0, 0, {pb}, {pr}] {{")
                e.emit("^bb0(%i0: index, %i1: index, %i2: index, %i3: index):")
                e.emit("  tensor.yield %zero : f32")
                e.emit(f"}} : {_ty(xs)} to {_ty(ps)}")
                x, xs = p, ps
            out = [xs[0], f, (xs[2] - kh) // sh + 1, (xs[3] - kw) // sw + 1]
            if len(n.inputs) > 2 and n.inputs[2]:
                init = e.broadcast(value(n.inputs[2])[0], f, out, 1)
            else:
                init = e.zeros(out)
            v = e.fresh()
            e.emit(f"{v} = linalg.conv_2d_nchw_fchw {{dilations = dense<1> : vector<2xi64>, strides = "
                   f"dense<[{sh}, {sw}]> : vector<2xi64>}} ins({x}, {e.const(w)} : {_ty(xs)}, {_ty(w.shape)}) "
                   f"outs({init} : {_ty(out)}) -> {_ty(out)}")
            vals[n.outputs[0]] = (v, out)
        elif n.op in ("Gemm", "MatMul"):
            a, ash = value(n.inputs[0])
            if n.op == "Gemm" and (n.attrs.get("transA", 0) or n.attrs.get("alpha", 1.0) != 1.0
                                   or n.attrs.get("beta", 1.0) != 1.0):
                raise ValueError("Gemm: only transA = 0, alpha = beta = 1")
            if len(ash) != 2 or n.inputs[1] not in g.initializers:
                raise ValueError(f"{n.op}: a 2-D input times constant weights only")
            w = np.asarray(g.initializers[n.inputs[1]], np.float32)
            if n.op == "Gemm" and n.attrs.get("transB", 0):
                w = w.T
            m, k, nn = ash[0], ash[1], w.shape[1]
            out = [m, nn]
            if n.op == "Gemm" and len(n.inputs) > 2 and n.inputs[2]:
                init = e.broadcast(value(n.inputs[2])[0], nn, out, 1)
            else:
                init = e.zeros(out)
            v = e.fresh()
            e.emit(f"{v} = linalg.matmul ins({a}, {e.const(np.ascontiguousarray(w))} : {_ty(ash)}, "
                   f"{_ty([k, nn])}) outs({init} : {_ty(out)}) -> {_ty(out)}")
            vals[n.outputs[0]] = (v, out)
        elif n.op == "Relu":
            x, xs = value(n.inputs[0])
            vals[n.outputs[0]] = (e.elementwise([(x, xs)], xs, "%r = arith.maximumf %a0, %zero : f32"), xs)
        elif n.op == "Add":
            (x, xs), (y, ys) = value(n.inputs[0]), value(n.inputs[1])
            big = xs if len(xs) >= len(ys) else ys
            vals[n.outputs[0]] = (e.elementwise([(x, xs), (y, ys)], big, "%r = arith.addf %a0, %a1 : f32"), big)
        elif n.op == "ReduceMean":
            x, xs = value(n.inputs[0])
            axes = n.attrs.get("axes") or [int(a) for a in g.initializers[n.inputs[1]]]
            axes = sorted(a % len(xs) for a in axes)
            kept = [d for d in range(len(xs)) if d not in axes]
            rs = [xs[d] for d in kept]
            acc = e.zeros(rs)
            dims = [f"d{i}" for i in range(len(xs))]
            v = e.fresh()
            its = ", ".join('"reduction"' if d in axes else '"parallel"' for d in range(len(xs)))
            e.emit(f"{v} = linalg.generic {{indexing_maps = [affine_map<({', '.join(dims)}) -> "
                   f"({', '.join(dims)})>, affine_map<({', '.join(dims)}) -> "
                   f"({', '.join(dims[d] for d in kept)})>], iterator_types = [{its}]}} "
                   f"ins({x} : {_ty(xs)}) outs({acc} : {_ty(rs)}) {{")
            e.emit("^bb0(%a0: f32, %out: f32):")
            e.emit("  %r = arith.addf %a0, %out : f32")
            e.emit("  linalg.yield %r : f32")
            e.emit(f"}} -> {_ty(rs)}")
            count = int(np.prod([xs[d] for d in axes]))
            mean = e.elementwise([(v, rs)], rs, f"%c = arith.constant {_f32(count)} : f32\n"
                                                "%r = arith.divf %a0, %c : f32")
            if int(n.attrs.get("keepdims", 1)):
                full = [1 if d in axes else xs[d] for d in range(len(xs))]
                vals[n.outputs[0]] = _reshape(e, mean, rs, full)
            else:
                vals[n.outputs[0]] = (mean, rs)
        elif n.op in ("Reshape", "Flatten"):
            x, xs = value(n.inputs[0])
            if n.op == "Flatten":
                ax = int(n.attrs.get("axis", 1)) % len(xs)
                shape = [int(np.prod(xs[:ax])), int(np.prod(xs[ax:]))]
            else:
                shape = [int(d) for d in g.initializers[n.inputs[1]]]
                shape = [xs[i] if d == 0 and not n.attrs.get("allowzero", 0) else d for i, d in enumerate(shape)]
                if -1 in shape:
                    i = shape.index(-1)
                    shape[i] = int(np.prod(xs)) // int(np.prod([d for d in shape if d != -1]))
            vals[n.outputs[0]] = _reshape(e, x, xs, shape)
        else:
            raise ValueError(f"{n.op}: not supported by the float twin")
    out, os_ = vals[g.outputs[0]]
    head = [f"  func.func @main_graph(%arg0: {_ty(g.inputs[0][1])}) -> {_ty(os_)} {{",
            "    %zero = arith.constant 0.000000e+00 : f32"]
    return "\n".join(["module {"] + head + e.consts + e.lines + [f"    return {out} : {_ty(os_)}", "  }", "}", ""])


def _reshape(e: _Emitter, x: str, xs: List[int], shape: List[int]) -> Tuple[str, List[int]]:
    if list(xs) == list(shape):
        return x, xs
    v = e.fresh()
    if len(shape) < len(xs) and (groups := _reassociation(xs, shape)):
        e.emit(f"{v} = tensor.collapse_shape {x} {groups} : {_ty(xs)} into {_ty(shape)}")
    elif len(shape) > len(xs) and (groups := _reassociation(shape, xs)):
        e.emit(f"{v} = tensor.expand_shape {x} {groups} output_shape {shape} : {_ty(xs)} into {_ty(shape)}")
    else:
        raise ValueError(f"Reshape {xs} -> {shape}: not a collapse or an expansion")
    return v, shape


def float_twin(qdq_onnx: Path) -> str:
    """The f32 twin (linalg MLIR) of the QDQ model ``qdq_onnx``."""
    return to_linalg(strip_qdq(read_onnx(qdq_onnx)))


def main(argv: Optional[Sequence[str]] = None) -> int:
    p = argparse.ArgumentParser(prog="python3 -m benchmarks.float_twin", description=__doc__.split("\n\n")[0])
    p.add_argument("qdq_onnx", type=Path)
    p.add_argument("-o", "--output", default="-", help="the MLIR file ('-': stdout)")
    args = p.parse_args(argv)
    text = float_twin(args.qdq_onnx)
    if args.output == "-":
        sys.stdout.write(text)
    else:
        Path(args.output).write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
