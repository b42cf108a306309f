"""stablehlo gather / dynamic_gather / scatter verifiers (spec constraints C1..C25).

:func:`verify_gather` and :func:`verify_scatter` check the dimension numbers against the
operand, index and update ranks and, where the shapes are static, the result shape; they
raise the located error of :func:`ireec.ir.verifier.op_error`.
"""
from __future__ import annotations

from typing import Dict, List, Optional, Sequence

from ...ir import types as T
from ...ir import verifier as V
from ...ir.attributes import DenseElementsAttr
from ...ir.core import Operation
from .attributes import (GATHER_FIELDS, SCATTER_FIELDS, gather_dimension_numbers,
                         scatter_dimension_numbers)
from .verifiers import _dims_str, _int_list_attr, _tensor_shape, _verify_dimension_numbers


def _dim_fields(op, attr: str, dn: Dict[str, object], lists: Sequence[str]) -> None:
    """The list fields of a gather/scatter struct hold integers, ``index_vector_dim`` is one
    integer (``offset_dims = 2`` or ``index_vector_dim = [1]`` parse but mean nothing)."""
    for f in lists:
        if not isinstance(dn[f], list):
            raise V.op_error(op, f"attribute '{attr}' field '{f}' must be a list of integers, "
                                 f"got {dn[f]}")
    if not isinstance(dn["index_vector_dim"], int):
        raise V.op_error(op, f"attribute '{attr}' field 'index_vector_dim' must be an integer, "
                             f"got {dn['index_vector_dim']}")


def _unique(op, dims: List[int], what: str, rule: str) -> None:
    """No dimension of ``dims`` repeats (spec constraint ``rule``)."""
    if len(set(dims)) != len(dims):
        raise V.op_error(op, f"{what} {dims} has repeated dimensions ({rule})")


def _sorted(op, dims: List[int], what: str, rule: str) -> None:
    """``dims`` is in increasing order (spec constraint ``rule``)."""
    if dims != sorted(dims):
        raise V.op_error(op, f"{what} {dims} is not sorted ({rule})")


def _in_rank(op, dims: List[int], rank: Optional[int], what: str, of: str, rule: str) -> None:
    """Every dimension of ``dims`` is in [0, rank) of ``of`` (unknown rank: unchecked)."""
    if rank is None:
        return
    for d in dims:
        if not 0 <= d < rank:
            raise V.op_error(op, f"{what} element {d} is out of range [0, {rank}), the rank of "
                                 f"{of} ({rule})")


def _index_vector(op, ivd: int, idx: Optional[tuple], dims_to_operand: List[int],
                  batching: List[int], names: Sequence[str], rules: Sequence[str]) -> None:
    """``index_vector_dim`` within the indices' rank (one past it: scalar indices), the
    index vector as long as the dims it maps, and not a batching dimension."""
    map_name, batch_name, idx_name = names
    r_range, r_size, r_batch = rules
    if idx is None:
        return
    if not 0 <= ivd <= len(idx):
        raise V.op_error(op, f"index_vector_dim {ivd} is out of range [0, {len(idx)}], the rank of "
                             f"{idx_name} ({r_range})")
    n = idx[ivd] if ivd < len(idx) else 1
    if n is not None and len(dims_to_operand) != n:
        raise V.op_error(op, f"{map_name} has length {len(dims_to_operand)}, but the index "
                             f"vector (dimension {ivd} of {idx_name}) has size {n} ({r_size})")
    if ivd in batching:
        raise V.op_error(op, f"index_vector_dim {ivd} is also in {batch_name} {batching} ({r_batch})")


def _batching(op, obatch: List[int], ibatch: List[int], src: Optional[tuple], idx: Optional[tuple],
              names: Sequence[str], rules: Sequence[str]) -> None:
    """Operand and indices batching dimensions: as many on both sides, of equal sizes."""
    o_name, i_name, src_name, idx_name = names
    r_count, r_dims = rules
    if len(obatch) != len(ibatch):
        raise V.op_error(op, f"{o_name} {obatch} and {i_name} {ibatch} differ in length ({r_count})")
    if src is None or idx is None:
        return
    for a, b in zip(obatch, ibatch):
        if not V.compatible_dims(src[a], idx[b]):
            raise V.op_error(op, f"dimension {a} of {src_name} has size {src[a]}, but batching "
                                 f"dimension {b} of {idx_name} has size {idx[b]} ({r_dims})")


