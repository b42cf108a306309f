"""The analysis of dynamic dimensions shared by ``ireec-pad-dynamic-dims-to-bounds``
(pad_dynamic_dims_to_bounds.py) and ``ireec-map-dynamic-dims`` (map_dynamic_dims.py, whose
docstring describes the slice map): one symbol per dynamic dimension of a public function's
arguments, unified by the ops that force extents equal (union-find), the dimensions of every
value that carry each symbol and the shape values computed from them, through a table of
rules keyed by op name (:data:`RULES`).

A symbol is *mapped* (the entry loops over slices; its dimensions must stay a leading prefix
and never be reduced, contracted, windowed, sliced or concatenated along) or *padded* (the
program is compiled at its bound; its dimensions may sit anywhere and be reduced,
contracted, scattered or sliced from 0, which the analysis records as masks for the padding
pass to insert). Anything a rule cannot follow is a CompileError at the op naming the
dimension and why.
"""
from __future__ import annotations

from typing import Callable, Dict, FrozenSet, List, Optional, Tuple

import numpy as np

from ...dialects import linalg as L
from ...dialects import stablehlo as shlo
from ...dialects.registry import has_trait
from ...dialects.tensor import reassociation
from ...ir import types as T
from ...ir.affine import AffineBinary, AffineDim, AffineExpr
from ...ir.attributes import DenseElementsAttr, IntegerAttr
from ...ir.core import Builder, Operation, Value
from ...ir.diagnostics import CompileError
from ..common.union_find import UnionFind

#: One entry of a shape value: ``(k, s)`` is ``k * extent(symbol s)``, ``(c, None)`` the
#: constant c; None: computed from symbols in a way the pass does not follow.
Entry = Optional[Tuple[int, Optional[int]]]

WHY = "ireec maps programs over dynamic dimensions (compiling one static slice)"


class State:
    """Union-find over symbols plus the per-value facts of one function.

    ``padded``: the (argument, dimension) pairs whose symbols are *padded* rather than
    mapped (``ireec-pad-dynamic-dims-to-bounds``, pad_dynamic_dims_to_bounds.py): their
    dimensions may sit anywhere in a tensor and may be reduced or contracted, which the
    analysis records in ``masks`` as (op, operand index, dimension, symbol, fill: an operand
    index, None for zero, :data:`OUT_OF_BOUNDS` or :data:`PAYLOAD`)."""

    def __init__(self, f: Operation, padded: FrozenSet[Tuple[int, int]] = frozenset()):
        self.f = f
        self.sets = UnionFind()
        self.origin: List[Tuple[int, int]] = []          # symbol -> (arg, dim)
        self.dims: Dict[Value, Dict[int, int]] = {}        # tensor value -> {dim: symbol}
        self.shape: Dict[Value, List[Entry]] = {}          # shape value -> entries
        self.checks: List[Tuple[int, str, int]] = []
        self.assertions: List[Operation] = []
        self.predicates: Dict[Value, Operation] = {}       # compare of shape values
        self.padded_origins = padded
        self.masks: List[Tuple[Operation, int, int, int, object]] = []
        self.mixed: List[Tuple[int, int]] = []             # unified mapped and padded symbols
        self.data_uses: List[Tuple[Operation, int]] = []   # (op, operand) reading a padded extent

    # -- symbols -----------------------------------------------------------
    def new_symbol(self, arg: int, dim: int) -> int:
        """A new symbol for dynamic dimension ``dim`` of public argument ``arg``; its id."""
        self.origin.append((arg, dim))
        return len(self.origin) - 1

    def find(self, s: int) -> int:
        """The representative of symbol ``s`` (:class:`..common.union_find.UnionFind`)."""
        return self.sets.find(s)

    def union(self, a: int, b: int) -> int:
        """Make symbols ``a`` and ``b`` one (an op forces their extents equal); the
        representative, the smaller id, so the first argument's dimension names it. A
        mapped symbol unified with a padded one is recorded in ``mixed``."""
        if self.is_padded(a) != self.is_padded(b):
            self.mixed.append((a, b))
        return self.sets.union(a, b)

    def padded_scalar(self, v: Value) -> bool:
        """Whether shape value ``v`` is one ``k * symbol`` of a padded symbol (read at run
        time from its extent when used as data)."""
        e = self.shape.get(v)
        return (e is not None and len(e) == 1 and e[0] is not None and e[0][1] is not None
                and self.is_padded(e[0][1]) and isinstance(e[0][0], int))

    def is_padded(self, s: int) -> bool:
        """Whether symbol ``s`` is padded to a bound (see the class docstring)."""
        return self.origin[self.find(s)] in self.padded_origins

    # -- facts ---------------------------------------------------------------
    def syms(self, v: Value) -> Dict[int, int]:
        """``{dim: representative symbol}`` of tensor value ``v`` (empty when static)."""
        return {d: self.find(s) for d, s in self.dims.get(v, {}).items()}

    def set_dims(self, op: Operation, v: Value, dims: Dict[int, int]) -> None:
        """Record that ``v``'s dims carry ``dims``; CompileError unless they are dynamic
        dims of its type forming a leading prefix."""
        if not dims:
            return
        shape = getattr(v.type, "shape", None)
        for d in sorted(dims):
            if shape is None or d >= len(shape) or shape[d] is not None:
                raise CompileError(f"'{op.name}': dimension {d} of this result follows a dynamic "
                                   f"dimension of an argument but has a static size in {v.type}; "
                                   f"{WHY} and cannot follow it", op.loc)
        mapped = {d for d, s in dims.items() if not self.is_padded(s)}
        if mapped and sorted(mapped) != list(range(len(mapped))):
            bad = min(set(range(max(mapped) + 1)) - mapped)
            raise CompileError(f"'{op.name}': dynamic dimension {max(mapped)} of this result is not in "
                               f"the leading prefix of dynamic dimensions (dimension {bad} before it "
                               f"is not one); {WHY} and needs them leading", op.loc)
        self.dims[v] = dict(dims)

    def entries(self, op: Operation, v: Value) -> List[Entry]:
        """The shape entries of ``v``: tracked, or read from an integer constant."""
        if v in self.shape:
            return self.shape[v]
        o = v.owner
        if isinstance(o, Operation) and o.name in ("stablehlo.constant", "arith.constant"):
            a = o.attributes.get("value")
            if isinstance(a, DenseElementsAttr) and isinstance(a.type.element_type, (T.IntegerType, T.IndexType)):
                return [(int(x), None) for x in a.int_list()]
            if isinstance(a, IntegerAttr):
                return [(int(a.value), None)]
        return [None]


