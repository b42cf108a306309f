"""``linalg.generic`` on memrefs → ``scf.for`` nests with ``memref.load`` / ``memref.store``.

Mirrors MLIR's ``convert-linalg-to-loops`` (Linalg/Transforms/Loops.cpp): one loop per
iteration dimension in dimension order, the iteration domain read off the operand shapes
through the indexing maps, each operand indexed by its map applied to the induction
variables, the body cloned with ``linalg.index`` replaced by the induction variables, and
``linalg.yield`` operands stored to the outputs.

Workgroup distribution (what IREE's ``TileAndDistributeToWorkgroups`` + ``LinalgToLoops``
produce together): in a kernel with ``ireec.distribution`` (extent and tile per distributed
dim, see :mod:`.select_lowering_strategy`) each distributed dim ``k`` gets, at the kernel's
entry, its tile offset ``hal.interface.workgroup.id[axis] * tile`` and size
``min(tile, extent - offset)`` (the constant ``tile`` when it divides the extent): axis x is
the innermost distributed dim. A generic's loop carrying dim ``k`` (``ireec.distribute``)
runs over the tile only (bounds-checked partial last tile); bindings are indexed globally
(offset + iv), per-tile temporaries (allocas with ``ireec.tile_dims``) locally.

Loop order: loops are sorted by the sum over operands of the element stride each loop moves
the operand by (largest outermost), so the innermost loop walks contiguous memory (matmul:
i, k, j; a row reduction: the reduced dim innermost; a column reduction: rows outer).
Any order is a valid schedule of a ``linalg.generic``; loop bounds are constants wherever the
tile divides the extent, so the C compiler can vectorize the innermost loop.
"""
from __future__ import annotations

from typing import Dict, List

from ...ir import types as T
from ...ir.affine import AffineBinary, AffineConst, AffineDim, AffineExpr, AffineMap
from ...ir.attributes import IntegerAttr
from ...ir.core import Block, Builder, Operation, Region, Value
from ...ir.diagnostics import CompileError
from .bufferize import segment_sizes
from .memref_utils import strides_and_offset
from ..pass_base import Pass, PassContext, register_pass


def generic_maps(op: Operation) -> List[AffineMap]:
    return [a.value for a in op.attributes["indexing_maps"].value]


def generic_loop_ranges(op: Operation) -> List[int]:
    """Static size of each iteration dimension, from the first operand dim it indexes."""
    maps = generic_maps(op)
    n = maps[0].num_dims if maps else 0
    ranges: List = [None] * n
    for v, m in zip(op.operands, maps):
        shape = getattr(v.type, "shape", ())
        for k, e in enumerate(m.results):
            if isinstance(e, AffineDim) and ranges[e.pos] is None:
                ranges[e.pos] = shape[k]
    if any(r is None for r in ranges):
        raise CompileError("cannot infer the loop range of a linalg.generic dimension", op.loc)
    return ranges


class _IndexBuilder:
    """Emits arith ops on index values for affine expressions, reusing constants."""

    def __init__(self, b: Builder, consts: Dict[int, Value]):
        self.b = b
        self.consts = consts

    def const(self, v: int) -> Value:
        c = self.consts.get(v)
        if c is None:
            c = self.b.create("arith.constant", [], [T.index], {"value": IntegerAttr(v, T.index)}).result
            self.consts[v] = c
        return c

    def expr(self, e: AffineExpr, ivs: List[Value]) -> Value:
        if isinstance(e, AffineDim):
            return ivs[e.pos]
        if isinstance(e, AffineConst):
            return self.const(e.value)
        if isinstance(e, AffineBinary):
            lhs, rhs = self.expr(e.lhs, ivs), self.expr(e.rhs, ivs)
            name = {"+": "arith.addi", "*": "arith.muli", "floordiv": "arith.floordivsi",
                    "ceildiv": "arith.ceildivsi", "mod": "arith.remsi"}[e.kind]
            return self.b.create(name, [lhs, rhs], [T.index]).result
        raise CompileError(f"unsupported affine expression {e}")


def for_loop(b: Builder, lb: Value, ub: Value, step: Value) -> Block:
    """Create ``scf.for`` and return its body block (ending in scf.yield)."""
    blk = Block([T.index])
    b.create("scf.for", [lb, ub, step], [], regions=[Region([blk])])
    blk.append(Operation("scf.yield", [], loc=b.loc))
    return blk


def _coeff_strides(e: AffineExpr, stride: int, acc: Dict[int, int]) -> None:
    """Add to ``acc[d]`` how far one step of loop ``d`` moves index expression ``e`` (times
    the dim's element ``stride``); products with constants scale, other terms count once."""
    if isinstance(e, AffineDim):
        acc[e.pos] = acc.get(e.pos, 0) + stride
    elif isinstance(e, AffineBinary):
        if e.kind == "*" and isinstance(e.rhs, AffineConst):
            _coeff_strides(e.lhs, stride * abs(e.rhs.value), acc)
        elif e.kind == "*" and isinstance(e.lhs, AffineConst):
            _coeff_strides(e.rhs, stride * abs(e.lhs.value), acc)
        elif e.kind == "+":
            _coeff_strides(e.lhs, stride, acc)
            _coeff_strides(e.rhs, stride, acc)
        else:
            _coeff_strides(e.lhs, stride, acc)
            _coeff_strides(e.rhs, stride, acc)