def _int_tensor(op, v, what: str) -> Optional[tuple]:
    """The shape of ``v``, a tensor of integers (not of booleans: ``i1`` is StableHLO's
    boolean type)."""
    shape = _tensor_shape(op, v, what)
    et = v.type.element_type
    boolean = isinstance(et, T.IntegerType) and et.width == 1
    if not isinstance(et, (T.IntegerType, T.IndexType)) or boolean:
        raise V.op_error(op, f"{what} must be a tensor of integers, but got {V.type_str(v.type)}")
    return shape


def _constant_ints(v) -> Optional[List[int]]:
    """The integers of ``v`` when a constant op defines it (``dynamic_gather``'s
    slice sizes), else None."""
    owner = v.owner
    if not isinstance(owner, Operation) or owner.name not in ("stablehlo.constant", "arith.constant"):
        return None
    a = owner.attributes.get("value")
    if not isinstance(a, DenseElementsAttr) or not isinstance(
            a.type.element_type, (T.IntegerType, T.IndexType)):
        return None
    return a.int_list()


def verify_gather(op: Operation) -> None:
    """``stablehlo.gather`` / ``dynamic_gather``: the dimension numbers, slice sizes and the
    operand, start indices and result shapes agree (spec: gather C1-C23). Each error names
    its constraint. ``dynamic_gather``'s slice sizes are checked when a constant gives them.
    Unranked tensors and dynamic dimensions check what they can."""
    dynamic = op.name == "stablehlo.dynamic_gather"
    V.num_operands(3 if dynamic else 2)(op)
    V.num_results(1)(op)
    _verify_dimension_numbers("dimension_numbers", "gather")(op)
    dn = gather_dimension_numbers(op)
    _dim_fields(op, "dimension_numbers", dn, GATHER_FIELDS[:-1])
    offset, collapsed = dn["offset_dims"], dn["collapsed_slice_dims"]
    obatch, ibatch = dn["operand_batching_dims"], dn["start_indices_batching_dims"]
    start_map, ivd = dn["start_index_map"], dn["index_vector_dim"]
    src = _tensor_shape(op, op.operands[0], "operand")
    idx = _int_tensor(op, op.operands[1], "start_indices")
    res = _tensor_shape(op, op.results[0], "result")
    if dynamic:
        _int_tensor(op, op.operands[2], "slice_sizes")
        sizes = _constant_ints(op.operands[2])
    else:
        sizes = _int_list_attr(op, "slice_sizes")
    rank = None if src is None else len(src)
    if rank is not None and rank != len(offset) + len(collapsed) + len(obatch):
        raise V.op_error(op, f"operand rank {rank} is not the number of offset_dims ({len(offset)}) "
                             f"+ collapsed_slice_dims ({len(collapsed)}) + operand_batching_dims "
                             f"({len(obatch)}) (C1)")
    _index_vector(op, ivd, idx, start_map, ibatch,
                  ("start_index_map", "start_indices_batching_dims", "start_indices"),
                  ("C2", "C3", "C15"))
    _unique(op, offset, "offset_dims", "C4")
    _sorted(op, offset, "offset_dims", "C4")
    _in_rank(op, offset, None if res is None else len(res), "offset_dims", "the result", "C5")
    _unique(op, collapsed + obatch, "collapsed_slice_dims ++ operand_batching_dims", "C6")
    _sorted(op, collapsed, "collapsed_slice_dims", "C7")
    _in_rank(op, collapsed, rank, "collapsed_slice_dims", "the operand", "C8")
    _sorted(op, obatch, "operand_batching_dims", "C10")
    _in_rank(op, obatch, rank, "operand_batching_dims", "the operand", "C11")
    _unique(op, ibatch, "start_indices_batching_dims", "C13")
    _in_rank(op, ibatch, None if idx is None else len(idx), "start_indices_batching_dims",
             "start_indices", "C14")
    _batching(op, obatch, ibatch, src, idx, ("operand_batching_dims", "start_indices_batching_dims",
                                             "the operand", "start_indices"), ("C16", "C17"))
    _unique(op, start_map + obatch, "start_index_map ++ operand_batching_dims", "C18")
    _in_rank(op, start_map, rank, "start_index_map", "the operand", "C19")
    if sizes is None:
        return
    if rank is not None and len(sizes) != rank:
        raise V.op_error(op, f"slice_sizes has length {len(sizes)}, but the operand has rank "
                             f"{rank} (C20)")
    if src is not None:
        for d, (k, n) in enumerate(zip(sizes, src)):
            if k < 0 or (n is not None and k > n):
                raise V.op_error(op, f"slice size {k} of dimension {d} is not within [0, {n}], "
                                     f"the operand's size (C21)")
    for dims, name, rule in ((collapsed, "collapsed_slice_dims", "C9"),
                             (obatch, "operand_batching_dims", "C12")):
        for d in dims:
            if 0 <= d < len(sizes) and sizes[d] > 1:
                raise V.op_error(op, f"slice size {sizes[d]} of {name} element {d} is larger "
                                     f"than 1 ({rule})")
    if idx is None or res is None or len(sizes) != len(offset) + len(collapsed) + len(obatch):
        return
    batch = [n for d, n in enumerate(idx) if d != ivd]
    window = [n for d, n in enumerate(sizes) if d not in collapsed and d not in obatch]
    if len(window) != len(offset):  # an unranked operand: C8/C11 could not be checked
        return
    if len(res) != len(batch) + len(window):
        raise V.op_error(op, f"result rank {len(res)} is not the {len(batch)} batch dimensions of "
                             f"start_indices + the {len(window)} offset_dims (C22)")
    inferred, b_it, w_it = [], iter(batch), iter(window)
    for d in range(len(res)):
        inferred.append(next(w_it) if d in offset else next(b_it))
    if not V.compatible_shapes(tuple(inferred), res):
        raise V.op_error(op, f"inferred shape '{_dims_str(inferred)}' is incompatible with return "
                             f"type of operation {V.type_str(op.results[0].type)} (C22)")
    if op.operands[0].type.element_type != op.results[0].type.element_type:
        raise V.op_error(op, f"result element type {op.results[0].type.element_type} is not the "
                             f"operand's {op.operands[0].type.element_type} (C23)")