# ============================================================================= rules
# Each rule reads the operands' facts from the state and records the results'; it raises
# CompileError for what the slice program cannot compute.

Rule = Callable[[State, Operation], None]


def _elementwise(st: State, op: Operation) -> None:
    """Result dim p carries the symbol of every full-rank operand at p (unified); operands
    of rank 0, or of size 1 there in ops that broadcast (TOSA), are the same for every slice."""
    broadcasting = has_trait(op, "broadcasting")
    out: Dict[int, int] = {}
    for r in op.results:
        rank = len(getattr(r.type, "shape", None) or ())
        for v in op.operands:
            for d, s in st.syms(v).items():
                out[d] = st.union(out[d], s) if d in out else s
        for v in op.operands:
            shp = getattr(v.type, "shape", None)
            if not shp or len(shp) != rank:
                continue
            for d in out:
                if shp[d] == 1 and broadcasting:
                    continue
                if d not in st.syms(v):
                    raise CompileError(f"'{op.name}': dimension {d} of operand #{op.operands.index(v)} "
                                       f"({v.type}) meets a dynamic argument dimension it does not "
                                       f"follow; {WHY} and cannot prove them equal", op.loc)
    for r in op.results:
        st.set_dims(op, r, out)


def _shape_entries_to_dims(st: State, op: Operation, entries: List[Entry], what: str) -> Dict[int, int]:
    """Result dims given by shape ``entries``: ``1 * symbol`` carries the symbol, a constant is
    static; anything else is refused."""
    out: Dict[int, int] = {}
    for i, e in enumerate(entries):
        if e is None:
            raise CompileError(f"'{op.name}': size {i} of the {what} is computed from a dynamic "
                               f"dimension in a way ireec does not follow; {WHY}", op.loc)
        k, s = e
        if s is None:
            continue
        if k != 1:
            raise CompileError(f"'{op.name}': size {i} of the {what} is {k} times a dynamic "
                               f"dimension; {WHY} and cannot merge or split one", op.loc)
        out[i] = s
    return out


def _broadcast_in_dim(st: State, op: Operation) -> None:
    """Operand dim j → result dim ``broadcast_dimensions[j]``; a ``dynamic_broadcast_in_dim``
    gives the result's symbols through its shape operand (new or size-1 operand dims: the
    operand is the same for every slice)."""
    bd = shlo.i64_list(op.attributes.get("broadcast_dimensions"))
    out = {bd[d]: s for d, s in st.syms(op.operands[0]).items()}
    if op.name == "stablehlo.dynamic_broadcast_in_dim":
        for d, s in _shape_entries_to_dims(st, op, st.entries(op, op.operands[1]), "output shape").items():
            out[d] = st.union(out[d], s) if d in out else s
        for d, s in st.syms(op.operands[0]).items():
            if bd[d] not in out:
                raise CompileError(f"'{op.name}': dynamic dimension {d} of the operand is broadcast to "
                                   f"a static size; {WHY}", op.loc)
    st.set_dims(op, op.results[0], out)


def _reshape(st: State, op: Operation) -> None:
    """The operand's dims up to its last symbol dim stay the result's, in place and unmerged
    (symbol dims carry their symbols, the static ones between them keep their sizes); the
    rest reshapes statically (equal element counts). With mapped symbols only, that prefix is
    the leading symbol dims."""
    src = st.syms(op.operands[0])
    in_shape = op.operands[0].type.shape
    rt = op.results[0].type
    out: Dict[int, Optional[int]] = {}
    if op.name == "stablehlo.dynamic_reshape":
        out = dict(_shape_entries_to_dims(st, op, st.entries(op, op.operands[1]), "output shape"))
    if not src and not out:
        return
    k = max(src) + 1 if src else 0
    moved = CompileError(f"'{op.name}': the reshape moves, merges or splits a dynamic dimension "
                         f"(operand {op.operands[0].type}, result {rt}); {WHY} and keeps them in "
                         f"place", op.loc)
    if any(d >= k for d in out) or len(rt.shape) < k:
        raise moved
    for d in range(k):
        if d in src:
            if op.name != "stablehlo.dynamic_reshape" and rt.shape[d] is not None:
                raise moved
            if op.name == "stablehlo.dynamic_reshape" and d not in out:
                raise moved
        elif d in out or in_shape[d] is None or in_shape[d] != rt.shape[d]:
            raise moved
    rest_in = in_shape[k:]
    rest_out = rt.shape[k:]
    if op.name == "stablehlo.dynamic_reshape":
        rest_out = [e[0] for e in st.entries(op, op.operands[1])[k:]]
    if None in rest_in or None in rest_out or int(np.prod(rest_in)) != int(np.prod(rest_out)):
        raise CompileError(f"'{op.name}': the reshape moves, merges or splits a dynamic dimension "
                           f"(operand {op.operands[0].type}, result {rt}); {WHY}", op.loc)
    st.set_dims(op, op.results[0], {d: (st.union(src[d], out[d]) if out.get(d) is not None else src[d])
                                    for d in src})


