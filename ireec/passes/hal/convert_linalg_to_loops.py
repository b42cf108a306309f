"""``linalg.generic`` on memrefs → ``scf.for`` nests with ``memref.load`` / ``memref.store``.

Mirrors MLIR's ``convert-linalg-to-loops`` (Linalg/Transforms/Loops.cpp): one loop per
iteration dimension in dimension order, the iteration domain read off the operand shapes
through the indexing maps, each operand indexed by its map applied to the induction
variables, the body cloned with ``linalg.index`` replaced by the induction variables, and
``linalg.yield`` operands stored to the outputs.
"""
from __future__ import annotations

from typing import Dict, List

from ...ir import types as T
from ...ir.affine import AffineBinary, AffineConst, AffineDim, AffineExpr, AffineMap
from ...ir.attributes import IntegerAttr
from ...ir.core import Block, Builder, Operation, Region, Value
from ...ir.diagnostics import CompileError
from ..common.linalg_build import segment_sizes
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


@register_pass
class ConvertLinalgToLoopsPass(Pass):
    name = "convert-linalg-to-loops"

    def run(self, module: Operation, ctx: PassContext) -> None:
        for op in [o for o in module.walk() if o.name == "linalg.generic"]:
            if any(isinstance(v.type, T.TensorType) for v in op.operands):
                raise CompileError("linalg.generic on tensors reached loop lowering (not bufferized)", op.loc)
            self.lower(op)

    @staticmethod
    def lower(op: Operation) -> None:
        maps = generic_maps(op)
        ranges = generic_loop_ranges(op)
        n_in, n_out = segment_sizes(op)
        b = Builder.before(op)
        consts: Dict[int, Value] = {}
        ib = _IndexBuilder(b, consts)
        c0, c1 = ib.const(0), ib.const(1)
        ubs = [ib.const(r) for r in ranges]  # all bounds before the outermost loop
        ivs: List[Value] = []
        inner = b
        for ub in ubs:
            body = for_loop(inner, c0, ub, c1)
            ivs.append(body.args[0])
            inner = Builder(body, 0, op.loc)
        ib_inner = _IndexBuilder(inner, {})
        body = op.body
        mapping: Dict[Value, Value] = {}
        for k, (v, m) in enumerate(zip(op.operands, maps)):
            arg = body.args[k]
            if not arg.uses:
                continue
            if not isinstance(v.type, T.MemRefType):
                mapping[arg] = v
                continue
            idx = [ib_inner.expr(e, ivs) for e in m.results]
            mapping[arg] = inner.create("memref.load", [v] + idx, [v.type.element_type]).result
        for bop in body.ops:
            if bop.name == "linalg.yield":
                for k, y in enumerate(bop.operands):
                    out = op.operands[n_in + k]
                    idx = [ib_inner.expr(e, ivs) for e in maps[n_in + k].results]
                    inner.create("memref.store", [mapping.get(y, y), out] + idx, [])
            elif bop.name == "linalg.index":
                d = bop.attributes["dim"].value
                mapping[bop.results[0]] = ivs[d]
            else:
                inner.insert(bop.clone(mapping))
        op.erase()
