"""Targets ``c`` (portable, single-threaded) and ``openmp`` (workgroups over threads).

Both render the same Jinja templates (templates/c/): ``<module>.h`` (the C ABI),
``<module>.c`` (host functions, constant pool, reflection table), ``<module>_kernels.h/.c``
(one workgroup function and one launch function per dispatch) and copy
``ireec_runtime.h``. Statements inside functions come from the emitc C printer.
"""
from __future__ import annotations

import importlib.resources
from typing import TYPE_CHECKING, Dict, List, Optional, Union

import jinja2

from ..emitc.c_printer import print_function
from ..emitc.ctypes import c_ident, storage_ctype
from ..emitc.entry_abi import dynamic_dims_of, padded_dims_of
from ..emitc.openmp import OMP_PRIMARY, omp_pragma
from ..emitc.runtime_headers import UKERNEL_HEADERS, needs_libm, runtime_header
from ..emitc.stack import FRAME_BYTES
from ..ir import types as T
from ..ir.attributes import ArrayAttr, StringAttr
from ..ir.core import Operation
from ..ir.diagnostics import CompileError
from .base import Target, register_target
from .constants import constants_mode, hex_rows, pool_files, template_fields
from .dynamic_entry import dynamic_entry

if TYPE_CHECKING:
    from ..passes.pass_base import PassContext

__all__ = ["CTarget", "OpenMPTarget", "element_type_code", "runtime_header", "common_macro"]

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


def _callees(funcs: List[Operation], kind: str) -> List[str]:
    """The callees of the ``emitc.call_opaque`` ops of the ``emitc.func`` ops of ``kind``
    (``kernel`` or ``host``) among ``funcs``."""
    return [op.attributes["callee"].value for f in funcs if f.attributes["kind"].value == kind
            for op in f.walk() if op.name == "emitc.call_opaque"]


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
    return c_ident(module_name).upper()


class _StaticView:
    """A read-only view of host ``emitc.func`` ``f`` for the C printer, named ``c_name`` and
    ``static``: the attributes the printer reads (a copy, two replaced) and ``f``'s body (not
    copied, not changed)."""

    def __init__(self, f: Operation, c_name: str):
        self.attributes = {**f.attributes, "sym_name": StringAttr(c_name),
                           "specifiers": ArrayAttr((StringAttr("static"),))}
        self.body = f.body


def _print_as_static(f: Operation, c_name: str) -> str:
    """The C text of host function ``f`` as ``static ireec_status_t <c_name>(...)``: the
    body the public entry (templates/c/module.c.j2) calls once its arguments are checked.
    A pure function of the IR: ``f`` keeps its name and specifiers."""
    return print_function(_StaticView(f, c_name))