def _transpose(st: State, op: Operation) -> None:
    perm = shlo.i64_list(op.attributes.get("permutation"))
    src = st.syms(op.operands[0])
    out = {i: src[p] for i, p in enumerate(perm) if p in src}
    st.set_dims(op, op.results[0], out)


def _dot_general(st: State, op: Operation) -> None:
    """Batching dims, then lhs free dims, then rhs free dims; contracting a dynamic dim is
    refused."""
    if op.name == "stablehlo.dot":
        lr = len(op.operands[0].type.shape)
        d = {"lhs_batching_dimensions": [], "rhs_batching_dimensions": [],
             "lhs_contracting_dimensions": [lr - 1], "rhs_contracting_dimensions": [0]}
    else:
        d = shlo.dot_dimension_numbers(op)
    lhs, rhs = st.syms(op.operands[0]), st.syms(op.operands[1])
    lb, rb = d["lhs_batching_dimensions"], d["rhs_batching_dimensions"]
    lc, rc = d["lhs_contracting_dimensions"], d["rhs_contracting_dimensions"]
    for side, syms, con in (("lhs", lhs, lc), ("rhs", rhs, rc)):
        for dim in syms:
            if dim in con and not st.is_padded(syms[dim]):
                raise CompileError(f"'{op.name}': dynamic dimension {dim} of the {side} is "
                                   f"contracted; {WHY} and cannot reduce one", op.loc)
    for a, b in zip(lc, rc):  # a padded contracted dim: both sides masked to zero past the extent
        if a in lhs or b in rhs:
            if not (a in lhs and b in rhs):
                raise CompileError(f"'{op.name}': contracting dimension {a} x {b} is dynamic on one "
                                   f"side only; {WHY} and cannot prove them equal", op.loc)
            s = st.union(lhs[a], rhs[b])
            st.masks += [(op, 0, a, s, None), (op, 1, b, s, None)]
    out: Dict[int, int] = {}
    for i, (a, b) in enumerate(zip(lb, rb)):
        if a in lhs and b in rhs:
            out[i] = st.union(lhs[a], rhs[b])
        elif a in lhs or b in rhs:
            raise CompileError(f"'{op.name}': batching dimension {i} is dynamic on one side only; "
                               f"{WHY} and cannot prove them equal", op.loc)
    n = len(lb)
    lfree = [i for i in range(len(op.operands[0].type.shape)) if i not in lb and i not in lc]
    rfree = [i for i in range(len(op.operands[1].type.shape)) if i not in rb and i not in rc]
    for j, i in enumerate(lfree):
        if i in lhs:
            out[n + j] = lhs[i]
    for j, i in enumerate(rfree):
        if i in rhs:
            out[n + len(lfree) + j] = rhs[i]
    st.set_dims(op, op.results[0], out)


def _convolution(st: State, op: Operation) -> None:
    """Only the input batch dimension may be dynamic; it becomes the output batch."""
    dn = shlo.conv_dimension_numbers(op)
    lhs, rhs = st.syms(op.operands[0]), st.syms(op.operands[1])
    if rhs:
        raise CompileError(f"'{op.name}': dynamic dimension {min(rhs)} of the kernel; {WHY} and "
                           f"supports a dynamic input batch only", op.loc)
    for d in lhs:
        if d != dn["input_batch_dimension"]:
            raise CompileError(f"'{op.name}': dynamic dimension {d} of the input is not its batch "
                               f"dimension; {WHY} and supports a dynamic input batch only", op.loc)
    if lhs and int(getattr(op.attributes.get("batch_group_count"), "value", 1)) != 1:
        raise CompileError(f"'{op.name}': a dynamic batch with batch_group_count > 1; {WHY}", op.loc)
    out = {dn["output_batch_dimension"]: s for s in lhs.values()}
    st.set_dims(op, op.results[0], out)


def _reduce(st: State, op: Operation) -> None:
    """Dynamic dims must not be reduced; the kept dims renumber."""
    n = len(op.results)
    red = set(shlo.i64_list(op.attributes.get("dimensions")))
    out: Dict[int, int] = {}
    for i, v in enumerate(op.operands[:n]):
        syms = st.syms(v)
        for d, s in syms.items():
            if d in red and st.is_padded(s):
                st.masks.append((op, i, d, s, n + i))  # past the extent: the init value
                continue
            if d in red:
                raise CompileError(f"'{op.name}': dynamic dimension {d} of this operand is reduced; "
                                   f"{WHY} and cannot reduce one", op.loc)
            if d in red:
                continue
            nd = d - sum(1 for r in red if r < d)
            out[nd] = st.union(out[nd], s) if nd in out else s
    for r in op.results:
        st.set_dims(op, r, out)