def verify_scatter(op: Operation) -> None:
    """``stablehlo.scatter``: N inputs, the scatter indices and N updates whose shapes agree
    with the dimension numbers; an update computation of 2N rank-0 tensor arguments; results
    shaped as the inputs (spec: scatter C1-C25). Each error names its constraint."""
    n_ops = len(op.operands)
    if n_ops < 3 or n_ops % 2 == 0:
        raise V.op_error(op, f"expects N inputs, the scatter indices and N updates (N > 0), got "
                             f"{n_ops} operands (C5)")
    n = (n_ops - 1) // 2
    _verify_dimension_numbers("scatter_dimension_numbers", "scatter")(op)
    dn = scatter_dimension_numbers(op)
    _dim_fields(op, "scatter_dimension_numbers", dn, SCATTER_FIELDS[:-1])
    uwd, inserted = dn["update_window_dims"], dn["inserted_window_dims"]
    ibatch, sbatch = dn["input_batching_dims"], dn["scatter_indices_batching_dims"]
    to_operand, ivd = dn["scatter_dims_to_operand_dims"], dn["index_vector_dim"]
    inputs, updates = op.operands[:n], op.operands[n + 1:]
    src = _tensor_shape(op, inputs[0], "input #0")
    for i, v in enumerate(inputs[1:], 1):
        if not V.compatible_shapes(_tensor_shape(op, v, f"input #{i}"), src):
            raise V.op_error(op, f"input #{i} does not have the shape of input #0 (C1)")
    idx = _int_tensor(op, op.operands[n], "scatter_indices")
    upd = _tensor_shape(op, updates[0], "update #0")
    for i, v in enumerate(updates[1:], 1):
        if not V.compatible_shapes(_tensor_shape(op, v, f"update #{i}"), upd):
            raise V.op_error(op, f"update #{i} does not have the shape of update #0 (C3)")
    for i, (x, u) in enumerate(zip(inputs, updates)):
        if x.type.element_type != u.type.element_type:
            raise V.op_error(op, f"update #{i} has element type {u.type.element_type}, input #{i} "
                                 f"has {x.type.element_type} (C6)")
    rank = None if src is None else len(src)
    if rank is not None and rank != len(uwd) + len(inserted) + len(ibatch):
        raise V.op_error(op, f"input rank {rank} is not the number of update_window_dims "
                             f"({len(uwd)}) + inserted_window_dims ({len(inserted)}) + "
                             f"input_batching_dims ({len(ibatch)}) (C2)")
    _unique(op, uwd, "update_window_dims", "C7")
    _sorted(op, uwd, "update_window_dims", "C7")
    _in_rank(op, uwd, None if upd is None else len(upd), "update_window_dims", "the updates", "C8")
    _unique(op, inserted + ibatch, "inserted_window_dims ++ input_batching_dims", "C9")
    _sorted(op, inserted, "inserted_window_dims", "C10")
    _in_rank(op, inserted, rank, "inserted_window_dims", "the inputs", "C11")
    _sorted(op, ibatch, "input_batching_dims", "C12")
    _in_rank(op, ibatch, rank, "input_batching_dims", "the inputs", "C13")
    _unique(op, sbatch, "scatter_indices_batching_dims", "C14")
    _in_rank(op, sbatch, None if idx is None else len(idx), "scatter_indices_batching_dims",
             "scatter_indices", "C15")
    _index_vector(op, ivd, idx, to_operand, sbatch,
                  ("scatter_dims_to_operand_dims", "scatter_indices_batching_dims",
                   "scatter_indices"), ("C22", "C19", "C16"))
    _batching(op, ibatch, sbatch, src, idx, ("input_batching_dims", "scatter_indices_batching_dims",
                                             "the inputs", "scatter_indices"), ("C17", "C18"))
    _unique(op, to_operand + ibatch, "scatter_dims_to_operand_dims ++ input_batching_dims", "C20")
    _in_rank(op, to_operand, rank, "scatter_dims_to_operand_dims", "the inputs", "C21")
    if src is not None and idx is not None and upd is not None:
        scatter_sizes = [s for d, s in enumerate(idx) if d != ivd]
        window_bounds = [s for d, s in enumerate(src) if d not in inserted and d not in ibatch]
        if len(upd) != len(scatter_sizes) + len(uwd):
            raise V.op_error(op, f"updates rank {len(upd)} is not the {len(scatter_sizes)} scatter "
                                 f"dimensions of scatter_indices + the {len(uwd)} "
                                 f"update_window_dims (C4)")
        s_it = iter(scatter_sizes)
        for d, u in enumerate(upd):
            if d in uwd:
                bound = window_bounds[uwd.index(d)]
                if u is not None and bound is not None and u > bound:
                    raise V.op_error(op, f"update window dimension {d} has size {u}, more than the "
                                         f"{bound} of the inputs' matching dimension (C4)")
            else:
                s = next(s_it)
                if not V.compatible_dims(u, s):
                    raise V.op_error(op, f"update scatter dimension {d} has size {u}, but "
                                         f"scatter_indices' matching dimension has {s} (C4)")
    _verify_update_computation(op, inputs)


