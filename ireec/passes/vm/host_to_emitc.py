"""Host functions → emitc-like ops.

Mirrors IREE's VM → EmitC conversion (``ConvertVMToEmitC``) for the sequencing program: a host
function becomes an ``emitc.func`` with the C ABI of design.md (const input pointers, result
pointers, workspace) calling each dispatch's launch function. Scalars the host computes
(loop conditions, values read from tensors) are C locals declared at the top; blocks become
labels and branches ``goto`` statements (block arguments are assigned first), as
``mlir-translate --mlir-to-cpp`` prints multi-block functions.

What later passes and the target read stays typed, never C text: each call touching buffers
carries its byte ranges as ``accesses`` (:class:`~ireec.emitc.access.BufferAccessAttr`), the
``(void)<param>;`` statements carry ``param_use`` (the parameter they mark used), a return is
an ``emitc.return``, and the function keeps its memory plan (``stream.memory_plan``: the
arena the entry's workspace must hold) and dynamic dimensions (``ireec.dynamic_dims``).
"""
from __future__ import annotations

from typing import Dict, List, Sequence

from ...dialects.func import func_name
from ...emitc.access import BufferAccessAttr
from ...emitc.arith_to_c import c_expression
from ...emitc.ctypes import c_ident, c_literal, ctype, load_conversion, storage_ctype, store_conversion
from ...ir import types as T
from ...ir.attributes import ArrayAttr, StringAttr, TypeAttr
from ...ir.core import Block, Builder, Operation, Region, Value
from ...ir.diagnostics import CompileError
from ...targets.base import Target
from .kernel_to_emitc import _str_array, c_param

OPAQUE_PTR = T.OpaqueType("emitc", 'ptr<!emitc.opaque<"void">>')


def _load_expr(ptr: str, et: T.Type, target) -> str:
    """C expression reading one element of type ``et`` at ``ptr`` (a ``uint8_t *``), through
    the target's host read (``Target.host_read``)."""
    st = storage_ctype(et)
    raw = target.host_read(st, ptr)
    conv = load_conversion(et)
    if conv:
        return f"{conv}{raw}"
    if isinstance(et, T.IntegerType) and et.width == 1:
        return f"({raw} != 0)"
    return raw


def _store_stmt(ptr: str, et: T.Type, value: str, target) -> str:
    """C statement storing ``value`` as one element of type ``et`` at ``ptr``, through the
    target's host write (``Target.host_write``)."""
    st = storage_ctype(et)
    conv = store_conversion(et)
    if conv:
        value = f"{conv}({value})"
    elif isinstance(et, T.IntegerType) and et.width == 1:
        value = f"(uint8_t)({value})"
    return target.host_write(st, ptr, value)


def _constant_below(v: Value, bound: int) -> bool:
    """Whether ``v`` is an ``arith.constant`` in ``[0, bound)`` (an index needing no clamp)."""
    owner = v.owner
    if not (isinstance(owner, Operation) and owner.name == "arith.constant"):
        return False
    val = getattr(owner.attributes.get("value"), "value", None)
    return isinstance(val, int) and 0 <= val < bound


def _is_empty(op: Operation) -> bool:
    """Whether the tensor a ``stream.resource.load``/``store`` indexes has no elements."""
    shape = op.attributes["shape"].value if "shape" in op.attributes else ()
    return any(d == 0 for d in shape)


def _drop_dead_scalars(f: Operation) -> None:
    """Scalar ops whose results nobody reads are not emitted (C warns on unused locals)."""
    changed = True
    while changed:
        changed = False
        for blk in f.regions[0].blocks:
            for op in reversed(list(blk.ops)):
                if (op.dialect in ("arith", "math") or op.name == "stream.resource.load") and op.results \
                        and all(not r.uses for r in op.results):
                    op.erase()
                    changed = True