def _reduce_window(st: State, op: Operation) -> None:
    """Window 1, stride 1, no padding or dilation on every dynamic dim."""
    n = len(op.results)
    a = op.attributes
    out: Dict[int, int] = {}
    for v in op.operands[:n]:
        for d, s in st.syms(v).items():
            ok = shlo.i64_list(a.get("window_dimensions"))[d] == 1
            for key, neutral in (("window_strides", 1), ("base_dilations", 1), ("window_dilations", 1)):
                if key in a and shlo.i64_list(a[key])[d] != neutral:
                    ok = False
            if "padding" in a and any(shlo.i64_list(a["padding"])[2 * d:2 * d + 2]):
                ok = False
            if not ok:
                raise CompileError(f"'{op.name}': the window spans dynamic dimension {d} (size, "
                                   f"stride, padding or dilation); {WHY} and needs window 1 there",
                                   op.loc)
            out[d] = st.union(out[d], s) if d in out else s
    for r in op.results:
        st.set_dims(op, r, out)


def _pad(st: State, op: Operation) -> None:
    a = op.attributes
    src = st.syms(op.operands[0])
    for key in ("edge_padding_low", "edge_padding_high", "interior_padding"):
        vals = shlo.i64_list(a.get(key))
        for d in src:
            if vals[d]:
                raise CompileError(f"'{op.name}': dynamic dimension {d} is padded; {WHY}", op.loc)
    st.set_dims(op, op.results[0], src)


def _concatenate(st: State, op: Operation) -> None:
    dim = int(op.attributes["dimension"].value)
    for v in op.operands:
        if dim in st.syms(v):
            raise CompileError(f"'{op.name}': concatenation along dynamic dimension {dim}; {WHY}",
                               op.loc)
    _elementwise(st, op)


def _gather(st: State, op: Operation) -> None:
    """``stablehlo.gather``/``dynamic_gather`` with dynamic batch dims of the start indices
    (an embedding lookup over a dynamic number of tokens): each start-indices dim other than
    ``index_vector_dim`` is a batch dim of the result, placed in order at the result dims
    that are not ``offset_dims`` (StableHLO spec, gather). The operand's slices are read
    whole, so the operand may carry no dynamic dim; batching dims (``operand_batching_dims``)
    may not be dynamic either."""
    dn = shlo.gather_dimension_numbers(op)
    operand, idx = st.syms(op.operands[0]), st.syms(op.operands[1])
    if operand:
        raise CompileError(f"'{op.name}': dynamic dimension {min(operand)} of the operand is "
                           f"gathered from; {WHY} and needs a static operand", op.loc)
    ivd = int(dn["index_vector_dim"])
    if ivd in idx or any(d in idx for d in dn["start_indices_batching_dims"]):
        raise CompileError(f"'{op.name}': dynamic dimension of the start indices is their index "
                           f"vector or a batching dimension; {WHY}", op.loc)
    rank = len(op.results[0].type.shape)
    batch_positions = [d for d in range(rank) if d not in dn["offset_dims"]]
    out: Dict[int, int] = {}
    for d, s in idx.items():
        k = d - (1 if d > ivd else 0)
        out[batch_positions[k]] = s
    st.set_dims(op, op.results[0], out)


#: ``fill`` of a mask on a linalg op's reduction loop (operand index None): its payload
#: yields the accumulator unchanged past the extent.
PAYLOAD = "payload"

#: ``fill`` of a mask that makes a scatter index point outside the operand (the update is
#: skipped, StableHLO spec §scatter; ireec's lowering skips such windows).
OUT_OF_BOUNDS = "out_of_bounds"


def _scatter(st: State, op: Operation) -> None:
    """``stablehlo.scatter`` with a dynamic number of updates: the update scatter dims of
    the indices and the updates (in order, unified) may carry *padded* symbols; the padding
    indices are masked to -1, outside the operand, so those updates are skipped. The
    operands, the index vector, the update windows and batching dims stay static; a mapped
    symbol cannot be scattered (every slice would write the whole operand)."""
    n = (len(op.operands) - 1) // 2
    ins, idx, upd = op.operands[:n], op.operands[n], op.operands[n + 1:]
    dn = shlo.scatter_dimension_numbers(op)
    isyms = st.syms(idx)
    usyms = [st.syms(u) for u in upd]
    if not isyms and not any(usyms):
        _unsupported(st, op)
        return
    ivd = int(dn["index_vector_dim"])
    window = set(dn["update_window_dims"])
    refused = CompileError(f"'{op.name}' with a dynamic number of updates: {WHY} and cannot "
                           f"scatter one slice's updates into the whole operand", op.loc)
    if (any(st.syms(v) for v in ins) or ivd in isyms or dn["input_batching_dims"]
            or not dn["scatter_dims_to_operand_dims"] or any(d in window for u in usyms for d in u)):
        raise refused
    idx_dims = [d for d in range(len(idx.type.shape)) if d != ivd]
    for u, us in zip(upd, usyms):
        upd_dims = [d for d in range(len(u.type.shape)) if d not in window]
        for di, du in zip(idx_dims, upd_dims):
            if (di in isyms) != (du in us):
                raise CompileError(f"'{op.name}': update scatter dimension {du} and indices dimension "
                                   f"{di} are not both dynamic; {WHY} and cannot prove them equal", op.loc)
            if di in isyms:
                st.union(isyms[di], us[du])
    # Mapped symbols are refused, unless unified with a padded one just now (then they are
    # padded too, see ireec-pad-dynamic-dims-to-bounds).
    if not st.mixed and any(not st.is_padded(s) for s in list(isyms.values())
                            + [s for u in usyms for s in u.values()]):
        raise refused
    for d, s in isyms.items():
        st.masks.append((op, n, d, s, OUT_OF_BOUNDS))
    for r in op.results:
        st.set_dims(op, r, {})


