"""Building blocks of the passes that replace a memref ``linalg.generic`` by loops or by
micro-kernel calls on the workgroup's tile (:mod:`.convert_linalg_to_loops`,
:mod:`.cpu_lower_to_ukernels`, :mod:`.convert_conv_to_im2col`): index arithmetic for affine
expressions, ``scf.for`` nests, the loop bounds of a generic on its workgroup's tile and the
indices of an operand at a loop point.

Tiles (:class:`.tile_and_distribute_to_workgroups.WorkgroupTiles`): per distributed dim ``k``
of a kernel, the workgroup's tile offset ``offsets[k]`` and size ``sizes[k]`` (index values at
the kernel's entry). A generic's loop carrying dim ``k`` (``ireec.distribute``) runs over the
tile only; bindings are indexed globally (offset + iv), per-tile temporaries (allocas with
``ireec.tile_dims``) locally.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, List, Optional

from ...ir import types as T
from ...ir.affine import AffineBinary, AffineConst, AffineDim, AffineExpr, AffineMap
from ...ir.attributes import IntegerAttr
from ...ir.core import Block, Builder, Operation, Region, Value
from ...ir.diagnostics import CompileError
from .memref_utils import generic_loop_ranges

#: ``arith`` op of each binary affine expression kind.
_AFFINE_OPS = {"+": "arith.addi", "*": "arith.muli", "floordiv": "arith.floordivsi",
               "ceildiv": "arith.ceildivsi", "mod": "arith.remsi"}


class IndexBuilder:
    """Emits arith ops on index values for affine expressions, reusing constants."""

    def __init__(self, b: Builder, consts: Dict[int, Value]):
        self.b = b
        self.consts = consts

    def const(self, v: int) -> Value:
        """The ``arith.constant v : index`` of this builder (created at its insertion point
        the first time)."""
        c = self.consts.get(v)
        if c is None:
            c = self.b.create("arith.constant", [], [T.index], {"value": IntegerAttr(v, T.index)}).result
            self.consts[v] = c
        return c

    def expr(self, e: AffineExpr, ivs: List[Value]) -> Value:
        """The value of ``e`` with dim ``d`` bound to ``ivs[d]``; CompileError for an
        expression kind without an arith op."""
        if isinstance(e, AffineDim):
            return ivs[e.pos]
        if isinstance(e, AffineConst):
            return self.const(e.value)
        if isinstance(e, AffineBinary):
            lhs, rhs = self.expr(e.lhs, ivs), self.expr(e.rhs, ivs)
            return self.b.create(_AFFINE_OPS[e.kind], [lhs, rhs], [T.index]).result
        raise CompileError(f"unsupported affine expression {e}")


def for_loop(b: Builder, lb: Value, ub: Value, step: Value) -> Block:
    """Create ``scf.for`` and return its body block (ending in scf.yield)."""
    blk = Block([T.index])
    b.create("scf.for", [lb, ub, step], [], regions=[Region([blk])])
    blk.append(Operation("scf.yield", [], loc=b.loc))
    return blk


def global_ivs(b: Builder, ivs: List[Value], tile_of: Dict[int, int], tiles) -> List[Value]:
    """``ivs`` with each distributed dim ``d`` (tile ``tile_of[d]``) made global:
    ``tiles.offsets[k] + ivs[d]``, built with ``b``."""
    glob = list(ivs)
    for d, k in tile_of.items():
        glob[d] = b.create("arith.addi", [tiles.offsets[k], ivs[d]], [T.index]).result
    return glob


def operand_indices(ib: IndexBuilder, v: Value, m: AffineMap, ivs: List[Value], glob: List[Value],
                    tile_of: Dict[int, int], tiles, local: bool) -> List[Value]:
    """Indices of memref ``v`` (indexing map ``m``) at loop point ``ivs`` (tile-local) /
    ``glob`` (global), built with ``ib``: bindings are indexed globally; with ``local``,
    per-tile temporaries (allocas with ``ireec.tile_dims``) locally along their distributed
    dims."""
    b = ib.b
    td = v.owner.attributes.get("ireec.tile_dims") if isinstance(v.owner, Operation) else None
    td = list(td.value) if td is not None and local else [-1] * len(m.results)
    out = []
    for e, k in zip(m.results, td):
        if k >= 0 and isinstance(e, AffineDim) and tile_of.get(e.pos) == k:
            out.append(ivs[e.pos])  # local index in the per-tile temporary
        elif k >= 0:
            g = ib.expr(e, glob)
            out.append(b.create("arith.subi", [g, tiles.offsets[k]], [T.index]).result)
        else:
            out.append(ib.expr(e, glob))
    return out


@dataclass
class LoopBounds:
    """The loops of memref generic ``op`` on its workgroup's tile, their constants built
    right before ``op`` (``ib``: ``0``, ``1``, then each static upper bound): ``ranges`` the
    static size of each loop, ``dist`` its ``ireec.distribute`` (empty outside a distributed
    kernel), ``tile_of`` loop dim → distributed dim, ``ubs`` each loop's upper bound (the
    workgroup's tile size along distributed dims), ``tiles`` the kernel's tiles (or None)."""

    op: Operation
    ib: IndexBuilder
    ranges: List[int]
    dist: List[int]
    tile_of: Dict[int, int]
    ubs: List[Value]
    tiles: Optional[object]

    @staticmethod
    def build(op: Operation, tiles) -> "LoopBounds":
        ranges = generic_loop_ranges(op)
        dist_attr = op.attributes.get("ireec.distribute")
        dist = list(dist_attr.value) if (dist_attr is not None and tiles is not None and tiles.extents) else []
        ib = IndexBuilder(Builder.before(op), {})
        ib.const(0), ib.const(1)
        tile_of = {d: k for k, d in enumerate(dist) if d >= 0}
        # All bounds before the outermost loop.
        ubs = [tiles.sizes[tile_of[d]] if d in tile_of else ib.const(r) for d, r in enumerate(ranges)]
        return LoopBounds(op, ib, ranges, dist, tile_of, ubs, tiles)

    def erase_constants(self) -> None:
        """Erase the constants :meth:`build` made (nothing was built with them)."""
        for c in self.ib.consts.values():
            c.owner.erase()

    def maxes(self) -> List[int]:
        """The largest value of each upper bound: the tile along distributed dims."""
        return [self.tiles.tiles[self.tile_of[d]] if d in self.tile_of else r for d, r in enumerate(self.ranges)]