class _HostLowering:
    def __init__(self, f: Operation, module_name: str, entries: Dict[str, Operation], target: Target):
        self.f = f
        self.target = target
        self.module_name = module_name
        self.entries = entries
        self.names: Dict[Value, str] = {}
        self.base: Dict[Value, str] = {}     # C pointer expression of each buffer
        self.buffer: Dict[Value, str] = {}   # name of each buffer (input0, workspace...)
        self.labels: Dict[Block, str] = {}
        self.out = Block()
        self.b = Builder.at_end(self.out, f.loc)

    def name(self, v: Value) -> str:
        if v not in self.names:
            raise CompileError(f"host value of type {v.type} is used before it is defined", self.f.loc)
        return self.names[v]

    def declare(self, v: Value) -> str:
        n = f"s{len(self.names)}"
        self.names[v] = n
        return n

    def run(self) -> Operation:
        f = self.f
        sig: T.FunctionType = f.attributes["ireec.abi.tensor_type"].value
        fname = func_name(f)
        pdecls = [(f"const {storage_ctype(t.element_type)} *", f"input{i}") for i, t in enumerate(sig.inputs)]
        pdecls += [(f"{storage_ctype(t.element_type)} *", f"result{j}") for j, t in enumerate(sig.results)]
        pdecls.append(("void *", "workspace"))
        pdecls += self.target.host_extra_params()
        params = [c_param(t, n) for t, n in pdecls]
        _drop_dead_scalars(f)
        blocks = list(f.regions[0].blocks)
        for i, blk in enumerate(blocks[1:], 1):
            self.labels[blk] = f"bb{i}"
        decls: List[str] = []
        for blk in blocks:
            values = list(blk.args) if blk is not blocks[0] else []
            for op in blk.ops:
                if op.name.startswith("stream.") and op.name != "stream.resource.load":
                    continue
                values.extend(r for r in op.results if not isinstance(r.type, (T.ShapedType, T.OpaqueType)))
            for v in values:
                if v.uses and v.type != T.BUFFER_VIEW:
                    decls.append(f"{ctype(v.type)} {self.declare(v)};")
        for _t, n in pdecls:
            self.b.create("emitc.verbatim", [], [], {"value": StringAttr(f"(void){n};"),
                                                     "param_use": StringAttr(n)})
        for d in decls:
            self.emit(d)
        for blk in blocks:
            if blk in self.labels:
                self.emit(f"{self.labels[blk]}:;")
            for op in blk.ops:
                self.lower(op)
        if not blocks[-1].ops or blocks[-1].ops[-1].name != "func.return":
            self.b.create("emitc.return", [], [], {"value": StringAttr("IREEC_STATUS_OK")})
        attrs = {
            "sym_name": StringAttr(f"{self.module_name}_{c_ident(fname)}"), "params": _str_array(params),
            "param_types": _str_array([t for t, _n in pdecls]), "param_names": _str_array([n for _t, n in pdecls]),
            "result": StringAttr("ireec_status_t"), "kind": StringAttr("host"),
            "mlir_name": StringAttr(fname), "function_type": TypeAttr(sig),
        }
        for key in ("stream.memory_plan", "ireec.dynamic_dims", "ireec.padded_dims"):  # the entry's workspace, its loop over slices, its staging
            if key in f.attributes:
                attrs[key] = f.attributes[key]
        return Operation("emitc.func", attributes=attrs, regions=[Region([self.out])], loc=f.loc)

    def address(self, op: Operation, res: Value, indices) -> str:
        """``base + offset + sum(index * stride) * element bytes`` of the resource element
        that ``stream.resource.load``/``store`` ``op`` accesses. Each dynamic index is
        clamped to ``[0, dim - 1]`` of the tensor's ``shape``: ``tensor.extract`` and
        ``tensor.insert`` out of range are undefined, and the C must still not access
        outside the buffer."""
        et = op.attributes["element_type"].value
        eb = T.storage_bytes(et)
        strides = op.attributes["strides"].value
        shape = op.attributes["shape"].value if "shape" in op.attributes else [None] * len(strides)
        terms = [str(op.attributes["offset"].value)]
        for i, st, d in zip(indices, strides, shape):
            n = self.name(i)
            if isinstance(d, int) and d >= 1 and not _constant_below(i, d):
                n = f"{n} < 0 ? 0 : ({n} > {d - 1} ? {d - 1} : {n})"
            terms.append(f"({n}) * {st * eb}")
        return f"{self.base[res]} + {' + '.join(terms)}"

    def emit(self, line: str) -> None:
        """One C statement, verbatim."""
        self.b.create("emitc.verbatim", [], [], {"value": StringAttr(line)})

    def call(self, callee: str, args: List[str], accesses: Sequence[BufferAccessAttr] = ()) -> None:
        """``callee(args...);``. ``accesses``: the byte ranges the call reads and writes, kept
        on the op for passes that order calls by them (ireec-form-openmp-host-regions)."""
        attrs = {"callee": StringAttr(callee), "args": _str_array(args)}
        if accesses:
            attrs["accesses"] = ArrayAttr(tuple(accesses))
        self.b.create("emitc.call_opaque", [], [], attrs)

    def access(self, buf: Value, offset: int, size: int, mode: str) -> BufferAccessAttr:
        """The access of ``size`` bytes at ``offset`` of buffer ``buf`` as ``mode``."""
        return BufferAccessAttr(self.buffer[buf], int(offset), int(size), mode)

    def assign(self, v: Value, expr: str) -> None:
        if v.uses:
            self.emit(f"{self.name(v)} = {expr};")

    def jump(self, dest: Block, vals: List[Value]) -> str:
        """Assignments of ``dest``'s arguments then the goto, as one C statement."""
        pairs = [(a, v) for a, v in zip(dest.args, vals) if a.uses]
        if not pairs:
            return f"goto {self.labels[dest]};"
        if len(pairs) == 1:
            a, v = pairs[0]
            return f"{{ {self.name(a)} = {self.name(v)}; goto {self.labels[dest]}; }}"
        tmps = " ".join(f"{ctype(a.type)} t{k} = {self.name(v)};" for k, (a, v) in enumerate(pairs))
        sets = " ".join(f"{self.name(a)} = t{k};" for k, (a, _) in enumerate(pairs))
        return f"{{ {tmps} {sets} goto {self.labels[dest]}; }}"

    def lower(self, op: Operation) -> None:
        """Lower one host op through :data:`HOST_LOWERINGS` (``{op name: method}``); other
        ``arith``/``math`` ops become C assignments. CompileError for anything else."""
        fn = HOST_LOWERINGS.get(op.name)
        if fn is not None:
            fn(self, op)
        elif op.dialect in ("arith", "math") and len(op.results) == 1:
            if op.results[0].uses:
                self.assign(op.results[0], c_expression(op).format(*[self.name(x) for x in op.operands]))
        else:
            raise CompileError(f"'{op.name}' cannot be lowered to C in the host program yet", op.loc)

    def _import(self, op: Operation) -> None:
        self.buffer[op.results[0]] = f"input{op.attributes['index'].value}"
        self.base[op.results[0]] = f"(const uint8_t *)input{op.attributes['index'].value}"

    def _result(self, op: Operation) -> None:
        self.buffer[op.results[0]] = f"result{op.attributes['index'].value}"
        self.base[op.results[0]] = f"(uint8_t *)result{op.attributes['index'].value}"

    def _alloca(self, op: Operation) -> None:
        self.buffer[op.results[0]] = "workspace"
        self.base[op.results[0]] = "(uint8_t *)workspace"

    def _constants(self, op: Operation) -> None:
        self.buffer[op.results[0]] = "constants"
        self.base[op.results[0]] = self.target.constants_base(self.module_name)

    def _globals(self, op: Operation) -> None:
        self.buffer[op.results[0]] = "globals"
        self.base[op.results[0]] = self.target.globals_base(self.module_name)

    def _dispatch(self, op: Operation) -> None:
        entry = op.attributes["entry_point"].nested[-1]
        kfn = self.entries[entry]
        btypes = [x.value for x in kfn.attributes["bindings"].value]
        args = [f"({bt} *)({self.base[v]} + {off})"
                for v, off, bt in zip(op.operands, op.attributes["offsets"].value, btypes)]
        accesses = [self.access(v, off, size, mode.value) for v, off, size, mode in zip(
            op.operands, op.attributes["offsets"].value, op.attributes["sizes"].value,
            op.attributes["access"].value)]
        self.call(f"{self.module_name}_{c_ident(entry)}", args + self.target.launch_extra_args(), accesses)

    def _copy(self, op: Operation) -> None:
        src, dst = op.operands
        src_off, dst_off = op.attributes["source_offset"].value, op.attributes["target_offset"].value
        length = op.attributes["length"].value
        self.call(*self.target.host_copy(f"{self.base[dst]} + {dst_off}", f"{self.base[src]} + {src_off}",
                                         str(length)),
                  [self.access(src, src_off, length, "ro"), self.access(dst, dst_off, length, "wo")])

    def _load(self, op: Operation) -> None:
        if not op.results[0].uses:
            return
        et = op.attributes["element_type"].value
        if _is_empty(op):  # an element of an empty tensor: undefined, and nothing to read
            self.assign(op.results[0], c_literal(0, op.results[0].type))
            return
        self.assign(op.results[0], _load_expr(self.address(op, op.operands[0], op.operands[1:]), et, self.target))

    def _store(self, op: Operation) -> None:
        v, res = op.operands[:2]
        et = op.attributes["element_type"].value
        if _is_empty(op):
            return
        self.emit(_store_stmt(self.address(op, res, op.operands[2:]), et, self.name(v), self.target))

    def _constant(self, op: Operation) -> None:
        self.assign(op.results[0], c_literal(op.attributes["value"].value, op.results[0].type))

    def _br(self, op: Operation) -> None:
        self.emit(self.jump(op.successors[0], list(op.operands)))

    def _cond_br(self, op: Operation) -> None:
        seg = list(op.attributes["operandSegmentSizes"].value)
        vals = list(op.operands)
        t_vals, f_vals = vals[1:1 + seg[1]], vals[1 + seg[1]:]
        self.emit(f"if ({self.name(vals[0])}) {self.jump(op.successors[0], t_vals)}")
        self.emit(f"else {self.jump(op.successors[1], f_vals)}")

    def _return(self, op: Operation) -> None:
        self.b.create("emitc.return", [], [], {"value": StringAttr("IREEC_STATUS_OK")})

    def _nothing(self, op: Operation) -> None:
        """Ops with no C (exports are the result pointers; globals live in the state blob)."""