def _real_dynamic_slice(st: State, op: Operation) -> None:
    """``real_dynamic_slice(x, start, limit, strides)`` of a static ``x`` whose limit is a
    padded symbol's size from start 0 with stride 1 (JAX's ``table[:s]``): that result
    dimension carries the symbol, so its first ``s`` positions are the valid ones; other
    dimensions must be constant slices. A mapped symbol cannot size a slice."""
    if st.syms(op.operands[0]):
        _unsupported(st, op)
    start, limit, strides = (st.entries(op, v) for v in op.operands[1:4])
    out: Dict[int, int] = {}
    for d, (a, e, k) in enumerate(zip(start, limit, strides)):
        if a is None or k is None or e is None or a[1] is not None or k[1] is not None:
            raise CompileError(f"'{op.name}': the start or stride of dimension {d} is computed from a "
                               f"dynamic dimension; {WHY}", op.loc)
        if e[1] is None:
            continue
        if not st.is_padded(e[1]) or e[0] != 1 or a[0] != 0 or k[0] != 1:
            raise CompileError(f"'{op.name}': dimension {d} is sliced to a dynamic size; {WHY} and "
                               f"slices to a dimension padded to a bound only, from 0 with stride 1",
                               op.loc)
        out[d] = e[1]
    st.set_dims(op, op.results[0], out)


def _torch_index_select(st: State, op: Operation) -> None:
    """``stablehlo.torch_index_select`` (``dim``, ``batch_dims``): the result is
    ``operand[:dim] ++ index[batch_dims:] ++ operand[dim+1:]``, so a dynamic leading dim of
    the index (with ``batch_dims = 0`` and ``dim = 0``) is the result's leading dim; the
    operand must be static."""
    operand, idx = st.syms(op.operands[0]), st.syms(op.operands[1])
    dim = int(op.attributes["dim"].value)
    bd = int(getattr(op.attributes.get("batch_dims"), "value", 0))
    if operand or bd:
        raise CompileError(f"'{op.name}': a dynamic operand or batch_dims with dynamic dims; {WHY} "
                           f"and supports dynamic index dims only", op.loc)
    st.set_dims(op, op.results[0], {dim + d: s for d, s in idx.items()})


def _iota(st: State, op: Operation) -> None:
    dim = int(op.attributes["iota_dimension"].value)
    out: Dict[int, int] = {}
    if op.name == "stablehlo.dynamic_iota":
        out = _shape_entries_to_dims(st, op, st.entries(op, op.operands[0]), "output shape")
    if dim in out and not st.is_padded(out[dim]):
        raise CompileError(f"'{op.name}': iota along dynamic dimension {dim}; {WHY} and cannot "
                           f"number the elements of one", op.loc)
    st.set_dims(op, op.results[0], out)


def _tosa_batch(st: State, op: Operation) -> None:
    """TOSA ops with a leading batch (``matmul``: both operands' dim 0, unified; convolutions
    and pools: the input's dim 0): only that dimension may be dynamic; it stays the result's
    dim 0."""
    batched = op.operands[:2] if op.name == "tosa.matmul" else op.operands[:1]
    out: Dict[int, int] = {}
    for i, v in enumerate(op.operands):
        for d, s in st.syms(v).items():
            if v not in batched or d != 0:
                raise CompileError(f"'{op.name}': dynamic dimension {d} of operand #{i} is not its "
                                   f"batch; {WHY} and supports a dynamic batch only", op.loc)
            out[0] = st.union(out[0], s) if 0 in out else s
    if op.name == "tosa.matmul" and out and not all(0 in st.syms(v) for v in batched):
        raise CompileError(f"'{op.name}': the batch is dynamic on one operand only; {WHY} and "
                           f"cannot prove them equal", op.loc)
    st.set_dims(op, op.results[0], out)


def _tosa_reduce(st: State, op: Operation) -> None:
    """``tosa.reduce_*``: the reduced ``axis`` must not be dynamic (the rank is kept)."""
    axis = int(op.attributes["axis"].value)
    src = st.syms(op.operands[0])
    if axis in src:
        raise CompileError(f"'{op.name}': dynamic dimension {axis} of this operand is reduced; "
                           f"{WHY} and cannot reduce one", op.loc)
    st.set_dims(op, op.results[0], src)


def _get_dimension_size(st: State, op: Operation) -> None:
    d = int(op.attributes["dimension"].value)
    syms = st.syms(op.operands[0])
    if d in syms:
        st.shape[op.results[0]] = [(1, syms[d])]
    else:
        size = op.operands[0].type.shape[d]
        st.shape[op.results[0]] = [(size, None) if size is not None else None]


def _tensor_dim(st: State, op: Operation) -> None:
    idx = st.entries(op, op.operands[1])[0]
    syms = st.syms(op.operands[0])
    if idx is None or idx[1] is not None:
        if syms:
            raise CompileError(f"'{op.name}': a non-constant dimension index on a tensor with "
                               f"dynamic dimensions; {WHY}", op.loc)
        return
    d = idx[0]
    if d in syms:
        st.shape[op.results[0]] = [(1, syms[d])]
    elif syms:
        size = op.operands[0].type.shape[d]
        st.shape[op.results[0]] = [(size, None) if size is not None else None]


