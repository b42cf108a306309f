"""Targets ``c`` (portable, single-threaded) and ``openmp`` (workgroups over threads).

Both render the same Jinja templates (templates/c/): ``<module>.h`` (the C ABI),
``<module>.c`` (host functions, constant pool, reflection table), ``<module>_kernels.h/.c``
(one workgroup function and one launch function per dispatch) and copy
``ireec_runtime.h``. Statements inside functions come from the emitc C printer.
"""
from __future__ import annotations

import importlib.resources
import re
from typing import Dict, List, Optional, Tuple, Union

import jinja2

from ..emitc.c_printer import print_function
from ..emitc.ctypes import storage_ctype
from ..ir import types as T
from ..ir.attributes import ArrayAttr, StringAttr
from ..ir.core import Operation
from ..ir.diagnostics import CompileError
from ..passes.input.map_dynamic_dims import dynamic_dims_of
from ..passes.pass_base import PassContext
from ..tools import report as reporting
from .base import Target
from . import constants as pool_output
from . import register_target

# iree_hal_element_type_t numerical types (iree/hal/buffer_view.h): value = (type << 24) | bits.
_NUMERICAL = {"int": 0x10, "sint": 0x11, "uint": 0x12, "bool": 0x13, "float": 0x21, "bfloat": 0x22, "complex": 0x23}


def element_type_code(t: T.Type) -> int:
    """IREE's iree_hal_element_type_t value for a scalar type (e.g. f32 → 0x21000020)."""
    if isinstance(t, T.IntegerType):
        if t.width == 1:
            return (_NUMERICAL["bool"] << 24) | 8
        kind = {"": "int", "s": "sint", "u": "uint"}[t.signedness]
        return (_NUMERICAL[kind] << 24) | t.width
    if isinstance(t, T.FloatType):
        if t.name == "bf16":
            return (_NUMERICAL["bfloat"] << 24) | 16
        return (_NUMERICAL["float"] << 24) | t.width
    if isinstance(t, T.ComplexType):
        return (_NUMERICAL["complex"] << 24) | T.bit_width(t)
    if isinstance(t, T.IndexType):
        return (_NUMERICAL["int"] << 24) | 64
    raise CompileError(f"no IREE element type for {t}")


def _env(root=None) -> jinja2.Environment:
    """The Jinja environment reading templates under ``root`` (default ``ireec/templates``)."""
    root = root if root is not None else importlib.resources.files("ireec.templates")
    return jinja2.Environment(loader=jinja2.FunctionLoader(lambda name: root.joinpath(name).read_text()),
                              undefined=jinja2.StrictUndefined, keep_trailing_newline=True,
                              trim_blocks=False, lstrip_blocks=False, autoescape=False)


#: The runtime_c headers copied next to a module whose kernels call a CPU micro-kernel:
#: ``ireec_ukernel.h`` (what the kernels include) and the family headers it includes.
UKERNEL_HEADERS = ("ireec_ukernel.h", "ireec_ukernel_common.h", "ireec_ukernel_sgemm.h",
                   "ireec_ukernel_dwconv.h")


def runtime_header(name: str = "ireec_runtime.h") -> str:
    """Text of ``runtime_c/<name>``: ``ireec_runtime.h`` is copied next to every generated
    module, :data:`UKERNEL_HEADERS` next to those whose kernels call a micro-kernel (see
    :meth:`CTarget.runtime_headers`)."""
    return importlib.resources.files("ireec.runtime_c").joinpath(name).read_text()


def _tensor_info(name: str, t: T.TensorType) -> dict:
    return {"name": name, "type_name": str(t.element_type), "element_type": f"0x{element_type_code(t.element_type):08X}",
            "rank": t.rank, "shape": list(t.shape), "byte_size": t.num_elements * T.storage_bytes(t.element_type),
            "element_count": t.num_elements, "ctype": storage_ctype(t.element_type), "type": str(t)}


#: Marker the kernels template leaves after a ``#line`` directive into the input; replaced by
#: a ``#line`` directive back to the generated file itself (see :func:`_resolve_line_markers`).
_LINE_BACK = "/*@ireec-line-back@*/"


