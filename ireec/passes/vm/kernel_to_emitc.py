"""Kernels → emitc-like ops (C statements as ops).

Mirrors MLIR's SCF/Arith/Math/MemRef → EmitC patterns (``convert-scf-to-emitc``,
``convert-arith-to-emitc``, ``convert-memref-to-emitc``) as IREE's C-emitting backends use
them: a kernel becomes an ``emitc.func`` over typed binding pointers and workgroup ids.

The emitc-like ops produced here (printed by :mod:`ireec.emitc.c_printer`):

- ``emitc.constant`` (scalar literal), ``emitc.expression`` (a C expression template ``c``
  over its operands; ``source_op``: the arith/math op it computes, ``divides``: its C
  divides, so the loop passes never read ``c``), ``emitc.load`` / ``emitc.store`` (index a pointer with the static strides
  and offset of the memref they came from; ireec-specific);
- ``emitc.variable``: a local array (``array_size``), a ``static const`` array with an
  initializer (``init_values``, for constants inside kernels) or a mutable scalar (one
  optional init operand); ``emitc.assign`` (``var = value;``) and ``emitc.read`` (a const
  snapshot of a mutable scalar);
- ``emitc.for`` (``lb, ub, step``; ``ivdep`` when its iterations are independent),
  ``emitc.if`` (then/else regions), ``emitc.loop`` (``for (;;)``) with
  ``emitc.break_unless`` (``if (!c) break;``).

Loop-carried values (``scf.for`` iter_args, ``scf.while`` arguments) and ``scf.if`` results
become mutable scalars assigned by the ``scf.yield`` / ``scf.condition`` that produce them.
The passes after this lowering (the vm phase of :mod:`ireec.passes.pipeline`) inline
single-trip loops, hoist loop invariants, mark independent loops ``ivdep``, map workgroups
onto threads and erase dead ops.
"""
from __future__ import annotations

from typing import Dict, List, Optional, Sequence

import numpy as np

from ...emitc.arith_to_c import c_expression
from ...emitc.ctypes import c_literal, ctype, storage_ctype
from ...ir import types as T
from ...ir.attributes import (ArrayAttr, DenseArrayAttr, DenseElementsAttr, IntegerAttr, StringAttr,
                              TypeAttr, UnitAttr, to_raw_bytes)
from ...ir.core import Block, Builder, Operation, Region, Value
from ...ir.diagnostics import CompileError
from ..hal.memref_utils import strides_and_offset
from .emitc_utils import constant_value as _constant_value

OPAQUE_PTR = T.OpaqueType("emitc", 'ptr<!emitc.opaque<"void">>')

#: memref ops whose result is a view of their source: the result type's strided layout
#: carries the absolute offset and strides from the base pointer, so the C pointer is shared.
VIEW_OPS = ("memref.subview", "memref.collapse_shape", "memref.expand_shape", "memref.cast",
            "memref.reinterpret_cast", "bufferization.to_memref", "bufferization.to_buffer")

#: Index arithmetic printed with plain signed C operators. Index values in kernels are
#: offsets and extents of static buffers (below 2**63), so they cannot wrap; the signed form
#: lets the C compiler's induction-variable analysis see simple affine subscripts.
INDEX_ARITH = {"arith.addi": "{0} + {1}", "arith.subi": "{0} - {1}", "arith.muli": "{0} * {1}"}


#: Index values of a kernel are printed as ``int32_t`` (smaller and faster on 32-bit
#: targets: no add-with-carry pairs) when every one provably fits; see index_fits_32_bits.
INDEX_32_LIMIT = 1 << 31


def index_fits_32_bits(kernel: Operation) -> bool:
    """Whether every index value of ``kernel`` (memref/scf form) fits in ``int32_t``: every
    memref has a static shape of fewer than 2**31 elements (loop bounds, subscripts and
    offsets index into them), every index constant is below 2**31 in magnitude, and no index
    comes from data (``arith.index_cast`` of a wider integer, whose clamping must see the
    full value)."""
    for op in kernel.walk():
        for v in list(op.results) + [a for r in op.regions for b in r.blocks for a in b.args]:
            t = v.type
            if isinstance(t, T.MemRefType):
                if any(d is None or d < 0 for d in t.shape) or t.num_elements >= INDEX_32_LIMIT:
                    return False
        if op.name == "arith.constant" and op.results and isinstance(op.results[0].type, T.IndexType):
            if abs(int(op.attributes["value"].value)) >= INDEX_32_LIMIT:
                return False
        if op.name in ("arith.index_cast", "arith.index_castui") and op.operands:
            src = op.operands[0].type
            if isinstance(src, T.IntegerType) and src.width > 32:
                return False
    return True


def c_param(ctype_: str, name: str) -> str:
    """A C parameter declaration from its type and name (``float *`` + ``x`` → ``float *x``)."""
    return f"{ctype_}{name}" if ctype_.endswith("*") else f"{ctype_} {name}"