def _shape_passthrough(st: State, op: Operation) -> None:
    """Reshapes and conversions of shape values keep their entries."""
    if op.operands[0] in st.shape:
        st.shape[op.results[0]] = list(st.shape[op.operands[0]])
    elif st.syms(op.operands[0]):
        # a tensor with dynamic dims (not a shape value)
        if op.name in ("stablehlo.reshape",):
            _reshape(st, op)
        elif op.name == "stablehlo.convert":
            _elementwise(st, op)
        else:
            _unsupported(st, op)


def _shape_concatenate(st: State, op: Operation) -> None:
    if any(v in st.shape for v in op.operands) and len(op.results[0].type.shape) == 1:
        entries: List[Entry] = []
        for v in op.operands:
            entries += st.entries(op, v)
        st.shape[op.results[0]] = entries
    else:
        _concatenate(st, op)


def _shape_arith(st: State, op: Operation) -> None:
    """Multiplication by a constant keeps ``k * symbol``; other arithmetic on shape values
    gives entries the pass does not follow (refused where a shape operand reads them)."""
    if not any(v in st.shape for v in op.operands):
        if any(st.syms(v) for v in op.operands):
            _elementwise(st, op)
        return
    ea = st.entries(op, op.operands[0])
    eb = st.entries(op, op.operands[1]) if len(op.operands) > 1 else ea
    out: List[Entry] = []
    mul = op.name in ("stablehlo.multiply", "arith.muli")
    for a, b in zip(ea, eb if len(eb) == len(ea) else eb * len(ea)):
        if a is None or b is None:
            out.append(None)
        elif mul and (a[1] is None or b[1] is None):
            out.append((a[0] * b[0], a[1] if a[1] is not None else b[1]))
        elif a[1] is None and b[1] is None and op.name in ("stablehlo.add", "arith.addi"):
            out.append((a[0] + b[0], None))
        else:
            out.append(None)
    st.shape[op.results[0]] = out


def _compare(st: State, op: Operation) -> None:
    """A compare of shape values is a shape predicate (for shape assertions)."""
    if any(v in st.shape for v in op.operands):
        st.shape[op.results[0]] = [None]
        st.predicates[op.results[0]] = op
    else:
        _elementwise(st, op)


_ASSERT_DIRECTIONS = {"GE": ">=", "GT": ">", "LE": "<=", "LT": "<", "EQ": "==", "NE": "!="}


def _custom_call(st: State, op: Operation) -> None:
    """``@shape_assertion(pred, ...)``: ``compare(1 * symbol, constant)`` becomes an entry
    check; other predicates are dropped (see the module docstring)."""
    target = op.attributes.get("call_target_name")
    if target is None or target.value != "shape_assertion":
        _unsupported(st, op)
        return
    cmp = st.predicates.get(op.operands[0]) if op.operands else None
    if cmp is not None:
        direction = shlo.enum_value(cmp.attributes.get("comparison_direction"))
        a, b = (st.entries(cmp, v)[0] for v in cmp.operands)
        if a and b and a[0] == 1 and a[1] is not None and b[1] is None and direction in _ASSERT_DIRECTIONS:
            st.checks.append((a[1], _ASSERT_DIRECTIONS[direction], b[0]))
    st.assertions.append(op)


def _tensor_empty(st: State, op: Operation) -> None:
    shape = op.results[0].type.shape
    dyn = [d for d in range(len(shape)) if shape[d] is None]
    entries = [st.entries(op, v)[0] for v in op.operands]
    out: Dict[int, int] = {}
    for d, v, e in zip(dyn, op.operands, entries):
        if v not in st.shape:
            continue
        got = _shape_entries_to_dims(st, op, [e], "sizes")
        if 0 in got:
            out[d] = got[0]
    if out:
        st.set_dims(op, op.results[0], out)


def _tensor_cast(st: State, op: Operation) -> None:
    st.set_dims(op, op.results[0], st.syms(op.operands[0]))


def _collapse_expand(st: State, op: Operation) -> None:
    """Each dynamic dim sits alone in its reassociation group, so it stays leading."""
    groups = reassociation(op)
    src = st.syms(op.operands[0])
    collapse = op.name == "tensor.collapse_shape"
    out: Dict[int, int] = {}
    for gi, g in enumerate(groups):
        if collapse:
            hit = [d for d in g if d in src]
            if hit and len(g) != 1:
                raise CompileError(f"'{op.name}': dynamic dimension {hit[0]} is collapsed with "
                                   f"others; {WHY} and keeps it alone", op.loc)
            if hit:
                out[gi] = src[hit[0]]
        elif gi in src:
            if len(g) != 1:
                raise CompileError(f"'{op.name}': dynamic dimension {gi} is expanded into several; "
                                   f"{WHY} and keeps it alone", op.loc)
            out[g[0]] = src[gi]
    st.set_dims(op, op.results[0], out)


def _expr_dims(e: AffineExpr) -> List[int]:
    if isinstance(e, AffineDim):
        return [e.pos]
    if isinstance(e, AffineBinary):
        return _expr_dims(e.lhs) + _expr_dims(e.rhs)
    return []