def _argument_checks(names: List[str], tensors: List[dict], workspace_size: int, macro: str) -> List[str]:
    """C conditions under which an entry point returns IREEC_STATUS_INVALID_ARGUMENT: a
    NULL pointer for a tensor that has bytes, and, when the function needs a workspace, a
    NULL or misaligned one (``<MODULE>_WORKSPACE_ALIGNMENT``, design.md "The generated C")."""
    checks = [f"{n} == NULL" for n, t in zip(names, tensors) if t["byte_size"] > 0]
    if workspace_size > 0:
        checks.append("workspace == NULL")
        checks.append(f"((uintptr_t)workspace % {macro}_WORKSPACE_ALIGNMENT) != 0")
    return checks


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

    #: The host entry stages dimensions padded to a bound (targets/dynamic_entry.py).
    stages_padded_dims = True
    name = "c"
    iree_backends = ("llvm-cpu",)
    variant = "embedded_c"
    templates = "c"
    cflags = ("-std=c99", "-O3", "-fno-math-errno", "-fno-trapping-math", "-ffp-contract=fast")
    ldflags: tuple = ()
    ukernels = ("ireec_uk_sgemm", "ireec_uk_igemm", "ireec_uk_dwconv", "ireec_uk_conv")
    reassociate_fp_reductions = True
    promote_narrow_operands = True
    fuse_padding_into_consumers = True
    #: Flags that let reduction loops vectorize (``IREEC_SIMD_REDUCTION``: OpenMP's ``simd``
    #: pragma alone, no OpenMP runtime), left out under :attr:`strict_fp`.
    reduction_cflags = ("-fopenmp-simd", "-DIREEC_REASSOCIATE_REDUCTIONS")
    #: Whether the constant pool may be a binary file (``--constants=incbin|external``,
    #: ireec/targets/constants.py) rather than C text.
    binary_constants = True
    #: How a ``c-array`` pool is written (ireec/targets/constants.py): integer initializers,
    #: exactly the pool's size (C99's rule for string literals differs from C++'s).
    pool_rows = staticmethod(hex_rows)

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

    def render(self, module: Operation, ctx: "PassContext") -> Dict[str, Union[str, bytes]]:
        """File name → text of every generated source (deterministic), and → bytes of the
        constant pool's ``<m>_constants.bin`` when ``--constants`` (ctx.options
        ``constants``; ireec/targets/constants.py) writes it as a blob. Reads the module
        alone (the emitc IR after the vm phase: each function's arena in
        ``stream.memory_plan``, its stack bound in ``ireec.stack_bytes``) and changes
        nothing; records in ``ctx.report``'s module report the libraries the C needs."""
        env = _env(self.template_root())
        mod = ctx.module_name
        static = ctx.options.get("workspace", "argument") == "static"
        lines = bool(ctx.options.get("emit_line_directives"))
        funcs = [f for f in module.body.ops if f.name == "emitc.func"]
        kernels = [self.kernel_fields(f, mod, lines) for f in funcs if f.attributes["kind"].value == "kernel"]
        functions = [self.function_fields(f, mod, static) for f in funcs if f.attributes["kind"].value != "kernel"]
        for fn in functions:
            fn["body"] = _print_as_static(fn["op"], fn["c_name"] + "_impl")
        pool = memoryview(getattr(module, "resources", {}).get("__ireec_constant_pool", b""))[4:]
        state = getattr(module, "resources", {}).get("__ireec_global_state", b"")[4:]
        mode = constants_mode(ctx.options.get("constants"), len(pool), binary_ok=self.binary_constants)
        code = {"bodies.c": "\n".join([k["body"] for k in kernels] + [fn["body"] for fn in functions])}
        libraries = ["m"] if needs_libm(code) else []
        if "module_report" in ctx.report:
            ctx.report["module_report"]["libraries"] = libraries
        arena = max([fn["arena"] for fn in functions] + [0])
        common = {"module": mod, "MODULE": common_macro(mod), "source": ctx.source_name,
                  "guard": common_macro(mod) + "_H_", "target": self.name, "kernels": kernels,
                  "functions": functions,
                  "workspace_size": max([fn["workspace_size"] for fn in functions] + [0]),
                  "static_workspace": static, "static_workspace_size": arena if static else 0,
                  "stack_size": max([fn["stack_bytes"] for fn in functions] + [0]),
                  "libraries": libraries, "frame_bytes": FRAME_BYTES,
                  **template_fields(mode, pool, self.pool_rows),
                  "global_state_size": len(state), "global_state_text": hex_rows(state),
                  "preamble": self.kernel_preamble(),
                  "ukernels": any(callee.startswith("ireec_uk_") for callee in _callees(funcs, "kernel"))}
        common = self.context(common)
        files: Dict[str, Union[str, bytes]] = {}
        names = dict(self.file_names(mod))
        if mode == "incbin" and len(pool):
            names["constants.S.j2"] = f"{mod}_constants.S"
        for template, file_name in names.items():
            text = env.get_template(f"{self.templates}/{template}").render(common)
            files[file_name] = _resolve_line_markers(text, file_name)
        files.update(pool_files(mode, mod, pool))
        for name in self.runtime_headers(common):
            files[name] = runtime_header(name)
        return files

    def kernel_fields(self, f: Operation, mod: str, lines: bool) -> dict:
        """Template fields of kernel ``emitc.func`` ``f`` of module ``mod``
        (:meth:`kernel_info`, the target's launch prologue and work-shared variant, and the
        ``#line`` directives when ``lines``)."""
        params = [p.value for p in f.attributes["params"].value]
        nb = len(f.attributes["bindings"].value)
        launch = f"{mod}_{f.attributes['launch'].value}"
        names = [p.value for p in f.attributes["param_names"].value]
        k = self.kernel_info(f, launch, params[:nb], names[:nb])
        k["launch_prologue"] = self.launch_prologue(k["grid"])
        k["workshare"] = self.workshare_launch(launch, k["grid"])
        k["line"] = _line_directive(f.loc) if lines else ""
        k["line_back"] = _LINE_BACK if k["line"] else ""
        return k

    def function_fields(self, f: Operation, mod: str, static: bool) -> dict:
        """Template fields of host ``emitc.func`` ``f`` of module ``mod``: its public entry's
        parameters, argument checks and call of ``<c_name>_impl`` (``op``: ``f``, printed
        once every field is known), its arena (``stream.memory_plan``; ``static``: the
        module's static workspace, callers pass none) and stack bound
        (``ireec.stack_bytes``); a dynamic function's entry loops over its slices."""
        sig: T.FunctionType = f.attributes["function_type"].value
        args = [_tensor_info(f"input{i}", t) for i, t in enumerate(sig.inputs)]
        results = [_tensor_info(f"output{j}", t) for j, t in enumerate(sig.results)]
        params = [p.value for p in f.attributes["params"].value]
        ptype = [p.value.strip() for p in f.attributes["param_types"].value]
        pname = [p.value for p in f.attributes["param_names"].value]
        call_args = [f"({ptype[i]})args[{i}]" for i in range(len(args))]
        call_args += [f"({ptype[len(args) + j]})results[{j}]" for j in range(len(results))]
        c_name = f.attributes["sym_name"].value
        plan = f.attributes.get("stream.memory_plan")
        arena = int(plan.as_dict()["arena_bytes"].value) if plan is not None else 0
        workspace_size = 0 if static else arena
        impl_args = list(pname)
        if static:
            params, pname = params[:-1], pname[:-1]
            impl_args[-1] = f"{mod}_workspace" if arena else "NULL"
        else:
            call_args.append("workspace")
        stack = f.attributes.get("ireec.stack_bytes")
        fn = {"mlir_name": f.attributes["mlir_name"].value, "c_name": c_name, "params": params,
              "param_names": pname, "param_types": ptype, "impl_args": impl_args,
              "MACRO": common_macro(c_name), "arena": arena, "op": f, "args": args, "results": results,
              "tensors": args + results, "call_args": call_args, "workspace_size": workspace_size,
              "checks": _argument_checks(pname, args + results, workspace_size, common_macro(mod)),
              "signature": "(" + ", ".join(str(t) for t in sig.inputs) + ") -> (" + ", ".join(str(t) for t in sig.results) + ")",
              "num_dims": 0, "entry_lines": None, "loc": f.loc,
              "stack_bytes": int(stack.value) if stack is not None else 0}
        for t in args + results:
            t["dynamic_dims"] = None
            t["bytes_c"] = str(t["byte_size"])
        if "ireec.padded_dims" in f.attributes and not self.stages_padded_dims:
            raise CompileError(f"@{fn['mlir_name']}: dimensions padded to a bound (--dim-bound) are staged "
                               f"by the host entry of the c and openmp targets; the {self.name} target "
                               f"does not stage them", f.loc)
        if "ireec.dynamic_dims" in f.attributes or "ireec.padded_dims" in f.attributes:
            staging = int(plan.as_dict()["staging_offset"].value) if "ireec.padded_dims" in f.attributes else 0
            dynamic_entry(fn, dynamic_dims_of(f), padded_dims_of(f), staging)
            fn["signature"] = "(" + ", ".join(t["type"] for t in fn["args"]) + ") -> (" + ", ".join(t["type"] for t in fn["results"]) + ")"
        return fn

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


