"""Targets ``c`` (portable, single-threaded) and ``openmp`` (workgroups over threads).

Both render the same Jinja templates (templates/c/): ``<module>.h`` (the C ABI),
``<module>.c`` (host functions, constant pool, reflection table), ``<module>_kernels.h/.c``
(one workgroup function and one launch function per dispatch) and copy
``ireec_runtime.h``. Statements inside functions come from the emitc C printer.
"""
from __future__ import annotations

import importlib.resources
import re
from typing import Dict, List

import jinja2

from ..emitc.c_printer import print_function
from ..emitc.ctypes import storage_ctype
from ..ir import types as T
from ..ir.attributes import ArrayAttr, StringAttr
from ..ir.core import Operation
from ..ir.diagnostics import CompileError
from ..passes.pass_base import PassContext
from ..tools import report as reporting
from .base import Target
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


def runtime_header(name: str = "ireec_runtime.h") -> str:
    """Text of ``runtime_c/<name>``: ``ireec_runtime.h`` is copied next to every generated
    module, ``ireec_ukernel.h`` next to those whose kernels call a micro-kernel."""
    return importlib.resources.files("ireec.runtime_c").joinpath(name).read_text()


def _hex_rows(data: bytes, per_row: int = 24) -> str:
    rows = []
    for i in range(0, len(data), per_row):
        rows.append("  " + ",".join(f"0x{b:02x}" for b in data[i: i + per_row]) + ",")
    return "\n".join(rows)


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
    or ``-march``. No ``-ffast-math``: reassociating reductions would change results.
    :attr:`target_cpu` (``--target-cpu``, IREE's ``--iree-llvmcpu-target-cpu``) adds
    ``-march=native`` for ``host`` or ``-march=<name>``; without it the code is portable and
    kernels carry AVX-512/AVX2/baseline clones chosen at load time (IREEC_KERNEL_CLONES).
    Contractions call the sgemm micro-kernel (:attr:`ukernels`, runtime_c/ireec_ukernel.h).
    """

    name = "c"
    iree_backends = ("llvm-cpu",)
    variant = "embedded_c"
    templates = "c"
    cflags = ("-std=c99", "-O3", "-fno-math-errno", "-fno-trapping-math", "-ffp-contract=fast")
    ldflags: tuple = ()
    ukernels = ("ireec_uk_sgemm",)

    def compile_flags(self) -> List[str]:
        """:attr:`cflags`, with ``-ffp-contract=off`` under :attr:`strict_fp` and ``-march``
        for :attr:`target_cpu` (see the class docstring)."""
        flags = list(self.cflags)
        if self.strict_fp:
            flags = ["-ffp-contract=off" if f == "-ffp-contract=fast" else f for f in flags]
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

    def context(self, common: dict) -> dict:
        """The template context, given the fields every C-family target shares; a subclass
        adds its own values here (templates never test the target's name)."""
        return common

    def render(self, module: Operation, ctx: PassContext) -> Dict[str, str]:
        """File name → text of every generated source (deterministic)."""
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
                    "body": _print_as_static(f, c_name + "_impl"), "args": args, "results": results,
                    "tensors": args + results, "call_args": call_args, "workspace_size": workspace_size,
                    "checks": _argument_checks(pname, args + results, workspace_size, common_macro(mod)),
                    "signature": "(" + ", ".join(str(t) for t in sig.inputs) + ") -> (" + ", ".join(str(t) for t in sig.results) + ")",
                })
        pool = getattr(module, "resources", {}).get("__ireec_constant_pool", b"")[4:]
        state = getattr(module, "resources", {}).get("__ireec_global_state", b"")[4:]

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
                  "constant_pool_size": len(pool), "constant_pool_text": _hex_rows(pool),
                  "global_state_size": len(state), "global_state_text": _hex_rows(state),
                  "preamble": self.kernel_preamble(),
                  "ukernels": any("ireec_uk_" in k["body"] for k in kernels)}
        common = self.context(common)
        files: Dict[str, str] = {}
        for template, file_name in self.file_names(mod).items():
            text = env.get_template(f"{self.templates}/{template}").render(common)
            files[file_name] = _resolve_line_markers(text, file_name)
        files["ireec_runtime.h"] = runtime_header()
        if common.get("ukernels"):
            files["ireec_ukernel.h"] = runtime_header("ireec_ukernel.h")
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


class OpenMPTarget(CTarget):
    """Same kernels as ``c``; each launch function spreads its workgroups over threads with
    ``#pragma omp parallel for`` (collapsed over the axes with more than one workgroup, static
    schedule so results do not depend on timing). Thread count: OpenMP's default, i.e.
    ``OMP_NUM_THREADS``. The pragma is guarded by ``#ifdef _OPENMP``, so the sources also
    build serially (and warning-free) without ``-fopenmp``."""

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
        return ["#ifdef _OPENMP", f"#pragma omp parallel for schedule(static){collapse}", "#endif"]


register_target(CTarget)
register_target(OpenMPTarget)