def loop_order(op: Operation, n: int) -> List[int]:
    """Loop dims of memref generic ``op``, outermost first (see the module docstring)."""
    acc: Dict[int, int] = {}
    for v, m in zip(op.operands, generic_maps(op)):
        if not isinstance(v.type, T.MemRefType):
            continue
        strides, _ = strides_and_offset(v.type)
        for e, st in zip(m.results, strides):
            _coeff_strides(e, st, acc)
    return sorted(range(n), key=lambda d: (-acc.get(d, 0), d))


class _Tiles:
    """Per-kernel tile offsets and sizes of the distributed dims (created at kernel entry)."""

    def __init__(self, kernel: Operation):
        a = kernel.attributes.get("ireec.distribution")
        flat = list(a.value) if a is not None else []
        self.extents = flat[0::2]
        self.tiles = flat[1::2]
        self.offsets: List[Value] = []
        self.sizes: List[Value] = []
        if not self.extents:
            return
        blk = kernel.body
        i = 0
        while i < len(blk.ops) and blk.ops[i].name in ("hal.interface.binding.subspan", "arith.constant"):
            i += 1
        b = Builder(blk, i, kernel.loc)
        ib = _IndexBuilder(b, {})
        n = len(self.extents)
        for k, (e, t) in enumerate(zip(self.extents, self.tiles)):
            if e <= t:
                self.offsets.append(ib.const(0))
                self.sizes.append(ib.const(e))
                continue
            wid = b.create("hal.interface.workgroup.id", [], [T.index],
                           {"dimension": IntegerAttr(n - 1 - k, T.index)}).result
            off = b.create("arith.muli", [wid, ib.const(t)], [T.index]).result
            self.offsets.append(off)
            if e % t == 0:
                self.sizes.append(ib.const(t))
            else:
                rest = b.create("arith.subi", [ib.const(e), off], [T.index]).result
                self.sizes.append(b.create("arith.minsi", [ib.const(t), rest], [T.index]).result)


@register_pass
class ConvertLinalgToLoopsPass(Pass):
    """MLIR's ``convert-linalg-to-loops`` with workgroup distribution: see the module docstring."""

    name = "convert-linalg-to-loops"

    def run(self, module: Operation, ctx: PassContext) -> None:
        kernels = [k for exe in module.body.ops if exe.name == "hal.executable"
                   for k in exe.walk() if k.name == "func.func"]
        seen = set()
        for k in kernels:
            tiles = _Tiles(k)
            for op in [o for o in k.walk() if o.name == "linalg.generic"]:
                seen.add(id(op))
                self._check(op)
                self.lower(op, tiles)
        for op in [o for o in module.walk() if o.name == "linalg.generic" and id(o) not in seen]:
            self._check(op)
            self.lower(op, None)

    @staticmethod
    def _check(op: Operation) -> None:
        if any(isinstance(v.type, T.TensorType) for v in op.operands):
            raise CompileError("linalg.generic on tensors reached loop lowering (not bufferized)", op.loc)

    @staticmethod
    def lower(op: Operation, tiles: "_Tiles" = None) -> None:
        maps = generic_maps(op)
        ranges = generic_loop_ranges(op)
        n_in, n_out = segment_sizes(op)
        dist_attr = op.attributes.get("ireec.distribute")
        dist = list(dist_attr.value) if (dist_attr is not None and tiles is not None and tiles.extents) else []
        b = Builder.before(op)
        consts: Dict[int, Value] = {}
        ib = _IndexBuilder(b, consts)
        c0, c1 = ib.const(0), ib.const(1)
        tile_of = {d: k for k, d in enumerate(dist) if d >= 0}
        # All bounds before the outermost loop.
        ubs = [tiles.sizes[tile_of[d]] if d in tile_of else ib.const(r) for d, r in enumerate(ranges)]
        order = loop_order(op, len(ranges))
        ivs: List = [None] * len(ranges)
        inner = b
        for d in order:
            body = for_loop(inner, c0, ubs[d], c1)
            ivs[d] = body.args[0]
            inner = Builder(body, 0, op.loc)
        ib_inner = _IndexBuilder(inner, {})
        glob: List[Value] = list(ivs)
        for d, k in tile_of.items():
            glob[d] = inner.create("arith.addi", [tiles.offsets[k], ivs[d]], [T.index]).result

        def indices(v: Value, m: AffineMap) -> List[Value]:
            td = v.owner.attributes.get("ireec.tile_dims") if isinstance(v.owner, Operation) else None
            td = list(td.value) if td is not None and dist else [-1] * len(m.results)
            out = []
            for e, k in zip(m.results, td):
                if k >= 0 and isinstance(e, AffineDim) and tile_of.get(e.pos) == k:
                    out.append(ivs[e.pos])  # local index in the per-tile temporary
                elif k >= 0:
                    g = ib_inner.expr(e, glob)
                    out.append(inner.create("arith.subi", [g, tiles.offsets[k]], [T.index]).result)
                else:
                    out.append(ib_inner.expr(e, glob))
            return out

        body = op.body
        mapping: Dict[Value, Value] = {}
        for k, (v, m) in enumerate(zip(op.operands, maps)):
            arg = body.args[k]
            if not arg.uses:
                continue
            if not isinstance(v.type, T.MemRefType):
                mapping[arg] = v
                continue
            mapping[arg] = inner.create("memref.load", [v] + indices(v, m), [v.type.element_type]).result
        for bop in body.ops:
            if bop.name == "linalg.yield":
                for k, y in enumerate(bop.operands):
                    out = op.operands[n_in + k]
                    inner.create("memref.store", [mapping.get(y, y), out] + indices(out, maps[n_in + k]), [])
            elif bop.name == "linalg.index":
                d = bop.attributes["dim"].value
                mapping[bop.results[0]] = glob[d]
            else:
                inner.insert(bop.clone(mapping))
        op.erase()
