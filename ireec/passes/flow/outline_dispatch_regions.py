"""Outline each ``flow.dispatch.region`` into a ``flow.executable`` called by ``flow.dispatch``.

Mirrors IREE's ``OutlineDispatchRegionsPass``: the executable ``@<fn>_dispatch_<n>`` holds one
``flow.executable.export`` and a ``builtin.module`` with a function over
``!flow.dispatch.tensor`` bindings (captured tensors readonly, results writeonly) that
loads its inputs with ``flow.dispatch.tensor.load`` and stores results with
``flow.dispatch.tensor.store``. Names follow IREE's ``AnnotateDispatches``:
``<fn>_dispatch_<n>_<root>_<loop ranges>_<element type>`` (e.g.
``matmul_static_dispatch_0_matmul_128x128x128_f32``).
"""
from __future__ import annotations

from typing import Dict, List

from ...dialects.func import func_name
from ...ir import types as T
from ...ir.attributes import DenseArrayAttr, StringAttr, SymbolRefAttr, TypeAttr
from ...ir.core import Block, Builder, Operation, Region, Value, make_module
from ..pass_base import Pass, PassContext, defined_functions, register_pass
from .form_dispatch_regions import captured_values


def _elem_suffix(t: T.Type) -> str:
    et = T.element_type(t)
    return str(et)


def dispatch_description(root: Operation) -> str:
    """IREE-style description of a dispatch from its root op (see AnnotateDispatches.cpp)."""
    from ..hal.convert_linalg_to_loops import generic_loop_ranges

    name = root.name.split(".", 1)[1]
    out_t = root.results[0].type if root.results else root.operands[-1].type
    et = _elem_suffix(out_t)
    if root.name in ("linalg.matmul", "linalg.batch_matmul"):
        a, bm = root.operands[0].type, root.operands[1].type
        dims = list(a.shape[:-1]) + [bm.shape[-1], a.shape[-1]]
        return f"{name}_{'x'.join(str(d) for d in dims)}_{et}"
    if root.name == "linalg.generic":
        ranges = generic_loop_ranges(root)
        iters = [str(a) for a in root.attributes["iterator_types"].value]
        kind = "reduction" if any("reduction" in i for i in iters) else "elementwise"
        return f"{kind}_{'x'.join(str(d) for d in ranges)}_{et}" if ranges else kind
    shape = list(getattr(out_t, "shape", ()) or ())
    return f"{name}_{'x'.join(str(d) for d in shape)}_{et}" if shape else name


def root_op(ops) -> Operation:
    """The op a dispatch is named after, as IREE's AnnotateDispatches ranks them:
    contractions/convolutions/pooling first, then reductions, then other linalg ops, then
    tensor ops; the first of the best rank (fills and clonable producers never win)."""
    from ..common.distribution import is_contraction_like
    from ...dialects import linalg as L

    def rank(op: Operation) -> int:
        if op.name in ("flow.return", "tensor.empty", "arith.constant", "func.return"):
            return -1
        if op.name == "linalg.fill":
            return 0
        if is_contraction_like(op):
            return 4
        if L.is_linalg_structured(op):
            try:
                return 3 if any(i == L.REDUCTION for i in L.iterator_types(op)) else 2
            except (ValueError, KeyError):
                return 3
        return 1

    ops = list(ops)
    best = max(rank(o) for o in ops)
    return next(o for o in ops if rank(o) == best)


def _root_of(region_op: Operation) -> Operation:
    return root_op(region_op.body.ops)


@register_pass
class OutlineDispatchRegionsPass(Pass):
    name = "iree-flow-outline-dispatch-regions"

    def run(self, module: Operation, ctx: PassContext) -> None:
        for f in defined_functions(module):
            n = 0
            for op in list(f.walk()):
                if op.name == "flow.dispatch.region":
                    exe = self.outline(op, func_name(f), n)
                    module.body.insert(module.body.ops.index(f), exe)
                    n += 1

    def outline(self, region_op: Operation, fn: str, n: int) -> Operation:
        root = _root_of(region_op)
        exe_name = f"{fn}_dispatch_{n}"
        entry = f"{exe_name}_{dispatch_description(root)}"
        inputs = captured_values(region_op)
        outputs = list(region_op.results)
        arg_types = [T.DispatchTensorType("readonly", v.type) for v in inputs] + \
                    [T.DispatchTensorType("writeonly", r.type) for r in outputs]
        kblk = Block(arg_types)
        kb = Builder.at_end(kblk, region_op.loc)
        mapping: Dict[Value, Value] = {}
        for v, a in zip(inputs, kblk.args):
            mapping[v] = kb.create("flow.dispatch.tensor.load", [a], [v.type], _full_slice(v.type)).result
        ret = region_op.body.terminator
        for op in region_op.body.ops:
            if op is ret:
                continue
            kb.insert(op.clone(mapping))
        for v, a in zip(ret.operands, kblk.args[len(inputs):]):
            kb.create("flow.dispatch.tensor.store", [mapping.get(v, v), a], [], _full_slice(v.type))
        kb.create("func.return", [])
        kfunc = Operation("func.func", attributes={
            "sym_name": StringAttr(entry),
            "function_type": TypeAttr(T.FunctionType(tuple(arg_types), ())),
        }, regions=[Region([kblk])], loc=region_op.loc)
        inner = make_module(region_op.loc)
        inner.body.append(kfunc)
        exe_blk = Block()
        exe_blk.append(Operation("flow.executable.export", attributes={
            "sym_name": StringAttr(entry), "sym_visibility": StringAttr("public"),
            "function_ref": SymbolRefAttr(entry)}, loc=region_op.loc))
        exe_blk.append(inner)
        exe = Operation("flow.executable", attributes={
            "sym_name": StringAttr(exe_name), "sym_visibility": StringAttr("private")},
            regions=[Region([exe_blk])], loc=region_op.loc)
        b = Builder.before(region_op)
        d = b.create("flow.dispatch", inputs, [r.type for r in outputs],
                     {"entry_point": SymbolRefAttr(exe_name, (entry,))})
        for r, nr in zip(region_op.results, d.results):
            r.replace_all_uses_with(nr)
        region_op.erase()
        return exe


def _full_slice(t: T.TensorType) -> dict:
    r = t.rank
    return {"static_offsets": DenseArrayAttr(T.i64, (0,) * r),
            "static_sizes": DenseArrayAttr(T.i64, tuple(t.shape)),
            "static_strides": DenseArrayAttr(T.i64, (1,) * r)}


def executable_entry(exe: Operation) -> Operation:
    """The kernel func.func of a flow.executable (or hal.executable variant)."""
    for op in exe.walk():
        if op.name == "func.func":
            return op
    raise ValueError("executable without a function")


def executables(module: Operation, kind: str = "flow.executable") -> List[Operation]:
    """The executables (ops named ``kind``) at the top of ``module``."""
    return [op for op in module.body.ops if op.name == kind]