def _verify_update_computation(op: Operation, inputs) -> None:
    """Scatter C23-C25: the region takes 2N rank-0 tensors and the results have the inputs'
    shapes and the region's element types."""
    n = len(inputs)
    if len(op.regions) != 1 or not op.regions[0].blocks:
        raise V.op_error(op, "expects an update computation region (C23)")
    args = op.regions[0].blocks[0].args
    if len(args) != 2 * n or any(not isinstance(a.type, T.TensorType) or a.type.shape != ()
                                 for a in args):
        raise V.op_error(op, f"update computation must take {2 * n} rank-0 tensors, got "
                             f"({', '.join(str(a.type) for a in args)}) (C23)")
    if len(op.results) != n:
        raise V.op_error(op, f"expects {n} results, got {len(op.results)} (C24)")
    for i, (x, r) in enumerate(zip(inputs, op.results)):
        if not V.compatible_shapes(V.shape_of(r.type), V.shape_of(x.type)):
            raise V.op_error(op, f"result #{i} {V.type_str(r.type)} does not have the shape of "
                                 f"input #{i} {V.type_str(x.type)} (C24)")
        if T.element_type(r.type) != args[i].type.element_type:
            raise V.op_error(op, f"result #{i} has element type {T.element_type(r.type)}, the "
                                 f"update computation's is {args[i].type.element_type} (C25)")