def _line_directive(loc) -> str:
    """``#line N "file"`` for an op's Location ('' when it has none)."""
    if loc is None or getattr(loc, "line", 0) <= 0:
        return ""
    name = str(loc.file).replace("\\", "\\\\").replace('"', '\\"')
    return f'#line {loc.line} "{name}"'


def _resolve_line_markers(text: str, file_name: str) -> str:
    """Replace each :data:`_LINE_BACK` line of ``text`` by ``#line <next line> "<file_name>"``,
    so what follows a function mapped to the input maps back to the generated file."""
    if _LINE_BACK not in text:
        return text
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if line.strip() == _LINE_BACK:
            lines[i] = f'#line {i + 2} "{file_name}"'
    return "\n".join(lines)


def common_macro(module_name: str) -> str:
    """The upper-case prefix of a module's macros (``MODEL`` in ``MODEL_WORKSPACE_SIZE``)."""
    return re.sub(r"[^A-Za-z0-9]", "_", module_name).upper()


def _print_as_static(f: Operation, c_name: str) -> str:
    """The C text of host function ``f`` as ``static ireec_status_t <c_name>(...)``: the
    body the public entry (templates/c/module.c.j2) calls once its arguments are checked."""
    saved = {k: f.attributes.get(k) for k in ("sym_name", "specifiers")}
    f.attributes["sym_name"] = StringAttr(c_name)
    f.attributes["specifiers"] = ArrayAttr((StringAttr("static"),))
    try:
        return print_function(f)
    finally:
        for k, v in saved.items():
            if v is None:
                del f.attributes[k]
            else:
                f.attributes[k] = v


def _argument_checks(names: List[str], tensors: List[dict], workspace_size: int, macro: str) -> List[str]:
    """C conditions under which an entry point returns IREEC_STATUS_INVALID_ARGUMENT: a
    NULL pointer for a tensor that has bytes, and, when the function needs a workspace, a
    NULL or misaligned one (``<MODULE>_WORKSPACE_ALIGNMENT``, design.md "The generated C")."""
    checks = [f"{n} == NULL" for n, t in zip(names, tensors) if t["byte_size"] > 0]
    if workspace_size > 0:
        checks.append("workspace == NULL")
        checks.append(f"((uintptr_t)workspace % {macro}_WORKSPACE_ALIGNMENT) != 0")
    return checks