def _structured(st: State, op: Operation) -> None:
    """linalg structured ops: a dynamic operand dim must be indexed by a plain parallel loop
    dim; the result dims indexed by that loop carry its symbol."""
    if not any(st.syms(v) for v in op.operands):
        return
    maps = L.indexing_maps(op)
    its = L.iterator_types(op)
    loop: Dict[int, int] = {}
    padded_loops = {m.results[d].pos for v, m in zip(op.operands, maps) for d, s in st.syms(v).items()
                    if isinstance(m.results[d], AffineDim) and its[m.results[d].pos] == "reduction"
                    and st.is_padded(s)}
    for v, m in zip(op.operands, maps):
        for d, s in st.syms(v).items():
            e = m.results[d]
            if isinstance(e, AffineDim) and e.pos in padded_loops:
                if e.pos not in loop:  # the payload keeps its accumulator past the extent
                    st.masks.append((op, None, e.pos, s, PAYLOAD))
                loop[e.pos] = st.union(loop[e.pos], s) if e.pos in loop else s
                continue
            if not isinstance(e, AffineDim) or its[e.pos] != "parallel":
                raise CompileError(f"'{op.name}': dynamic dimension {d} of operand "
                                   f"#{op.operands.index(v)} is not indexed by a parallel loop alone "
                                   f"({e}); {WHY} and cannot reduce or window one", op.loc)
            loop[e.pos] = st.union(loop[e.pos], s) if e.pos in loop else s
    for v, m in zip(op.operands, maps):
        for k, e in enumerate(m.results):
            used = [x for x in _expr_dims(e) if x in loop]
            if used and (not isinstance(e, AffineDim)):
                raise CompileError(f"'{op.name}': loop d{used[0]} runs over a dynamic dimension and "
                                   f"also indexes operand #{op.operands.index(v)} through {e}; {WHY}",
                                   op.loc)
            if used and k not in st.syms(v):
                raise CompileError(f"'{op.name}': dimension {k} of operand #{op.operands.index(v)} "
                                   f"({v.type}) meets a dynamic argument dimension it does not follow; "
                                   f"{WHY}", op.loc)
    outs = L.outputs(op)
    for r, init in zip(op.results, outs):
        m = maps[op.operands.index(init)]
        out = {k: loop[e.pos] for k, e in enumerate(m.results) if isinstance(e, AffineDim) and e.pos in loop}
        st.set_dims(op, r, out)


def _return(st: State, op: Operation) -> None:
    """Results may carry dynamic dims (map_function records them); shape values returned as
    data are refused before (:func:`_apply`)."""


def _unsupported(st: State, op: Operation) -> None:
    """The default rule: an op without a rule may not touch a dynamic dim or a shape value."""
    for i, v in enumerate(op.operands):
        syms = st.syms(v)
        if syms:
            raise CompileError(f"'{op.name}' on dynamic dimension {min(syms)} of operand #{i} "
                               f"({v.type}) is not supported; {WHY} and knows no rule for this op",
                               op.loc)
        if v in st.shape and not st.padded_scalar(v):
            raise CompileError(f"'{op.name}': operand #{i} is computed from a dynamic dimension and "
                               f"used as data; {WHY} and shape values may only give shapes", op.loc)
    for nested in (o for r in op.regions for b in r.blocks for o in b.ops):
        for v in nested.operands:
            if st.syms(v) or v in st.shape:
                raise CompileError(f"'{op.name}' uses a value with dynamic dimensions inside its "
                                   f"region; {WHY}", nested.loc)


RULES: Dict[str, Rule] = {f"stablehlo.{n}": _elementwise
                          for n in shlo.UNARY_ELEMENTWISE + shlo.BINARY_ELEMENTWISE}
RULES.update({
    "stablehlo.compare": _compare,
    "stablehlo.select": _elementwise,
    "stablehlo.clamp": _elementwise,
    "stablehlo.is_finite": _elementwise,
    "stablehlo.convert": _shape_passthrough,
    "stablehlo.reshape": _shape_passthrough,
    "stablehlo.multiply": _shape_arith,
    "stablehlo.add": _shape_arith,
    "stablehlo.concatenate": _shape_concatenate,
    "stablehlo.broadcast_in_dim": _broadcast_in_dim,
    "stablehlo.dynamic_broadcast_in_dim": _broadcast_in_dim,
    "stablehlo.dynamic_reshape": _reshape,
    "stablehlo.transpose": _transpose,
    "stablehlo.dot_general": _dot_general,
    "stablehlo.dot": _dot_general,
    "stablehlo.convolution": _convolution,
    "stablehlo.reduce": _reduce,
    "stablehlo.reduce_window": _reduce_window,
    "stablehlo.pad": _pad,
    "stablehlo.gather": _gather,
    "stablehlo.dynamic_gather": _gather,
    "stablehlo.torch_index_select": _torch_index_select,
    "stablehlo.real_dynamic_slice": _real_dynamic_slice,
    "stablehlo.scatter": _scatter,
    "stablehlo.iota": _iota,
    "stablehlo.dynamic_iota": _iota,
    "stablehlo.get_dimension_size": _get_dimension_size,
    "stablehlo.custom_call": _custom_call,
    "tensor.dim": _tensor_dim,
    "tensor.empty": _tensor_empty,
    "tensor.cast": _tensor_cast,
    "tensor.collapse_shape": _collapse_expand,
    "tensor.expand_shape": _collapse_expand,
    "arith.index_cast": _shape_passthrough,
    "arith.index_castui": _shape_passthrough,
    "arith.muli": _shape_arith,
    "arith.addi": _shape_arith,
    "func.return": _return,
})
RULES.update({name: _structured for name in L.STRUCTURED_OPS})
RULES.update({f"tosa.{n}": _tosa_batch for n in (
    "matmul", "conv2d", "conv3d", "depthwise_conv2d", "transpose_conv2d", "avg_pool2d", "max_pool2d")})
RULES.update({f"tosa.reduce_{n}": _tosa_reduce for n in (
    "sum", "max", "min", "product", "all", "any")})