def _ukernel_epilogue_args(op: Operation, bias: Optional[str]):
    """``(callee, trailing args)`` of a CPU micro-kernel call: the ``_fused`` variant of
    runtime_c/ireec_ukernel.h with ``flags, bias pointer, bias strides..., lo, hi`` when
    ``op`` has an epilogue (ireec/passes/hal/ukernel_epilogue.py), starts from a bias
    (``bias_init``) or does not accumulate;
    else the plain function and no extra arguments (the sgemm adds its flags itself)."""
    name = op.attributes["u_kernel_fn_name"].value
    acc = op.attributes.get("accumulate")
    accumulate = acc is None or acc.value
    bias_st = op.attributes.get("bias_strides")
    lo, hi = op.attributes.get("clamp_lo"), op.attributes.get("clamp_hi")
    if bias_st is None and lo is None and hi is None and (accumulate or name.endswith("sgemm")):
        return name, []
    init = "bias_init" in op.attributes
    flags = [f for f, on in (("IREEC_UK_FLAG_ACCUMULATE", accumulate),
                             ("IREEC_UK_FLAG_BIAS_INIT", init),
                             ("IREEC_UK_FLAG_BIAS", bias_st is not None and not init),
                             ("IREEC_UK_FLAG_CLAMP_LO", lo is not None),
                             ("IREEC_UK_FLAG_LO_KEEPS_NAN", "lo_keeps_nan" in op.attributes),
                             ("IREEC_UK_FLAG_CLAMP_HI", hi is not None),
                             ("IREEC_UK_FLAG_HI_REPLACES_NAN", "hi_replaces_nan" in op.attributes)) if on]
    strides = [str(int(x)) for x in bias_st.value] if bias_st is not None else \
        ["0"] * (2 if name.endswith("sgemm") else 1)
    return name + "_fused", [" | ".join(flags) or "0", bias or "NULL"] + strides + [
        c_literal(lo.value if lo is not None else 0.0, T.f32),
        c_literal(hi.value if hi is not None else 0.0, T.f32)]


def _str_array(xs):
    return ArrayAttr(tuple(StringAttr(x) for x in xs))


class _Splat:
    """A constant buffer whose every element is one scalar (loads fold to it)."""

    def __init__(self, value: Value):
        self.value = value


def array_initializer(attr: DenseElementsAttr) -> List[str]:
    """C initializer elements of a dense constant in its storage C type (row-major).

    f16/bf16 are stored as 16-bit patterns and i1 as bytes (see ``storage_ctype``); f32/f64
    non-finite values use ``NAN``/``INFINITY`` from <math.h> (constant expressions, so they
    are valid in a static initializer). Raises CompileError for unsupported element types.
    """
    et = attr.type.element_type
    flat = attr.array.reshape(-1)
    if isinstance(et, T.FloatType) and et.name in ("f16", "bf16"):
        raw = np.frombuffer(to_raw_bytes(flat, et), dtype=np.uint16)
        return [f"0x{int(b):04X}" for b in raw]
    if T.is_small_float(et):  # the array already holds the bit patterns
        return [f"0x{int(b):02X}" for b in flat]
    if isinstance(et, T.FloatType):
        suffix = "f" if et.name != "f64" else ""
        out = []
        for x in flat:
            x = float(x)
            if x != x:
                out.append("-NAN" if np.signbit(x) else "NAN")
            elif x in (float("inf"), float("-inf")):
                out.append(("-" if x < 0 else "") + "INFINITY")
            else:
                lit = c_literal(x, et)
                out.append(lit if suffix or not lit.endswith("f") else lit[:-1])
        return out
    if isinstance(et, T.IntegerType) and et.width == 1:
        return ["1" if bool(x) else "0" for x in flat]
    if isinstance(et, (T.IntegerType, T.IndexType)):
        ct = ctype(et)
        out = []
        for x in flat:
            v = int(x)
            if ct in ("int64_t", "int32_t") and v == -(1 << (63 if ct == "int64_t" else 31)):
                out.append("INT64_MIN" if ct == "int64_t" else "INT32_MIN")
            elif ct == "int64_t":
                out.append(f"INT64_C({v})")
            elif ct == "uint64_t":
                out.append(f"UINT64_C({v})")
            else:
                out.append(str(v))
        return out
    raise CompileError(f"constant of element type {et} cannot be placed in a kernel")