#: How :meth:`_HostLowering.lower` lowers each host op ({op name: method}).
HOST_LOWERINGS = {
    "stream.tensor.import": _HostLowering._import,
    "stream.resource.result": _HostLowering._result,
    "stream.resource.alloca": _HostLowering._alloca,
    "stream.resource.constants": _HostLowering._constants,
    "stream.resource.globals": _HostLowering._globals,
    "hal.command_buffer.dispatch": _HostLowering._dispatch,
    "stream.cmd.copy": _HostLowering._copy,
    "stream.resource.load": _HostLowering._load,
    "stream.resource.store": _HostLowering._store,
    "arith.constant": _HostLowering._constant,
    "cf.br": _HostLowering._br,
    "cf.cond_br": _HostLowering._cond_br,
    "func.return": _HostLowering._return,
    "stream.tensor.export": _HostLowering._nothing,
    "util.global": _HostLowering._nothing,
}


def lower_host_function(f: Operation, module_name: str, entries: Dict[str, Operation],
                        target: Target) -> Operation:
    """The emitc.func of host function ``f`` (after the stream and hal phases) for ``target``;
    ``entries`` maps each dispatch's entry point to its kernel's emitc.func (its bindings'
    C types). CompileError for a host op with no C lowering."""
    return _HostLowering(f, module_name, entries, target).run()