#: Ops that may read shape values, and at which operand positions (None: all).
SHAPE_READERS: Dict[str, Optional[Tuple[int, ...]]] = {
    "stablehlo.dynamic_broadcast_in_dim": (1,), "stablehlo.dynamic_reshape": (1,),
    "stablehlo.dynamic_iota": (0,), "stablehlo.real_dynamic_slice": (1, 2, 3),
    "stablehlo.custom_call": None, "stablehlo.compare": None,
    "stablehlo.convert": None, "stablehlo.reshape": None, "stablehlo.multiply": None,
    "stablehlo.add": None, "stablehlo.concatenate": None, "tensor.empty": None,
    "tensor.expand_shape": None, "tensor.dim": (1,), "arith.index_cast": None,
    "arith.index_castui": None, "arith.muli": None, "arith.addi": None,
}


def _apply(st: State, op: Operation) -> None:
    """Run ``op``'s rule after refusing shape values in data operands (a scalar of a padded
    symbol is read at run time instead: ``data_uses``)."""
    allowed = SHAPE_READERS.get(op.name, ())
    for i, v in enumerate(op.operands):
        if v in st.shape and allowed is not None and i not in allowed:
            if st.padded_scalar(v):
                st.data_uses.append((op, i))
                continue
            raise CompileError(f"'{op.name}': operand #{i} is computed from a dynamic dimension and "
                               f"used as data; {WHY} and shape values may only give shapes", op.loc)
    _rule(op)(st, op)
    if any(st.syms(v) for v in op.operands):
        for r in op.results:
            shape = getattr(r.type, "shape", None) or ()
            for d, x in enumerate(shape):
                if x is None and d not in st.dims.get(r, {}):
                    raise CompileError(f"'{op.name}': dimension {d} of this result is dynamic but is "
                                       f"not an argument's dynamic dimension; {WHY} and cannot size it",
                                       op.loc)


def _rule(op: Operation) -> Rule:
    rule = RULES.get(op.name)
    if rule is not None:
        return rule
    if has_trait(op, "elementwise") and op.results:
        return _elementwise
    return _unsupported


def shape_constant(b: Builder, v: Value, entries: List[Entry]) -> Optional[Value]:
    """A constant of ``v``'s type with every symbol at extent 1; None if not all known."""
    if any(e is None or not isinstance(e[0], int) for e in entries):
        return None
    vals = [e[0] for e in entries]
    t = v.type
    if isinstance(t, T.TensorType):
        arr = np.array(vals).reshape(t.shape)
        return b.create("stablehlo.constant", [], [t], {"value": DenseElementsAttr(arr, t)}).result
    return b.create("arith.constant", [], [t], {"value": IntegerAttr(vals[0], t)}).result


SHAPE_OPERANDS = {"stablehlo.dynamic_broadcast_in_dim": (1,), "stablehlo.dynamic_reshape": (1,),
                  "stablehlo.dynamic_iota": (0,), "stablehlo.real_dynamic_slice": (1, 2, 3)}


def analyse(f: Operation, padded: FrozenSet[Tuple[int, int]] = frozenset()
            ) -> Tuple[State, List[Tuple[int, int, int]]]:
    """The facts of public function ``f`` (one symbol per dynamic argument dimension,
    ``arg_dims`` as (argument, dimension, symbol)); ``padded``: the argument dimensions
    whose symbols are padded to a bound rather than mapped. CompileError at the op that
    uses a mapped dimension in a way a slice program cannot compute."""
    st = State(f, padded)
    arg_dims: List[Tuple[int, int, int]] = []
    for i, a in enumerate(f.body.args):
        shape = getattr(a.type, "shape", None)
        if not isinstance(a.type, T.TensorType) or shape is None:
            continue
        dims = {d: st.new_symbol(i, d) for d in range(len(shape)) if shape[d] is None}
        for d, s in dims.items():
            arg_dims.append((i, d, s))
        mapped = [d for d in dims if (i, d) not in padded]
        if mapped and sorted(mapped) != list(range(len(mapped))):
            raise CompileError(f"public function argument #{i} ({a.type}): dynamic dimension "
                               f"{max(mapped)} follows a static one; {WHY} and needs the dynamic "
                               f"dimensions leading", f.loc)
        if dims:
            st.dims[a] = dims
    if not arg_dims:
        return st, arg_dims
    try:
        for block in f.regions[0].blocks:
            for op in list(block.ops):
                _apply(st, op)
        _check_distinct_slices(st)
    except CompileError as e:
        e.partial_state = st  # what was learnt before the error (shape assertions come first)
        raise
    return st, arg_dims


def _check_distinct_slices(st: State) -> None:
    """A slice is one position of each mapped symbol, so no tensor may carry one mapped
    symbol in two dimensions (``x @ x^T`` over a dynamic row count): its slices would be
    only the diagonal. CompileError at the op defining such a value."""
    for v, dims in st.dims.items():
        seen: Dict[int, int] = {}
        for d in sorted(dims):
            r = st.find(dims[d])
            if st.is_padded(r):
                continue
            if r in seen:
                loc = v.owner.loc if isinstance(v.owner, Operation) else st.f.loc
                what = f"'{v.owner.name}'" if isinstance(v.owner, Operation) else "an argument"
                raise CompileError(f"{what}: dimensions {seen[r]} and {d} of this result ({v.type}) "
                                   f"follow the same dynamic dimension; {WHY}, one position of it "
                                   f"per slice, and cannot pair every position with every other",
                                   loc)
            seen[r] = d