class KernelLowering:
    """Converts one kernel func (memref/scf/arith form, after bufferization and loop
    lowering) into an ``emitc.func`` named ``<entry>_workgroup``.

    Parameters of the C function: one restrict-qualified pointer per binding (``const``
    for read-only ones), then the target's workgroup id parameters
    (``Target.workgroup_id_params``: ``workgroup_id_x/y/z``); its specifiers are the target's
    (``Target.kernel_specifiers``). Unsupported ops raise CompileError
    at their location.
    """

    def __init__(self, kernel: Operation, entry: str, target=None):
        from ...targets.base import get_target

        self.kernel = kernel
        self.entry = entry
        self.target = get_target(target if target is not None else "c")
        self.map: Dict[Value, object] = {}
        self.workgroup_count = self._workgroup_count()

    # ------------------------------------------------------------------ set up
    def _workgroup_count(self) -> Sequence[int]:
        """The workgroup count of the kernel's ``hal.executable.export`` (default 1x1x1)."""
        name = self.kernel.attributes.get("sym_name")
        op = self.kernel.parent_op
        while op is not None and op.name != "hal.executable.variant":
            op = op.parent_op
        if op is None or name is None:
            return (1, 1, 1)
        for o in op.walk():
            if o.name == "hal.executable.export" and o.attributes["sym_name"].value == name.value:
                wg = o.attributes.get("workgroup_count")
                if wg is not None:
                    vals = list(wg.value)
                    return tuple(vals + [1] * (3 - len(vals)))
        return (1, 1, 1)

    def run(self) -> Operation:
        subspans = [op for op in self.kernel.body.ops if op.name == "hal.interface.binding.subspan"]
        decls, arg_types, binding_types = [], [], []  # (C type, name) per parameter
        for s in subspans:
            t = s.results[0].type
            const = "const " if s.attributes["descriptor_flags"].value == "ReadOnly" else ""
            binding_types.append(f"{const}{storage_ctype(t.element_type)}")
            decls.append((f"{binding_types[-1]} *IREEC_RESTRICT", f"binding{s.attributes['binding'].value}"))
            arg_types.append(t)
        ids = self.target.workgroup_id_params()
        decls += ids
        params = [c_param(t, n) for t, n in decls]
        arg_types += [T.index] * len(ids)
        blk = Block(arg_types)
        for s, a in zip(subspans, blk.args):
            self.map[s.results[0]] = a
        self.param_names = {a: n for a, (_t, n) in zip(blk.args, decls)}
        self.workgroup_ids = blk.args[len(subspans):]
        vb = Builder.at_end(blk)
        for _t, n in decls[len(subspans):]:
            vb.create("emitc.verbatim", [], [], {"value": StringAttr(f"(void){n};")})
        self.convert_block(self.kernel.body, blk)
        extra = {"index_ctype": StringAttr("int32_t")} if index_fits_32_bits(self.kernel) else {}
        # The specifiers and the workgroup size are set by iree-codegen-gpu-distribute,
        # once the emitc loop passes have settled the loop structure.
        return Operation("emitc.func", attributes={**extra,
            "sym_name": StringAttr(self.entry + "_workgroup"),
            "params": _str_array(params), "result": StringAttr("void"), "kind": StringAttr("kernel"),
            "param_types": _str_array([t for t, _n in decls]), "param_names": _str_array([n for _t, n in decls]),
            "bindings": _str_array(binding_types),
        }, regions=[Region([blk])], loc=self.kernel.loc)

    # ------------------------------------------------------------------ helpers
    def v(self, x: Value):
        return self.map.get(x, x)

    def convert_block(self, src: Block, dst: Block, on_terminator=None) -> None:
        """Convert every op of ``src`` at the end of ``dst``; ``on_terminator(op, builder)``
        handles its scf.yield / scf.condition (default: dropped)."""
        b = Builder.at_end(dst)
        for op in src.ops:
            b.loc = op.loc
            if op.name in ("scf.yield", "scf.condition"):
                if on_terminator is not None:
                    on_terminator(op, b)
                elif op.operands:
                    raise CompileError(f"'{op.name}' with operands in an unexpected place", op.loc)
                continue
            self.convert_op(op, b)

    def _scalar(self, x: Value, op: Operation) -> Value:
        v = self.v(x)
        if isinstance(v, _Splat) or not isinstance(v, Value):
            raise CompileError("a buffer is used where a scalar is expected", op.loc)
        return v

    def _index_const(self, b: Builder, n: int) -> Value:
        return b.create("emitc.constant", [], [T.index], {"value": IntegerAttr(n, T.index)}).result

    def _variables(self, b: Builder, types: Sequence[T.Type], inits: Sequence[Optional[Value]], op) -> List[Value]:
        """Mutable scalars (``T tN = init;``), one per loop-carried value or scf.if result."""
        out = []
        for t, init in zip(types, inits):
            if isinstance(t, (T.ShapedType,)):
                raise CompileError(f"a loop-carried or conditional value of type {t} is not supported in kernels", op.loc)
            ctype(t)  # raises for types without a C spelling
            operands = [init] if init is not None else []
            out.append(b.create("emitc.variable", operands, [t]).result)
        return out

    def _assign(self, b: Builder, vars_: Sequence[Value], vals: Sequence[Value], op) -> None:
        """``var = val;`` for each pair, through snapshots when a value is itself one of the
        variables (so a swap like ``yield %b, %a`` reads the old values)."""
        vals = [self._scalar(x, op) for x in vals]
        targets = set(vars_)
        if len(vars_) > 1 and any(v in targets for v in vals):
            vals = [b.create("emitc.read", [v], [v.type]).result if v in targets else v for v in vals]
        for var, val in zip(vars_, vals):
            b.create("emitc.assign", [var, val], [])

    def _read_all(self, blk: Block, vars_: Sequence[Value]) -> List[Value]:
        b = Builder.at_end(blk)
        return [b.create("emitc.read", [v], [v.type]).result for v in vars_]

    # ------------------------------------------------------------------ constants
    def _const_buffer(self, b: Builder, attr, op: Operation):
        """A dense constant used as a buffer: a splat folds to its scalar; otherwise a
        function-scope ``static const`` array (lands in .rodata)."""
        if not isinstance(attr, DenseElementsAttr):
            raise CompileError(f"constant {type(attr).__name__} cannot be placed in a kernel", op.loc)
        et = attr.type.element_type
        if attr.is_splat or attr.array.size == 1:
            flat = attr.array.reshape(-1)
            val = flat[0].item() if flat.size else 0
            return _Splat(b.create("emitc.constant", [], [et], {"value": _scalar_attr(val, et)}).result)
        mt = T.MemRefType(tuple(attr.type.shape), et)
        return b.create("emitc.variable", [], [mt], {
            "array_size": IntegerAttr(attr.array.size, T.index), "element": StringAttr(storage_ctype(et)),
            "init_values": _str_array(array_initializer(attr))}).result

    def _global(self, b: Builder, op: Operation):
        sym = op.attributes["name"]
        name = getattr(sym, "root", None) or getattr(sym, "value", None)
        scope = self.kernel.parent_op
        while scope is not None:
            for g in scope.body.ops if scope.regions and scope.regions[0].blocks else []:
                if g.name == "memref.global" and g.attributes["sym_name"].value == name:
                    init = g.attributes.get("initial_value")
                    if "constant" not in g.attributes or not isinstance(init, DenseElementsAttr):
                        raise CompileError(f"memref.global @{name} is not a dense constant; kernels hold no mutable state", op.loc)
                    return self._const_buffer(b, init, op)
            scope = scope.parent_op
        raise CompileError(f"memref.global @{name} not found", op.loc)

    # ------------------------------------------------------------------ ops
    def convert_op(self, op: Operation, b: Builder) -> None:
        """Lower one op through :data:`CONVERTERS` (``{op name: method}``); other ``arith``
        and ``math`` ops become C expressions. CompileError for anything else."""
        fn = CONVERTERS.get(op.name)
        if fn is not None:
            fn(self, op, b)
        elif op.dialect in ("arith", "math") and len(op.results) == 1:
            self._scalar_op(op, b)
        else:
            raise CompileError(f"'{op.name}' cannot be lowered to C yet", op.loc)

    def _skip(self, op: Operation, b: Builder) -> None:
        """Ops with nothing to emit (bindings are parameters; no deallocation in C)."""

    def _view(self, op: Operation, b: Builder) -> None:
        # Strided types carry absolute offsets from the base pointer.
        self.map[op.results[0]] = self.v(op.operands[0])

    def _alloc(self, op: Operation, b: Builder) -> None:
        t = op.results[0].type
        attrs = {"array_size": IntegerAttr(t.num_elements, T.index),
                 "element": StringAttr(storage_ctype(t.element_type))}
        if "ireec.c_shape" in op.attributes and t.layout is None:
            # Declared with its shape in C (see ireec/emitc/c_printer.py).
            attrs["dims"] = DenseArrayAttr(T.i64, tuple(t.shape))
        r = b.create("emitc.variable", [], [t], attrs)
        self.map[op.results[0]] = r.result

    def _get_global(self, op: Operation, b: Builder) -> None:
        self.map[op.results[0]] = self._global(b, op)

    def _dim(self, op: Operation, b: Builder) -> None:
        t = op.operands[0].type
        d = op.operands[1].owner
        if not (isinstance(d, Operation) and d.name == "arith.constant"):
            raise CompileError("memref.dim with a computed dimension is not supported", op.loc)
        self.map[op.results[0]] = self._index_const(b, t.shape[d.attributes["value"].value])

    def _convert_workgroup_id(self, op: Operation, b: Builder) -> None:
        self.map[op.results[0]] = self.workgroup_ids[_dimension(op)]

    def _convert_workgroup_count(self, op: Operation, b: Builder) -> None:
        self.map[op.results[0]] = self._index_const(b, self.workgroup_count[_dimension(op)])

    def _convert_workgroup_size(self, op: Operation, b: Builder) -> None:
        # A workgroup is one invocation of this function: IREE's LLVMCPU workgroup size is [1, 1, 1].
        self.map[op.results[0]] = self._index_const(b, 1)

    def _ukernel(self, op: Operation, b: Builder) -> None:
        """``iree_codegen.ukernel.generic`` → the call of its micro-kernel, lowered by its
        family (:data:`_UKERNEL_LOWERINGS`, ireec/dialects/iree_codegen.py)."""
        from ...dialects.iree_codegen import family

        _UKERNEL_LOWERINGS[family(op.attributes["u_kernel_fn_name"].value)](self, op, b)

    def _gpu_matmul_ukernel(self, op: Operation, b: Builder) -> None:
        """``iree_codegen.ukernel.generic`` of a GPU matmul (see
        ``passes/hal/gpu_lower_to_ukernels.py``) → the call of its device micro-kernel with
        the batch-offset binding pointers, sizes, strides, tile origin and accumulate flag."""
        names = []
        for x in op.operands:
            v = self.v(x)
            if v not in self.param_names:
                raise CompileError(f"'{op.name}' operands must be bindings or workgroup ids", op.loc)
            names.append(self.param_names[v])
        (a, bm, c), ids = names[:3], names[3:]
        m_, n_, k_ = (int(x) for x in op.attributes["sizes"].value)
        a_b, a_m, a_k, b_b, b_k, b_n, c_b, c_m, c_n = (int(x) for x in op.attributes["strides"].value)
        tm, tn = (int(x) for x in op.attributes["tiles"].value)
        ptrs = [a, bm, c]
        if len(ids) > 2:
            ptrs = [f"{p} + {ids[2]} * INT64_C({s})" if s else p for p, s in zip(ptrs, (a_b, b_b, c_b))]
        args = ptrs + [f"INT64_C({x})" for x in (m_, n_, k_, a_m, a_k, b_k, b_n, c_m, c_n)]
        args += [f"{ids[0]} * INT64_C({tm})", f"{ids[1]} * INT64_C({tn})", str(int(op.attributes["accumulate"].value))]
        b.create("emitc.call_opaque", [], [], {"callee": StringAttr(op.attributes["u_kernel_fn_name"].value),
                                               "args": _str_array(args)})

    def _execute_region(self, op: Operation, b: Builder) -> None:
        if len(op.regions[0].blocks) != 1:
            raise CompileError("scf.execute_region with several blocks is not supported in kernels", op.loc)
        vars_ = self._variables(b, op.result_types, [None] * len(op.results), op)
        blk = Block()
        self.convert_block(op.regions[0].blocks[0], blk,
                           lambda y, yb: self._assign(yb, vars_, y.operands, y))
        for o in list(blk.ops):
            o.detach()
            b.insert(o)
        for r, var in zip(op.results, vars_):
            self.map[r] = var

    def _constant(self, op: Operation, b: Builder) -> None:
        t = op.results[0].type
        attr = op.attributes["value"]
        if isinstance(t, T.ShapedType):
            self.map[op.results[0]] = self._const_buffer(b, attr, op)
            return
        r = b.create("emitc.constant", [], [t], {"value": attr})
        self.map[op.results[0]] = r.result

    def _scalar_op(self, op: Operation, b: Builder) -> None:
        """An ``arith``/``math`` op on scalars → ``emitc.expression`` (identities folded)."""
        name = op.name
        if any(isinstance(x.type, T.ShapedType) for x in list(op.operands) + op.results):
            raise CompileError(f"'{name}' on {op.results[0].type} reached kernel code generation "
                               "(elementwise ops on tensors/vectors are not lowered here)", op.loc)
        rt = op.results[0].type
        folded = self._fold_identity(op)
        if folded is not None:
            self.map[op.results[0]] = folded
            return
        tmpl = INDEX_ARITH.get(name) if isinstance(rt, T.IndexType) else None
        c = tmpl or c_expression(op)
        # What the loop passes need to know of the expression, so they never read its C:
        # the op it computes and whether its C divides (C's / or %).
        attrs = {"c": StringAttr(c), "source_op": StringAttr(name)}
        if "/" in c or "%" in c:
            attrs["divides"] = UnitAttr()
        r = b.create("emitc.expression", [self._scalar(x, op) for x in op.operands], [rt], attrs)
        self.map[op.results[0]] = r.result

    def _fold_identity(self, op: Operation) -> Optional[Value]:
        """``x + 0``, ``0 + x``, ``x - 0``, ``x * 1``, ``1 * x`` on integers/index are ``x``
        (the tiling and loop lowerings leave such offsets; plain subscripts vectorize)."""
        if op.name not in ("arith.addi", "arith.subi", "arith.muli") or len(op.operands) != 2:
            return None
        a, b = (self._scalar(x, op) for x in op.operands)
        ca, cb = _constant_value(a), _constant_value(b)
        unit = 1 if op.name == "arith.muli" else 0
        if cb == unit:
            return a
        if ca == unit and op.name != "arith.subi":
            return b
        return None

    def _load_store(self, op: Operation, b: Builder) -> None:
        name = op.name
        is_load = name != "memref.store"
        mem = op.operands[0] if is_load else op.operands[1]
        idx = op.operands[1:] if is_load else op.operands[2:]
        base = self.v(mem)
        if isinstance(base, _Splat):
            if not is_load:
                raise CompileError("store into a constant buffer", op.loc)
            self.map[op.results[0]] = base.value
            return
        mt = mem.type
        if isinstance(mt, T.TensorType):
            if base is mem:
                raise CompileError("tensor.extract of a tensor that is not a kernel constant", op.loc)
            mt = base.type
        strides, offset = strides_and_offset(mt)
        attrs = {"strides": DenseArrayAttr(T.i64, tuple(strides)), "offset": IntegerAttr(offset, T.index),
                 "element_type": TypeAttr(mt.element_type)}
        ivals = [_clamp_data_index(b, self._scalar(i, op), d) for i, d in zip(idx, mt.shape)]
        if is_load:
            r = b.create("emitc.load", [base] + ivals, [op.results[0].type], attrs)
            self.map[op.results[0]] = r.result
        else:
            b.create("emitc.store", [self._scalar(op.operands[0], op), base] + ivals, [], attrs)

    def _copy(self, op: Operation, b: Builder) -> None:
        src, dst = op.operands
        sb, db = self.v(src), self.v(dst)
        shape = list(dst.type.shape)
        zero, one = self._index_const(b, 0), self._index_const(b, 1)
        ubs = [self._index_const(b, d) for d in shape]
        ivs: List[Value] = []
        inner = b
        for ub in ubs:
            body = Block([T.index])
            inner.create("emitc.for", [zero, ub, one], [], regions=[Region([body])])
            ivs.append(body.args[0])
            inner = Builder.at_end(body)

        def attrs(t):
            s, o = strides_and_offset(t)
            return {"strides": DenseArrayAttr(T.i64, tuple(s)), "offset": IntegerAttr(o, T.index),
                    "element_type": TypeAttr(t.element_type)}

        et = dst.type.element_type
        if isinstance(sb, _Splat):
            val = sb.value
        else:
            val = inner.create("emitc.load", [sb] + ivs, [et], attrs(src.type)).result
        inner.create("emitc.store", [val, db] + ivs, [], attrs(dst.type))

    def _ukernel_pointers(self, op: Operation, mems: List[Value], rest: List[Value], ref):
        """C expressions of the addresses of ``mems``' elements at the indices that follow
        in ``rest`` (one per dim of each, in order), operands named through ``ref``; and
        the operands of ``rest`` left after them."""
        pointers = []
        for m in mems:
            r = m.type.rank
            base = self.v(m)
            if isinstance(base, _Splat) or not isinstance(base, Value):
                raise CompileError("a micro-kernel operand is not addressable", op.loc)
            strides, offset = strides_and_offset(m.type)
            terms = [ref(base)] + ([str(offset)] if offset else [])
            for idx, st in zip(rest[:r], strides):
                iv = self._scalar(idx, op)
                if _constant_value(iv) != 0:
                    terms.append(ref(iv) if st == 1 else f"{ref(iv)} * {st}")
            rest = rest[r:]
            pointers.append(" + ".join(terms))
        return pointers, rest

    def _dwconv_ukernel(self, op: Operation, b: Builder) -> None:
        """``iree_codegen.ukernel.generic`` of a depthwise convolution (see
        ireec/passes/hal/cpu_lower_to_ukernels.py) → ``ireec_uk_dwconv(C, OH, OW, KH, KW,
        &image[origin], its 5 strides, &filter[origin], its 3, &out[origin], its 3)`` in the
        argument order of runtime_c/ireec_ukernel.h; ``ireec_uk_dwconv_fused(..., flags,
        &bias[origin], 1, lo, hi)`` with an epilogue or without ``accumulate``;
        ``ireec_uk_dwconv_padded(<the fused form's>, IH, IW, SY, SX, DY, DX, PT, PL, row,
        col)`` with ``padding`` (its two padding operands after the sizes)."""
        operands: List[Value] = []

        def ref(v: Value) -> str:
            operands.append(v)
            return "{%d}" % (len(operands) - 1)

        n = 4 if "bias_strides" in op.attributes else 3
        pointers, rest = self._ukernel_pointers(op, list(op.operands[:n]), list(op.operands[n:]), ref)
        sizes = [ref(self._scalar(x, op)) for x in rest]
        kh, kw = (str(int(x)) for x in op.attributes["window"].value)
        st = [str(int(x)) for x in op.attributes["strides"].value]
        padding = op.attributes.get("padding")
        pads = sizes[3:] if padding is not None else []
        args = sizes[:3] + [kh, kw, pointers[0]] + st[0:5] + [pointers[1]] + st[5:8] + [pointers[2]] + st[8:11]
        callee, extra = _ukernel_epilogue_args(op, pointers[3] if n == 4 else None)
        if padding is not None:  # the image unpadded: ireec_uk_dwconv_padded(<fused>, geometry)
            ih, iw, sy, sx, dy, dx, row, col = (str(int(x)) for x in padding.value)
            if not extra:
                extra = ["IREEC_UK_FLAG_ACCUMULATE", "NULL", "0", c_literal(0.0, T.f32), c_literal(0.0, T.f32)]
            callee = op.attributes["u_kernel_fn_name"].value + "_padded"
            extra = extra + [ih, iw, sy, sx, dy, dx, *pads, row, col]
        b.create("emitc.call_opaque", operands, [], {"callee": StringAttr(callee), "args": _str_array(args + extra)})

    def _conv_ukernel(self, op: Operation, b: Builder) -> None:
        """``iree_codegen.ukernel.generic`` of a direct convolution (see
        ireec/passes/hal/direct_conv.py) → ``ireec_uk_conv(F, OH, OW, R0, R1, R2, S0, S1, S2,
        s0, s1, s2, P0, P1, P2, &filter[origin], w_f, &image[origin], x_y, x_end, &out[origin],
        o_f, o_y, flags)`` (``phases`` absent: S 1, P 0) in
        the argument order of runtime_c/ireec_ukernel_conv.h (flags:
        ``IREEC_UK_FLAG_ACCUMULATE`` unless ``accumulate`` is false)."""
        operands: List[Value] = []

        def ref(v: Value) -> str:
            operands.append(v)
            return "{%d}" % (len(operands) - 1)

        pointers, rest = self._ukernel_pointers(op, list(op.operands[:3]), list(op.operands[3:]), ref)
        f_, oh, ow, x_end = (ref(self._scalar(x, op)) for x in rest)
        window = [str(int(x)) for x in op.attributes["window"].value]
        s0, s1, s2, w_f, x_y, o_f, o_y = (str(int(x)) for x in op.attributes["strides"].value)
        ph = op.attributes.get("phases")
        phases = [str(int(x)) for x in ph.value] if ph is not None else ["1", "1", "1", "0", "0", "0"]
        acc = op.attributes.get("accumulate")
        args = [f_, oh, ow, *window, *phases[:3], s0, s1, s2, *phases[3:], pointers[0], w_f, pointers[1], x_y, x_end,
                pointers[2], o_f, o_y, "IREEC_UK_FLAG_ACCUMULATE" if acc is None or acc.value else "0"]
        b.create("emitc.call_opaque", operands, [], {"callee": StringAttr(op.attributes["u_kernel_fn_name"].value),
                                                     "args": _str_array(args)})

    def _sgemm_ukernel(self, op: Operation, b: Builder) -> None:
        """``iree_codegen.ukernel.generic`` (see ireec/passes/hal/cpu_lower_to_ukernels.py)
        → ``fn_name(&A[origin], strides..., &B[origin], ..., &C[origin], ldc, M, N, K,
        blocking..., work, flags)`` in the argument order of runtime_c/ireec_ukernel.h's
        ``ireec_uk_sgemm`` (flags: ``IREEC_UK_FLAG_ACCUMULATE`` unless the op's ``accumulate``
        is false: C is then overwritten; with ``accumulate_after_first`` only at the first
        filter tap, where the op's last operand is 0)."""
        bias_st = op.attributes.get("bias_strides")
        n = 5 if bias_st is not None else 4
        mems = op.operands[:n]
        rest = list(op.operands[n:])
        operands: List[Value] = []

        def ref(v: Value) -> str:
            operands.append(v)
            return "{%d}" % (len(operands) - 1)

        first_tap = rest.pop() if "accumulate_after_first" in op.attributes else None
        pointers, rest = self._ukernel_pointers(op, mems[:3] + mems[4:], rest, ref)
        m_, n_, k_ = (ref(self._scalar(x, op)) for x in rest)
        sa_m, sa_k, sb_k, sb_n, ldc = (str(int(x)) for x in op.attributes["strides"].value)
        mc, nc, kc = (str(int(x)) for x in op.attributes["blocking"].value)
        args = [m_, n_, k_, pointers[0], sa_m, sa_k, pointers[1], sb_k, sb_n, pointers[2], ldc,
                mc, nc, kc, ref(self.v(mems[3]))]
        callee, extra = _ukernel_epilogue_args(op, pointers[3] if bias_st is not None else None)
        if callee.endswith("_fused"):
            args += extra
        elif first_tap is not None:
            args.append(f"({ref(self._scalar(first_tap, op))} != 0 ? IREEC_UK_FLAG_ACCUMULATE : 0)")
        else:
            acc = op.attributes.get("accumulate")
            args.append("IREEC_UK_FLAG_ACCUMULATE" if acc is None or acc.value else "0")
        b.create("emitc.call_opaque", operands, [], {"callee": StringAttr(callee),
                                                     "args": _str_array(args)})

    def _igemm_ukernel(self, op: Operation, b: Builder) -> None:
        """``iree_codegen.ukernel.generic`` of an int8 GEMM (see
        ireec/passes/hal/cpu_lower_to_ukernels.py) → ``ireec_uk_igemm(M, N, K, &A[origin],
        a_m, a_k, &B[origin], b_k, b_n, &C[origin], ldc, a_zp, b_zp, MC, NC, KC, work,
        flags)`` in the argument order of runtime_c/ireec_ukernel_igemm.h (flags:
        ``IREEC_UK_FLAG_ACCUMULATE`` unless ``accumulate`` is false, ``IREEC_UK_FLAG_LHS_UNSIGNED``
        / ``_RHS_UNSIGNED`` for ``lhs_unsigned`` / ``rhs_unsigned``)."""
        mems = op.operands[:4]
        rest = list(op.operands[4:])
        operands: List[Value] = []

        def ref(v: Value) -> str:
            operands.append(v)
            return "{%d}" % (len(operands) - 1)

        zps = rest[-2:]
        pointers, rest = self._ukernel_pointers(op, mems[:3], rest[:-2], ref)
        m_, n_, k_ = (ref(self._scalar(x, op)) for x in rest)
        a_zp, b_zp = (ref(self._scalar(x, op)) for x in zps)
        sa_m, sa_k, sb_k, sb_n, ldc = (str(int(x)) for x in op.attributes["strides"].value)
        mc, nc, kc = (str(int(x)) for x in op.attributes["blocking"].value)
        acc = op.attributes.get("accumulate")
        flags = [f for f, on in (("IREEC_UK_FLAG_ACCUMULATE", acc is None or acc.value),
                                 ("IREEC_UK_FLAG_LHS_UNSIGNED", "lhs_unsigned" in op.attributes),
                                 ("IREEC_UK_FLAG_RHS_UNSIGNED", "rhs_unsigned" in op.attributes)) if on]
        args = [m_, n_, k_, pointers[0], sa_m, sa_k, pointers[1], sb_k, sb_n, pointers[2], ldc,
                a_zp, b_zp, mc, nc, kc, ref(self.v(mems[3])), " | ".join(flags) or "0"]
        b.create("emitc.call_opaque", operands, [], {"callee": StringAttr(op.attributes["u_kernel_fn_name"].value),
                                                     "args": _str_array(args)})

    def _for(self, op: Operation, b: Builder) -> None:
        lb, ub, step = (self._scalar(x, op) for x in op.operands[:3])
        inits = op.operands[3:]
        iv_t = op.body.args[0].type
        clb, cub, cstep = (_constant_value(x) for x in (lb, ub, step))
        if None not in (clb, cub, cstep) and clb < cub <= clb + cstep:
            # One iteration (e.g. a unit dimension): the body, with iv = lb, in line.
            self.map[op.body.args[0]] = lb
            for arg, init in zip(op.body.args[1:], inits):
                self.map[arg] = self._scalar(init, op)
            yielded: List[Value] = []
            tmp = Block()
            self.convert_block(op.body, tmp, lambda y, yb: yielded.extend(self._scalar(x, y) for x in y.operands))
            for o in list(tmp.ops):
                o.detach()
                b.insert(o)
            for r, val in zip(op.results, yielded):
                self.map[r] = val
            return
        vars_ = self._variables(b, [x.type for x in inits], [self._scalar(x, op) for x in inits], op)
        nb = Block([iv_t])
        self.map[op.body.args[0]] = nb.args[0]
        for arg, val in zip(op.body.args[1:], self._read_all(nb, vars_)):
            self.map[arg] = val
        self.convert_block(op.body, nb, lambda y, yb: self._assign(yb, vars_, y.operands, y))
        attrs = {"unsigned": UnitAttr()} if "unsignedCmp" in op.attributes else {}
        b.create("emitc.for", [lb, ub, step], [], attrs, regions=[Region([nb])])
        for r, var in zip(op.results, vars_):
            self.map[r] = var

    def _if(self, op: Operation, b: Builder) -> None:
        cond = self._scalar(op.operands[0], op)
        vars_ = self._variables(b, op.result_types, [None] * len(op.results), op)
        regions = []
        for reg in op.regions:
            blk = Block()
            if reg.blocks:
                self.convert_block(reg.blocks[0], blk, lambda y, yb: self._assign(yb, vars_, y.operands, y))
            elif op.results:
                raise CompileError("scf.if with results needs an else region", op.loc)
            regions.append(Region([blk]))
        b.create("emitc.if", [cond], [], regions=regions)
        for r, var in zip(op.results, vars_):
            self.map[r] = var

    def _while(self, op: Operation, b: Builder) -> None:
        before, after = op.regions[0].blocks[0], op.regions[1].blocks[0]
        inits = [self._scalar(x, op) for x in op.operands]
        state = self._variables(b, [x.type for x in op.operands], inits, op)
        fwd = self._variables(b, op.result_types, [None] * len(op.results), op)
        body = Block()
        for arg, val in zip(before.args, self._read_all(body, state)):
            self.map[arg] = val

        def on_condition(c, cb):
            self._assign(cb, fwd, c.operands[1:], c)
            cb.create("emitc.break_unless", [self._scalar(c.operands[0], c)], [])

        self.convert_block(before, body, on_condition)
        for arg, val in zip(after.args, self._read_all(body, fwd)):
            self.map[arg] = val
        self.convert_block(after, body, lambda y, yb: self._assign(yb, state, y.operands, y))
        b.create("emitc.loop", [], [], regions=[Region([body])])
        for r, var in zip(op.results, fwd):
            self.map[r] = var