def _dynamic_entry(fn: dict, dd: dict) -> None:
    """Turn the entry of function ``fn`` (a template dict) into the loop over its dynamic
    dimensions that ``map-dynamic-dims`` (ireec/passes/input/map_dynamic_dims.py) set up:
    ``dd`` is its ``ireec.dynamic_dims`` (see ``dynamic_dims_of``).

    The public entry takes every dynamic argument dimension as an ``int64_t`` right after
    its tensor and, per result with dynamic dimensions, an ``int64_t *result<j>_shape`` it
    fills (NULL: not wanted). It refuses negative extents, unequal extents of unified
    dimensions and failed shape assertions (INVALID_ARGUMENT), then calls the static slice
    program once per point of the symbols' iteration space (nested loops in symbol order;
    a zero extent calls nothing), each tensor's pointer offset by its linearised index over
    its own symbols times its slice's element count."""
    nargs, nres = len(fn["args"]), len(fn["results"])
    arg_dims = dd["arg_dims"]
    rep: Dict[int, int] = {}  # symbol -> index in arg_dims of the dimension giving it
    for k, (_i, _d, s) in enumerate(arg_dims):
        rep.setdefault(s, k)
    dim_name = [f"input{i}_dim{d}" for i, d, _s in arg_dims]
    sym_val = [f"s{s}" for s in range(len(dd["symbols"]))]
    tensor_syms = dd["args"] + dd["results"]
    for t, syms in zip(fn["args"] + fn["results"], tensor_syms):
        t["symbols"] = syms
        if syms:
            t["shape"] = [-1] * len(syms) + t["shape"][len(syms):]
            t["type"] = "tensor<" + "".join(("?" if x < 0 else str(x)) + "x" for x in t["shape"]) + t["type_name"] + ">"
    index = {(a, d): k for k, (a, d, _s) in enumerate(arg_dims)}
    for i, t in enumerate(fn["args"]):
        t["dynamic_dims"] = [index.get((i, d), -1) for d in range(t["rank"])]
    for t in fn["results"]:
        t["dynamic_dims"] = [rep[s] for s in t["symbols"]] + [-1] * (t["rank"] - len(t["symbols"]))
    for t in fn["args"] + fn["results"]:
        if not t["symbols"]:
            t["dynamic_dims"] = None
    params, names = fn["params"], fn["param_names"]
    new_params: List[str] = []
    new_names: List[str] = []
    checks: List[str] = []
    call_args: List[str] = []
    for i in range(nargs):
        new_params.append(params[i])
        new_names.append(names[i])
        call_args.append(fn["call_args"][i])
        extent = " * ".join(dim_name[rep[s]] for s in fn["args"][i]["symbols"])
        for k, (a, d, s) in enumerate(arg_dims):
            if a == i:
                new_params.append(f"int64_t {dim_name[k]}")
                new_names.append(dim_name[k])
                call_args.append(f"dims[{k}]")
        if fn["args"][i]["byte_size"] > 0:
            checks.append(f"({names[i]} == NULL && {extent} != 0)" if extent else f"{names[i]} == NULL")
    for j in range(nres):
        t = fn["results"][j]
        new_params.append(params[nargs + j])
        new_names.append(names[nargs + j])
        call_args.append(fn["call_args"][nargs + j])
        extent = " * ".join(dim_name[rep[s]] for s in t["symbols"])
        if t["symbols"]:
            new_params.append(f"int64_t *result{j}_shape")
            new_names.append(f"result{j}_shape")
            call_args.append("NULL")
        if t["byte_size"] > 0:
            checks.append(f"({names[nargs + j]} == NULL && {extent} != 0)" if extent else f"{names[nargs + j]} == NULL")
    new_params += params[nargs + nres:]
    new_names += names[nargs + nres:]
    call_args += fn["call_args"][nargs + nres:]
    checks = [f"{n} < 0" for n in dim_name] + [
        f"{dim_name[k]} != {dim_name[rep[s]]}" for k, (_a, _d, s) in enumerate(arg_dims) if rep[s] != k] + [
        f"!({dim_name[rep[s]]} {op} {c})" for s, op, c in dd["checks"]] + checks + [
        c for c in fn["checks"] if "workspace" in c]
    lines = [f"const int64_t {sym_val[s]} = {dim_name[k]};" for s, k in sorted(rep.items())]
    for j, t in enumerate(fn["results"]):
        if t["symbols"]:
            sizes = [sym_val[s] for s in t["symbols"]] + [str(x) for x in t["shape"][len(t["symbols"]):]]
            fill = " ".join(f"result{j}_shape[{d}] = {x};" for d, x in enumerate(sizes))
            lines.append(f"if (result{j}_shape != NULL) {{ {fill} }}")
    nsym = len(dd["symbols"])
    for s in range(nsym):
        lines.append("  " * s + f"for (int64_t i{s} = 0; i{s} < {sym_val[s]}; ++i{s}) {{")
    impl: List[str] = []
    for k, t in enumerate(fn["args"] + fn["results"]):
        name = names[k]
        syms = t["symbols"]
        if not syms:
            impl.append(name)
            continue
        index = f"i{syms[0]}"
        for s in syms[1:]:
            index = f"({index}) * {sym_val[s]} + i{s}"
        scale = f" * {t['element_count']}" if t["element_count"] != 1 else ""
        impl.append(f"{name} + ({index}){scale}")
    impl += fn["impl_args"][nargs + nres:]
    ind = "  " * nsym
    lines.append(ind + f"ireec_status_t status = {fn['c_name']}_impl({', '.join(impl)});")
    lines.append(ind + "if (status != IREEC_STATUS_OK) {")
    lines.append(ind + "  return status;")
    lines.append(ind + "}")
    for s in reversed(range(nsym)):
        lines.append("  " * s + "}")
    for t, syms in zip(fn["args"] + fn["results"], tensor_syms):
        if syms:
            t["bytes_c"] = " * ".join([f"(size_t){dim_name[rep[s]]}" for s in syms] + [str(t["byte_size"])])
    fn.update({"params": new_params, "param_names": new_names, "checks": checks,
               "call_args": call_args, "entry_lines": lines, "num_dims": len(arg_dims),
               "dim_params": [f"int64_t {n}" for n in dim_name], "dim_names": dim_name})


