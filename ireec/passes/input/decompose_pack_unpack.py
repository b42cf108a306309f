"""``linalg.pack`` / ``linalg.unpack`` (and their pre-LLVM-21 ``tensor.*`` names) become a
``linalg.generic`` copy whose input indexing map does the (un)tiling.

Mirrors IREE's ``iree-codegen-decompose-pack-unpack-ops`` (upstream's ``lowerPack`` /
``lowerUnPack``: pad -> expand_shape -> transpose, and transpose -> collapse_shape ->
extract_slice), with the reshape and transpose folded into one affine map, which ireec's
loop lowering handles directly:

* pack, iterating over the packed dims ``(o..., i...)``: source dim ``s`` tiled by ``t`` at
  inner position ``j`` reads ``o_p * t + i_j`` (``p`` = where ``outer_dims_perm`` puts ``s``);
  with ``padding_value`` the source is first padded up to ``outer * tile`` (``tensor.pad``).
* unpack, iterating over the unpacked dims ``e``: reads packed element
  ``(e_s floordiv t, ..., e_s mod t)``; iterating over the destination only drops the
  padding (upstream's trailing ``extract_slice``).

Semantics: https://mlir.llvm.org/docs/Dialects/Linalg/#linalgpack-linalgpackop. Tile
sizes must be static by now (``canonicalize`` folds constant SSA tiles); dynamic ones raise
CompileError.
"""
from __future__ import annotations

from typing import List

from ...dialects.linalg import build_generic
from ...dialects.tensor import K_DYNAMIC, i64_array, segment_sizes, split_segments
from ...ir import types as T
from ...ir.affine import AffineBinary, AffineConst, AffineDim, AffineExpr, AffineMap
from ...ir.core import Block, Builder, Operation, Region
from ...ir.diagnostics import CompileError
from ..pass_base import Pass, PassContext, register_pass

_PACK = ("linalg.pack", "tensor.pack")
_UNPACK = ("linalg.unpack", "tensor.unpack")


def _ints(op: Operation, name: str) -> List[int]:
    a = op.attributes.get(name)
    return [int(x) for x in a.value] if a is not None else []


def _static_tiles(op: Operation) -> List[int]:
    tiles = _ints(op, "static_inner_tiles")
    if any(t == K_DYNAMIC for t in tiles):
        raise CompileError(f"'{op.name}' with dynamic inner tile sizes is not supported "
                           "(tiles must fold to constants)", op.loc)
    return tiles


def _tiling(op: Operation, rank: int):
    """(outer_dims_perm, inner_dims_pos, tiles, {source dim: inner position})."""
    perm = _ints(op, "outer_dims_perm") or list(range(rank))
    inner = _ints(op, "inner_dims_pos")
    tiles = _static_tiles(op)
    return perm, inner, tiles, {s: j for j, s in enumerate(inner)}


def _require_static(op: Operation, *types: T.Type) -> None:
    for t in types:
        if not (isinstance(t, T.TensorType) and t.has_static_shape):
            raise CompileError(f"'{op.name}' on dynamic shapes is not supported ({t})", op.loc)


def decompose_pack(op: Operation) -> None:
    """Replace a pack op by (pad +) one linalg.generic. CompileError when not static."""
    src, dest = op.operands[0], op.operands[1]
    pad = split_segments(op)[2] if "operandSegmentSizes" in op.attributes else []
    _require_static(op, src.type, dest.type)
    n = src.type.rank
    perm, inner, tiles, where = _tiling(op, n)
    b = Builder.before(op)
    padded_shape = list(src.type.shape)
    for s, j in where.items():
        padded_shape[s] = dest.type.shape[perm.index(s)] * tiles[j]
    if padded_shape != list(src.type.shape):
        if not pad:
            raise CompileError(f"'{op.name}' needs a padding_value: tiles do not divide the "
                               "source dims", op.loc)
        blk = Block([T.index] * n)
        Builder.at_end(blk, op.loc).create("tensor.yield", [pad[0]])
        high = [p - d for p, d in zip(padded_shape, src.type.shape)]
        src = b.create("tensor.pad", [src], [T.TensorType(tuple(padded_shape), src.type.element_type)], {
            "static_low": i64_array([0] * n), "static_high": i64_array(high),
            "operandSegmentSizes": segment_sizes(1, 0, 0)}, regions=[Region([blk])]).result
    exprs: List[AffineExpr] = []
    for s in range(n):
        outer = AffineDim(perm.index(s))
        if s in where:
            j = where[s]
            exprs.append(AffineBinary("+", AffineBinary("*", outer, AffineConst(tiles[j])),
                                      AffineDim(n + j)))
        else:
            exprs.append(outer)
    rank = dest.type.rank
    g = build_generic([src], [dest], [AffineMap(rank, 0, tuple(exprs)), AffineMap.identity(rank)],
                      ["parallel"] * rank, lambda sb, args: [args[0]], loc=op.loc, builder=b)
    op.replace_with(g.results)


def decompose_unpack(op: Operation) -> None:
    """Replace an unpack op by one linalg.generic. CompileError when not static."""
    src, dest = op.operands[0], op.operands[1]
    _require_static(op, src.type, dest.type)
    n = dest.type.rank
    perm, inner, tiles, where = _tiling(op, n)
    exprs: List[AffineExpr] = []
    for p in range(n):
        s = perm[p]
        e = AffineDim(s)
        exprs.append(AffineBinary("floordiv", e, AffineConst(tiles[where[s]])) if s in where else e)
    for j, s in enumerate(inner):
        exprs.append(AffineBinary("mod", AffineDim(s), AffineConst(tiles[j])))
    b = Builder.before(op)
    g = build_generic([src], [dest], [AffineMap(n, 0, tuple(exprs)), AffineMap.identity(n)],
                      ["parallel"] * n, lambda sb, args: [args[0]], loc=op.loc, builder=b)
    op.replace_with(g.results)


@register_pass
class DecomposePackUnPackPass(Pass):
    """IREE's ``iree-codegen-decompose-pack-unpack-ops`` at the input phase: every pack and
    unpack on tensors becomes a linalg.generic (plus tensor.pad for padded packs)."""

    name = "iree-codegen-decompose-pack-unpack-ops"

    def run(self, module: Operation, ctx: PassContext) -> None:
        for op in [o for o in module.walk() if o.name in _PACK + _UNPACK]:
            if not op.results:
                continue  # memref forms are left to later lowering
            if op.name in _PACK:
                decompose_pack(op)
            else:
                decompose_unpack(op)