def _data_dependent(v: Value, memo: Optional[Dict[Value, bool]] = None) -> bool:
    """Whether emitc value ``v`` may depend on data read from memory: loads, mutable
    scalars (conservatively) and expressions over them. Loop induction variables,
    workgroup ids and constants are not (the indices the compiler derives from them are in
    bounds by construction)."""
    memo = {} if memo is None else memo
    if v in memo:
        return memo[v]
    owner = v.owner
    if not isinstance(owner, Operation):
        dep = False  # kernel parameters and loop induction variables
    elif owner.name == "emitc.constant":
        dep = False
    elif owner.name == "emitc.expression":
        memo[v] = True  # no cycles in SSA form; guards recursion on malformed input
        dep = any(_data_dependent(x, memo) for x in owner.operands)
    else:
        dep = True
    memo[v] = dep
    return dep


def _clamp_data_index(b: Builder, index: Value, extent) -> Value:
    """``index`` clamped to ``[0, extent - 1]`` when it depends on data (a dynamic index of
    ``tensor.extract``, a gather or scatter): such an index may be out of range, where the
    source op's result is undefined, and the generated C must still not access outside its
    buffer. Indices the compiler derives from loops are returned unchanged."""
    if not isinstance(extent, int) or extent < 1 or not _data_dependent(index):
        return index
    hi = extent - 1
    return b.create("emitc.expression", [index], [index.type], {
        "c": StringAttr(f"({{0}} < 0 ? 0 : ({{0}} > {hi} ? {hi} : {{0}}))")}).result