class CTarget(Target):
    """Portable single-threaded C: the workgroups of a dispatch run in a plain loop nest.

    ``cflags`` are the flags ``ireec build`` compiles the generated C with (before
    ``$CFLAGS`` and ``--cflags``, which therefore win): C99, ``-O3`` (GCC's loop
    vectorizer; ``-O2`` in GCC 12 only vectorizes with the "very cheap" cost model),
    ``-fno-math-errno`` (libm calls such as sqrt may become instructions: errno is never
    read by generated code), ``-fno-trapping-math`` (floating-point exceptions are never
    observed, so compares and selects if-convert and loops such as relu or NaN-propagating
    max vectorize; values are unchanged) and ``-ffp-contract=fast`` (a multiply feeding an
    add becomes one fused multiply-add where the CPU has one, as IREE's LLVM backends and
    BLAS libraries do: faster, and each FMA rounds once). :attr:`strict_fp`
    (``--strict-fp``) gives ``-ffp-contract=off`` instead: every float operation is rounded
    as written, so results match numpy's loop order bit for bit and do not depend on the CPU
    or ``-march``. No ``-ffast-math``; only the float reductions of kernels are reassociated
    (summed in SIMD lanes, ``iree-llvmcpu-reassociate-fp-reductions``), not under ``--strict-fp``.
    :attr:`target_cpu` (``--target-cpu``, IREE's ``--iree-llvmcpu-target-cpu``) adds
    ``-march=native`` for ``host`` or ``-march=<name>``; without it the code is portable and
    kernels carry AVX-512/AVX2/baseline clones chosen at load time (IREEC_KERNEL_CLONES).
    Contractions call the sgemm micro-kernel, depthwise convolutions the depthwise one
    (:attr:`ukernels`, runtime_c/ireec_ukernel.h).
    """

    name = "c"
    iree_backends = ("llvm-cpu",)
    variant = "embedded_c"
    templates = "c"
    cflags = ("-std=c99", "-O3", "-fno-math-errno", "-fno-trapping-math", "-ffp-contract=fast")
    ldflags: tuple = ()
    ukernels = ("ireec_uk_sgemm", "ireec_uk_dwconv")
    reassociate_fp_reductions = True
    promote_narrow_operands = True
    fuse_padding_into_consumers = True
    #: Flags that let reduction loops vectorize (``IREEC_SIMD_REDUCTION``: OpenMP's ``simd``
    #: pragma alone, no OpenMP runtime), left out under :attr:`strict_fp`.
    reduction_cflags = ("-fopenmp-simd", "-DIREEC_REASSOCIATE_REDUCTIONS")
    #: Whether the constant pool may be a binary file (``--constants=incbin|external``,
    #: ireec/targets/constants.py) rather than C text.
    binary_constants = True

    def compile_flags(self) -> List[str]:
        """:attr:`cflags`, with ``-ffp-contract=off`` under :attr:`strict_fp` (else the
        :attr:`reduction_cflags`) and ``-march`` for :attr:`target_cpu` (see the class
        docstring)."""
        flags = list(self.cflags)
        if self.strict_fp:
            flags = ["-ffp-contract=off" if f == "-ffp-contract=fast" else f for f in flags]
        else:
            flags += self.reduction_cflags
        if self.target_cpu:
            flags.append("-march=native" if self.target_cpu == "host" else f"-march={self.target_cpu}")
            flags.append("-DIREEC_NO_TARGET_CLONES")  # the CPU is known: one copy of each kernel
        return flags

    def workshare_launch(self, launch: str, grid) -> Optional[dict]:
        """The launch variant that runs inside a host function's parallel region (see
        :meth:`host_function`): ``{"name", "prologue"}``, or None when the target has none."""
        return None

    def host_function(self, f: Operation, kernels: List[dict]) -> Operation:
        """The host ``emitc.func`` to print for ``f`` (``kernels``: the kernels' template
        fields); ``f`` itself on a serial target."""
        return f

    def kernel_preamble(self) -> List[str]:
        """Lines the kernels file has after its includes (macros a target adds)."""
        return []

    def file_names(self, mod: str) -> Dict[str, str]:
        """{template: generated file name} of module ``mod``, in output order."""
        return {"module.h.j2": f"{mod}.h", "module.c.j2": f"{mod}.c",
                "kernels.h.j2": f"{mod}_kernels.h", "kernels.c.j2": f"{mod}_kernels.c"}

    def runtime_headers(self, common: dict) -> List[str]:
        """Names of the runtime_c headers copied next to the generated files, given the
        template context: ``ireec_runtime.h``, and :data:`UKERNEL_HEADERS` when a kernel calls
        a micro-kernel (``common["ukernels"]``)."""
        return ["ireec_runtime.h"] + (list(UKERNEL_HEADERS) if common.get("ukernels") else [])

    def context(self, common: dict) -> dict:
        """The template context, given the fields every C-family target shares; a subclass
        adds its own values here (templates never test the target's name)."""
        return common

    def render(self, module: Operation, ctx: PassContext) -> Dict[str, Union[str, bytes]]:
        """File name → text of every generated source (deterministic), and → bytes of the
        constant pool's ``<m>_constants.bin`` when ``--constants`` (ctx.options
        ``constants``; ireec/targets/constants.py) writes it as a blob."""
        env = _env(self.template_root())
        mod = ctx.module_name
        static = ctx.options.get("workspace", "argument") == "static"
        lines = bool(ctx.options.get("emit_line_directives"))
        kernels: List[dict] = []
        functions: List[dict] = []
        report = ctx.report.get("functions", {})
        for f in module.body.ops:
            if f.name != "emitc.func":
                continue
            if f.attributes["kind"].value == "kernel":
                params = [p.value for p in f.attributes["params"].value]
                nb = len(f.attributes["bindings"].value)
                launch = f"{mod}_{f.attributes['launch'].value}"
                names = [p.value for p in f.attributes["param_names"].value]
                k = self.kernel_info(f, launch, params[:nb], names[:nb])
                k["launch_prologue"] = self.launch_prologue(k["grid"])
                k["workshare"] = self.workshare_launch(launch, k["grid"])
                k["line"] = _line_directive(f.loc) if lines else ""
                k["line_back"] = _LINE_BACK if k["line"] else ""
                kernels.append(k)
            else:
                sig: T.FunctionType = f.attributes["function_type"].value
                name = f.attributes["mlir_name"].value
                args = [_tensor_info(f"input{i}", t) for i, t in enumerate(sig.inputs)]
                results = [_tensor_info(f"output{j}", t) for j, t in enumerate(sig.results)]
                params = [p.value for p in f.attributes["params"].value]
                ptype = [p.value.strip() for p in f.attributes["param_types"].value]
                pname = [p.value for p in f.attributes["param_names"].value]
                call_args = [f"({ptype[i]})args[{i}]" for i in range(len(args))]
                call_args += [f"({ptype[len(args) + j]})results[{j}]" for j in range(len(results))]
                c_name = f.attributes["sym_name"].value
                arena = report.get(name, {}).get("arena_bytes", 0)
                # --workspace=static: the arena is the module's static array; callers pass none.
                workspace_size = 0 if static else arena
                impl_args = list(pname)
                if static:
                    params, pname = params[:-1], pname[:-1]
                    impl_args[-1] = f"{mod}_workspace" if arena else "NULL"
                else:
                    call_args.append("workspace")
                functions.append({
                    "mlir_name": name, "c_name": c_name, "params": params, "param_names": pname,
                    "param_types": ptype,
                    "impl_args": impl_args, "MACRO": common_macro(c_name), "arena": arena,
                    "op": f, "args": args, "results": results,
                    "tensors": args + results, "call_args": call_args, "workspace_size": workspace_size,
                    "checks": _argument_checks(pname, args + results, workspace_size, common_macro(mod)),
                    "signature": "(" + ", ".join(str(t) for t in sig.inputs) + ") -> (" + ", ".join(str(t) for t in sig.results) + ")",
                    "num_dims": 0, "entry_lines": None, "loc": f.loc,
                })
                for t in args + results:
                    t["dynamic_dims"] = None
                    t["bytes_c"] = str(t["byte_size"])
                if "ireec.dynamic_dims" in f.attributes:
                    _dynamic_entry(functions[-1], dynamic_dims_of(f))
                    fn = functions[-1]
                    fn["signature"] = "(" + ", ".join(t["type"] for t in fn["args"]) + ") -> (" + ", ".join(t["type"] for t in fn["results"]) + ")"
        for fn in functions:  # after every kernel: a host function may run them in one region
            fn["body"] = _print_as_static(self.host_function(fn.pop("op"), kernels), fn["c_name"] + "_impl")
        pool = memoryview(getattr(module, "resources", {}).get("__ireec_constant_pool", b""))[4:]
        state = getattr(module, "resources", {}).get("__ireec_global_state", b"")[4:]
        mode = pool_output.constants_mode(ctx.options.get("constants"), len(pool),
                                          binary_ok=self.binary_constants)

        # Memory, stack and work per function (ireec/tools/report.py); budgets are errors.
        code = {"bodies.c": "\n".join([k["body"] for k in kernels] + [fn["body"] for fn in functions])}
        rep = reporting.module_report(module, ctx, code)
        ctx.report["module_report"] = rep
        reporting.check_budgets(rep, ctx.options)
        for fn in functions:
            fn["stack_bytes"] = rep["functions"].get(fn["mlir_name"], {}).get("stack_bytes", 0)

        guard = common_macro(mod) + "_H_"
        arena = max([fn["arena"] for fn in functions] + [0])
        common = {"module": mod, "MODULE": common_macro(mod), "source": ctx.source_name,
                  "guard": guard, "target": self.name, "kernels": kernels, "functions": functions,
                  "workspace_size": max([fn["workspace_size"] for fn in functions] + [0]),
                  "static_workspace": static, "static_workspace_size": arena if static else 0,
                  "stack_size": rep["stack_bytes"], "libraries": rep["libraries"],
                  "frame_bytes": reporting.FRAME_BYTES,
                  **pool_output.template_fields(mode, pool),
                  "global_state_size": len(state), "global_state_text": pool_output.hex_rows(state),
                  "preamble": self.kernel_preamble(),
                  "ukernels": any("ireec_uk_" in k["body"] for k in kernels)}
        common = self.context(common)
        files: Dict[str, Union[str, bytes]] = {}
        names = dict(self.file_names(mod))
        if mode == "incbin" and len(pool):
            names["constants.S.j2"] = f"{mod}_constants.S"
        for template, file_name in names.items():
            text = env.get_template(f"{self.templates}/{template}").render(common)
            files[file_name] = _resolve_line_markers(text, file_name)
        files.update(pool_output.pool_files(mode, mod, pool))
        for name in self.runtime_headers(common):
            files[name] = runtime_header(name)
        return files


    @staticmethod
    def kernel_info(f: Operation, launch: str, binding_params: List[str],
                    binding_names: List[str]) -> dict:
        """Template fields of one kernel: its C body, launch signature and workgroup grid.

        ``grid`` lists the (axis, count) loops the launch function runs, outermost first
        (z, y, x), leaving out axes with a count of 1 (their id is 0); ``id_args`` are the
        workgroup id arguments of the call in x, y, z order.
        """
        wg = [int(c) for c in f.attributes["workgroup_count"].value]
        wg = (wg + [1, 1, 1])[:3]
        if any(c < 1 for c in wg):
            raise CompileError(f"workgroup count {wg} of {launch} must be positive", f.loc)
        grid = [(axis, c) for axis, c in (("z", wg[2]), ("y", wg[1]), ("x", wg[0])) if c > 1]
        size = f.attributes.get("workgroup_size")
        return {"entry": f.attributes["launch"].value, "launch": launch, "body": print_function(f),
                "workgroup_size": int(size.value) if size is not None else 1,
                "binding_params": binding_params or ["void"],
                "binding_args": list(binding_names),
                "workgroup_count": wg, "grid": grid,
                "id_args": [axis if c > 1 else "0" for axis, c in zip("xyz", wg)]}