class OpenMPTarget(CTarget):
    """Same kernels as ``c``, workgroups spread over threads.

    Every launch function has a work-shared variant (:meth:`workshare_launch`,
    ``<launch>_workshare``: ``#pragma omp for schedule(static) nowait``, or the primary
    thread alone for a single workgroup); the pass ``ireec-form-openmp-host-regions``
    (ireec/passes/vm/form_openmp_host_regions.py) makes a straight-line host function with
    at least two dispatches of several workgroups run its calls in one ``#pragma omp
    parallel`` region calling those variants, with barriers where byte ranges conflict: one
    fork/join per call instead of one per dispatch, as IREE's task executor keeps its
    workers across the dispatches of a command buffer. A straight-line function whose call
    would not gain from a second thread (``parallel_gain`` of that pass: too little work
    for the team's wake-up and barriers) runs in a team of one (``parallel if(0)``): no
    worker is woken.

    Other host functions call the plain launch functions, each its own ``#pragma omp
    parallel for`` (collapsed over the axes with more than one workgroup). Static schedules
    throughout, so results do not depend on timing. Thread count: OpenMP's default, i.e.
    ``OMP_NUM_THREADS``. How a thread waits at a barrier is libgomp's wait policy
    (``GOMP_SPINCOUNT``, ``OMP_WAIT_POLICY``, read when libgomp loads); ``ireec.load`` gives
    it a short spin when the environment does not say (``ireec.runtime.loader.OPENMP_ENVIRONMENT``,
    README "OpenMP on a busy machine"). A call from inside an active parallel region gets a nested region
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
        return omp_pragma(f"parallel for schedule(static){collapse}")

    def workshare_launch(self, launch: str, grid) -> Optional[dict]:
        """``<launch>_workshare``: the workgroup loops as an orphaned ``omp for ... nowait``
        (a single workgroup on the primary thread: ``omp masked``), called inside a host
        region; ``primary`` says which."""
        collapse = f" collapse({len(grid)})" if len(grid) > 1 else ""
        prologue = omp_pragma(f"for schedule(static){collapse} nowait") if grid else OMP_PRIMARY
        return {"name": f"{launch}_workshare", "prologue": prologue, "primary": not grid}


register_target(CTarget)
register_target(OpenMPTarget)