def _dimension(op: Operation) -> int:
    d = op.attributes.get("dimension")
    if d is None:
        raise CompileError(f"'{op.name}' needs a dimension attribute", op.loc)
    d = d.value
    if d not in (0, 1, 2):
        raise CompileError(f"'{op.name}' dimension {d} is out of range (0..2)", op.loc)
    return d


def _scalar_attr(val, et):
    from ...ir.attributes import FloatAttr

    if isinstance(et, T.FloatType):
        return FloatAttr(float(val), et)
    return IntegerAttr(int(val), et)


#: How :meth:`KernelLowering.convert_op` lowers each op ({op name: method}); ``arith`` and
#: ``math`` ops not named here are C expressions (:meth:`KernelLowering._scalar_op`).
CONVERTERS = {
    **{n: KernelLowering._skip for n in ("hal.interface.binding.subspan", "func.return",
                                         "memref.dealloc", "memref.assume_alignment")},
    **{n: KernelLowering._view for n in VIEW_OPS},
    "memref.alloca": KernelLowering._alloc,
    "memref.alloc": KernelLowering._alloc,
    "memref.get_global": KernelLowering._get_global,
    "memref.load": KernelLowering._load_store,
    "memref.store": KernelLowering._load_store,
    "tensor.extract": KernelLowering._load_store,
    "memref.copy": KernelLowering._copy,
    "memref.dim": KernelLowering._dim,
    "hal.interface.workgroup.id": KernelLowering._convert_workgroup_id,
    "hal.interface.workgroup.count": KernelLowering._convert_workgroup_count,
    "hal.interface.workgroup.size": KernelLowering._convert_workgroup_size,
    "scf.for": KernelLowering._for,
    "scf.if": KernelLowering._if,
    "scf.while": KernelLowering._while,
    "scf.execute_region": KernelLowering._execute_region,
    "iree_codegen.ukernel.generic": KernelLowering._ukernel,
    "arith.constant": KernelLowering._constant,
}

#: ``iree_codegen.ukernel.generic`` lowerings per micro-kernel family
#: (ireec/dialects/iree_codegen.py: FAMILIES).
_UKERNEL_LOWERINGS = {
    "ireec_uk_sgemm": KernelLowering._sgemm_ukernel,
    "ireec_uk_igemm": KernelLowering._igemm_ukernel,
    "ireec_uk_dwconv": KernelLowering._dwconv_ukernel,
    "ireec_uk_conv": KernelLowering._conv_ukernel,
    "ireec_gpu_matmul_": KernelLowering._gpu_matmul_ukernel,
}