#: A host statement that only marks a parameter used: ``(void)input0;``.
_VOID_USE = re.compile(r"^\(void\)\w+;$")
#: The host function's final ``return IREEC_STATUS_OK;`` (printed verbatim).
_RETURN = re.compile(r"^return \w+;$")


def _access_ranges(op: Operation) -> Optional[List[Tuple[str, int, int, bool]]]:
    """(buffer, first byte, end byte, writes) of each range the host call ``op`` touches,
    from its ``accesses`` attribute (passes/vm/host_to_emitc.py); None without one."""
    acc = op.attributes.get("accesses")
    if acc is None:
        return None
    ranges = []
    for a in acc.value:
        base, off, size, mode = a.value.rsplit("|", 3)
        ranges.append((base, int(off), int(off) + int(size), mode != "ro"))
    return ranges


def _conflict(pending: List[Tuple[str, int, int, bool]], ranges: List[Tuple[str, int, int, bool]]) -> bool:
    """Whether ``ranges`` overlap a range of ``pending`` in the same buffer with at least one
    of the two writing (read after write, write after read or write after write)."""
    return any(b == pb and s < pe and ps < e and (w or pw)
               for b, s, e, w in ranges for pb, ps, pe, pw in pending)


def _barriers(items: List[Tuple[List[Tuple[str, int, int, bool]], bool]]) -> List[bool]:
    """Where a host region needs ``omp barrier``: for each call (its byte ranges, and
    whether it runs on the primary thread alone rather than shared by all threads), whether
    a barrier goes before it. A call waits for what earlier calls since the last barrier
    touched (:func:`_conflict`), except that a primary-thread call never waits for earlier
    primary-thread calls: the same thread ran them in program order."""
    shared: List[Tuple[str, int, int, bool]] = []   # ranges of work-shared calls since the barrier
    primary: List[Tuple[str, int, int, bool]] = []  # ranges of primary-thread calls since the barrier
    out = []
    for ranges, on_primary in items:
        wait = _conflict(shared, ranges) or (not on_primary and _conflict(primary, ranges))
        if wait:
            shared, primary = [], []
        out.append(wait)
        (primary if on_primary else shared).extend(ranges)
    return out


def _omp(line: str) -> List[str]:
    """``#pragma omp <line>`` guarded by ``#ifdef _OPENMP`` (serial builds ignore it warning-free)."""
    return ["#ifdef _OPENMP", f"#pragma omp {line}", "#endif"]


#: The next statement runs on the region's primary thread only, with no barrier: ``omp
#: masked`` (OpenMP 5.1), ``omp master`` before it.
_OMP_PRIMARY = ["#if defined(_OPENMP) && _OPENMP >= 202011", "#pragma omp masked",
                "#elif defined(_OPENMP)", "#pragma omp master", "#endif"]


class OpenMPTarget(CTarget):
    """Same kernels as ``c``, workgroups spread over threads.

    A host function whose body is straight-line (dispatches and buffer copies, no host
    scalars, branches or loops) with at least two dispatches of several workgroups (each of
    which would fork and join on its own) opens one parallel region per
    call (``#pragma omp parallel``) and runs each dispatch's workgroups as a work-shared loop
    inside it (the ``<launch>_workshare`` variant: ``#pragma omp for schedule(static)
    nowait``); a dispatch of a single workgroup and a buffer copy run on the primary thread
    (``omp masked``, no barrier). A ``#pragma omp barrier`` goes before a call whose byte
    ranges overlap a range an earlier call since the last barrier writes, or write one it
    reads (the ranges of ``hal.command_buffer.dispatch``, kept on the call by
    host_to_emitc), unless both run on the primary thread (:func:`_barriers`); the region's
    end is the last barrier. One fork/join per call instead of one per dispatch, as IREE's task
    executor keeps its workers across the dispatches of a command buffer.

    Other host functions call the plain launch functions, each its own ``#pragma omp
    parallel for`` (collapsed over the axes with more than one workgroup). Static schedules
    throughout, so results do not depend on timing. Thread count: OpenMP's default, i.e.
    ``OMP_NUM_THREADS``. A call from inside an active parallel region gets a nested region
    (one thread unless nesting is enabled), so work-shared loops bind to it, never to the
    caller's team. Pragmas are guarded by ``#ifdef _OPENMP``: the sources also build serially
    (and warning-free) without ``-fopenmp``."""

    name = "openmp"
    iree_backends = ()
    variant = "embedded_c_openmp"
    concurrent_workgroups = True
    cflags = CTarget.cflags + ("-fopenmp",)
    ldflags = ("-fopenmp",)

    def launch_prologue(self, grid):
        """``#pragma omp parallel for`` over the workgroup loops (collapsed when nested),
        guarded by ``#ifdef _OPENMP``."""
        collapse = f" collapse({len(grid)})" if len(grid) > 1 else ""
        return _omp(f"parallel for schedule(static){collapse}")

    def workshare_launch(self, launch: str, grid) -> Optional[dict]:
        """``<launch>_workshare``: the workgroup loops as an orphaned ``omp for ... nowait``
        (a single workgroup on the primary thread: ``omp masked``), called inside a host
        region; ``primary`` says which."""
        collapse = f" collapse({len(grid)})" if len(grid) > 1 else ""
        prologue = _omp(f"for schedule(static){collapse} nowait") if grid else _OMP_PRIMARY
        return {"name": f"{launch}_workshare", "prologue": prologue, "primary": not grid}

    def host_function(self, f: Operation, kernels: List[dict]) -> Operation:
        """A copy of ``f`` running its calls in one parallel region (see the class), or
        ``f`` itself when its body is not straight-line or has fewer than two dispatches of
        several workgroups."""
        workshare = {k["launch"]: k["workshare"]["name"] for k in kernels if k.get("workshare")}
        blocks = f.regions[0].blocks
        if len(blocks) != 1:
            return f
        prelude, items, ret = [], [], None
        for op in blocks[0].ops:
            if op.name == "emitc.verbatim" and _VOID_USE.match(op.attributes["value"].value) and not items:
                prelude.append(op)
            elif op.name == "emitc.call_opaque" and ret is None and _access_ranges(op) is not None:
                items.append(op)
            elif ret is None and (op.name == "emitc.return" or (
                    op.name == "emitc.verbatim" and _RETURN.match(op.attributes["value"].value))):
                ret = op
            else:
                return f
        # The region replaces the fork/join of each dispatch of several workgroups; with
        # fewer than two of them it saves none.
        shared = {k["launch"] for k in kernels if k.get("workshare") and not k["workshare"]["primary"]}
        if ret is None or sum(1 for op in items if op.attributes["callee"].value in shared) < 2:
            return f
        g = f.clone()
        body = g.regions[0].blocks[0]
        ops = list(body.ops)
        n_pre = len(prelude)
        new_prelude, new_items, new_ret = ops[:n_pre], ops[n_pre:n_pre + len(items)], ops[-1]

        def verbatim(line: str) -> Operation:
            return Operation("emitc.verbatim", attributes={"value": StringAttr(line)}, loc=f.loc)

        out: List[Operation] = list(new_prelude)
        out += [verbatim(x) for x in _omp("parallel")] + [verbatim("{")]
        primary = {k["workshare"]["name"] for k in kernels if k.get("workshare") and k["workshare"]["primary"]}
        plan = []
        for op in new_items:
            callee = op.attributes["callee"].value
            if callee in workshare:
                op.attributes["callee"] = StringAttr(workshare[callee])
            plan.append((_access_ranges(op), callee not in workshare or workshare[callee] in primary))
        for op, (_ranges, on_primary), wait in zip(new_items, plan, _barriers(plan)):
            if wait:
                out += [verbatim(x) for x in _omp("barrier")]
            if on_primary and op.attributes["callee"].value not in primary:  # host work (a copy)
                out += [verbatim(x) for x in _OMP_PRIMARY]
            out.append(op)
        out += [verbatim("}"), new_ret]
        for op in ops:
            op.detach()
        for op in out:
            body.append(op)
        return g


register_target(CTarget)
register_target(OpenMPTarget)
