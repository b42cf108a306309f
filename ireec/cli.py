"""The ``ireec`` command: compile, build and run, with IREE's flag spellings.

    ireec compile model.mlir --output-format=vm-c -o out/      # C sources
    ireec compile model.mlir --compile-to=flow                  # IR after a phase
    ireec build model.mlir -o libmodel.so [--target=openmp]
    ireec run-module --module=libmodel.so --function=abs --input=f32=-2
    ireec opt model.mlir --pass-pipeline=canonicalize,iree-stream-schedule-allocation

``run-module`` prints what ``iree-run-module`` prints (``EXEC @abs``,
``result[0]: hal.buffer_view``, ``f32=2``). User errors print ``error: ...`` (or, for
errors in the MLIR input, ``file:line:col: error: ...`` with the source line and a caret)
on stderr and exit with 1; never a Python traceback (set ``IREEC_DEBUG=1`` to see one for
internal errors).
"""
from __future__ import annotations

import argparse
import gc
import os
import shlex
import subprocess
import sys
import traceback
from pathlib import Path
from typing import Dict, Optional, Sequence

from . import __version__

PHASES = ("input", "abi", "flow", "stream", "hal", "vm", "end")
# Phases whose printed IR `--compile-from` resumes from (ireec.compiler.RESUMABLE_PHASES).
RESUMABLE_PHASES = PHASES[:-1]


def _target_choices():
    """``--target`` spellings: the registered targets (ireec.targets), then IREE backend names."""
    from .targets import target_choices

    return target_choices()


def _iree_backends():
    """{--iree-hal-target-backends value: ireec target} of the registered targets."""
    from .targets import iree_backends

    return iree_backends()
# --device values accepted (and ignored: the library runs where it was built for).
DEVICES = ("local-task", "local-sync", "cuda")


class UserError(Exception):
    """A mistake on the command line or in the inputs: printed as ``error: <message>``."""


class _UsageError(UserError):
    pass


class _Parser(argparse.ArgumentParser):
    """argparse that raises instead of printing usage and exiting with 2."""

    def error(self, message):  # noqa: D401 - argparse API
        raise _UsageError(f"{message} (see '{self.prog} --help')")


# ---------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------

def _err(msg: str) -> None:
    sys.stderr.write(msg.rstrip("\n") + "\n")
    sys.stderr.flush()


def _resolve_target(args) -> str:
    target = args.target
    backends = getattr(args, "iree_hal_target_backends", None)
    if backends:
        mapped = set()
        for b in backends.split(","):
            b = b.strip()
            backends_map = _iree_backends()
            if b not in backends_map:
                raise UserError(f"unsupported --iree-hal-target-backends={b} "
                                f"(ireec supports: {', '.join(backends_map)})")
            mapped.add(backends_map[b])
        if len(mapped) != 1:
            raise UserError("ireec builds for one target backend at a time")
        (t,) = mapped
        if target and target != t:
            raise UserError(f"--target={target} contradicts --iree-hal-target-backends={backends}")
        target = t
    target = target or "c"
    return _iree_backends().get(target, target) if target not in _target_names() else target


def _target_names():
    from .targets import target_names

    return target_names()


def _check_readable(path: str, what: str = "input file") -> str:
    if path == "-":
        raise UserError(f"reading the {what} from stdin is not supported; give a file name")
    if not os.path.exists(path):
        raise UserError(f"cannot open {what} '{path}': No such file or directory")
    if os.path.isdir(path):
        raise UserError(f"cannot open {what} '{path}': Is a directory")
    if not os.access(path, os.R_OK):
        raise UserError(f"cannot open {what} '{path}': Permission denied")
    return path


def _compile(args, compile_to: str):
    """Run ireec.compiler on args.file; returns its CompileOutput."""
    path = _check_readable(args.file)
    target = _configured_target(args)
    from .compiler import compile_file

    opts: Dict[str, object] = {"target": target, "compile_to": compile_to}
    if getattr(args, "module_name", None):
        opts["module_name"] = args.module_name
    if getattr(args, "compile_from", None):
        opts["compile_from"] = args.compile_from
    if getattr(args, "dump_compilation_phases_to", None):
        opts["dump_phases_to"] = args.dump_compilation_phases_to
    if getattr(args, "verify_each", False):
        opts["verify_each"] = True
    opts["options"] = _firmware_options(args)
    if getattr(args, "mlir_print_ir_after_all", False):
        opts["print_ir_after_all"] = True
        opts["ir_sink"] = lambda text: (sys.stderr.write(text.rstrip("\n") + "\n\n"),
                                        sys.stderr.flush())
    out = compile_file(path, **opts)
    if getattr(args, "print_memory_plan", False):
        _print_memory_plan(out)
    return out


def _firmware_options(args) -> Dict[str, object]:
    """Target options of the firmware flags (--workspace, --max-*-bytes,
    --emit-line-directives) for PassContext.options."""
    opts: Dict[str, object] = {"workspace": getattr(args, "workspace", None) or "argument"}
    for key in ("max_workspace_bytes", "max_stack_bytes", "max_constant_bytes"):
        value = getattr(args, key, None)
        if value is not None:
            if value < 0:
                raise UserError(f"--{key.replace('_', '-')}={value}: must not be negative")
            opts[key] = value
    if getattr(args, "emit_line_directives", False):
        opts["emit_line_directives"] = True
    if getattr(args, "constants", None):
        opts["constants"] = args.constants
    bounds = _dim_bounds(getattr(args, "dim_bound", None) or ())
    if bounds:
        opts["dim_bounds"] = bounds
    return opts


def _dim_bounds(specs) -> Dict[str, int]:
    """``--dim-bound NAME=N`` flags as {NAME: N}; UserError for a malformed one."""
    out: Dict[str, int] = {}
    for spec in specs:
        name, eq, value = spec.partition("=")
        if not eq or not name.strip() or not value.strip().isdigit():
            raise UserError(f"--dim-bound {spec}: expected NAME=N with N a non-negative integer "
                            f"(NAME: a JAX dimension variable such as s, or input0_dim1)")
        out[name.strip()] = int(value)
    return out


def _write_reports(out, args, files=None, cflags=()) -> None:
    """Write each ``--report=FILE`` (JSON, text or SVG by its extension or --report-format;
    ``-`` prints the text table to stderr). With ``files`` (a build) or ``--report-cc``,
    code sizes are measured by compiling the sources at -Os with ``--report-cc``, else
    ``$CC`` (default cc)."""
    from .tools import report as reporting

    targets = getattr(args, "report", None) or []
    if not targets:
        return
    rep = out.report.get("module_report") if out.files else None  # a report of generated C
    if rep is None:
        raise UserError("--report needs the C output (no report for --compile-to)")
    size_cc = shlex.split(getattr(args, "report_cc", None) or "")
    if files is None and size_cc:
        files = out.files
    if files is not None:
        cc = size_cc or shlex.split(os.environ.get("CC", "cc"))
        flags = [f for f in cflags if not f.startswith("-O")]
        try:
            reporting.add_code_sizes(rep, reporting.code_sizes(files, cc, flags))
        except (OSError, subprocess.CalledProcessError) as e:
            _err(f"warning: code sizes not measured: {e}")
    for path in targets:
        fmt = getattr(args, "report_format", None)
        if fmt is None:
            fmt = {".json": "json", ".svg": "svg"}.get(Path(path).suffix.lower(), "text")
        text = {"json": reporting.to_json, "text": reporting.to_text, "svg": reporting.to_svg}[fmt](rep)
        if path == "-":
            _err(text)
        else:
            _write_text(path, text)


def _print_memory_plan(out) -> None:
    """One stderr line per function: the static plan's arena and its bounds (bytes)."""
    for name, plan in sorted(out.report.get("functions", {}).items()):
        count = f" {plan['transients']}" if "transients" in plan else ""
        dyn = plan.get("dynamic_dims", 0)
        worst = (f"; worst case for every extent of its {dyn} dynamic dimension{'s' * (dyn != 1)}: "
                 f"the entry loops over one static slice" if dyn else "")
        _err(f"@{name}: workspace arena {plan['arena_bytes']} B (lower bound {plan['lower_bound_bytes']} B, "
             f"sum of{count} transients {plan['transient_sum_bytes']} B{worst})")
    if "constant_pool_bytes" in out.report:
        _err(f"constants: {out.report['constant_pool_bytes']} B pooled read-only")


def _write_text(path: str, text: str) -> None:
    if path == "-":
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    try:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    except OSError as e:
        raise UserError(f"cannot write '{path}': {e.strerror or e}") from None


# ---------------------------------------------------------------------------
# ireec compile
# ---------------------------------------------------------------------------

def _add_compile_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", metavar="FILE", help="MLIR input (StableHLO, TOSA or linalg)")
    p.add_argument("--target", choices=_target_choices(), default=None,
                   help="code generation target (default: c)")
    p.add_argument("--iree-hal-target-backends", dest="iree_hal_target_backends",
                   metavar="BACKEND", help="IREE spelling of the target: llvm-cpu (= c) or cuda")
    p.add_argument("--module-name", dest="module_name", metavar="NAME",
                   help="C prefix of the module (default: from the file name)")
    _add_verify_each(p)
    _add_fp_options(p)
    p.add_argument("--print-memory-plan", dest="print_memory_plan", action="store_true",
                   help="print each function's workspace arena, its lower bound and the sum of "
                        "its transients (bytes) to stderr")
    _add_firmware_options(p)
    p.add_argument("--dim-bound", dest="dim_bound", action="append", metavar="NAME=N",
                   help="upper bound of a dynamic dimension (NAME: a JAX dimension variable, or "
                        "input<I>_dim<D>); a dimension the slice map cannot handle (one an "
                        "attention reduces over) is compiled padded to its bound, with one static "
                        "memory plan, and calls beyond it are refused")
    p.add_argument("--compile-from", dest="compile_from", choices=RESUMABLE_PHASES,
                   metavar="PHASE",
                   help="FILE is the IR printed after PHASE (--compile-to or "
                        "--dump-compilation-phases-to); resume with the next phase "
                        f"({'|'.join(RESUMABLE_PHASES)})")


def _add_firmware_options(p: argparse.ArgumentParser) -> None:
    """Flags for microcontroller builds: static workspace, memory budgets, #line, reports."""
    g = p.add_argument_group("firmware")
    g.add_argument("--workspace", choices=("argument", "static"), default=None,
                   help="where the workspace arena lives: passed by the caller (argument, the "
                        "default) or a static array of the module in .bss (static: the entry "
                        "points take no workspace and are not reentrant)")
    g.add_argument("--max-workspace-bytes", dest="max_workspace_bytes", type=int, metavar="N",
                   help="error when a function's workspace arena exceeds N bytes (names the "
                        "tensors live at the peak)")
    g.add_argument("--max-stack-bytes", dest="max_stack_bytes", type=int, metavar="N",
                   help="smaller packed tiles to fit, then an error when a call's stack bound "
                        "exceeds N bytes")
    g.add_argument("--max-constant-bytes", dest="max_constant_bytes", type=int, metavar="N",
                   help="error when the module's constants exceed N bytes")
    g.add_argument("--constants", choices=("auto", "c-array", "incbin", "external"), default=None,
                   help="how the weights and other constants reach the code: a C array in "
                        "<m>.c (c-array), <m>_constants.bin pulled in by the assembler through "
                        "<m>_constants.S (incbin), or left out and passed by the caller to "
                        "<m>_set_constants() (external; ireec build writes LIB's .bin beside it "
                        "and ireec.load maps it); auto (default): c-array up to 64 KiB, else incbin")
    g.add_argument("--emit-line-directives", dest="emit_line_directives", action="store_true",
                   help="#line directives pointing each kernel at its dispatch's root op in the input")
    g.add_argument("--report", action="append", metavar="FILE",
                   help="write the compile report (per function and dispatch: FLOPs, bytes moved, "
                        "constants, arena, stack; code size with build): FILE.json, FILE.svg (the "
                        "memory plan), any other name a text table; - prints the table to stderr")
    g.add_argument("--report-format", dest="report_format", choices=("json", "text", "svg"),
                   help="format of every --report file (default: by its extension)")
    g.add_argument("--report-cc", dest="report_cc", metavar="CC",
                   help='compiler and flags the report measures code size with (e.g. '
                        '"arm-none-eabi-gcc -mcpu=cortex-m4 -mthumb"; also for ireec compile); '
                        "default for ireec build: $CC or cc")


def _add_fp_options(p: argparse.ArgumentParser) -> None:
    """``--strict-fp`` and ``--target-cpu``: how the generated C is compiled (Target.configure)."""
    p.add_argument("--strict-fp", dest="strict_fp", action="store_true", default=None,
                   help="no contraction into fused multiply-add (-ffp-contract=off, nvcc "
                        "-fmad=false): every float operation rounds as written, results are "
                        "bit-identical across targets and CPUs (default: FMA on). A build "
                        "option: sources written by `compile` are the same either way")
    p.add_argument("--target-cpu", "--iree-llvmcpu-target-cpu", dest="target_cpu", metavar="CPU",
                   help="CPU the C targets compile for: host (-march=native) or a -march name; "
                        "default: portable code with AVX-512/AVX2/baseline clones chosen at load "
                        "time (a build option, like --strict-fp)")


def _configured_target(args):
    """The Target object of ``args`` (--target / --iree-hal-target-backends) with the
    command line's build options applied (--strict-fp, --target-cpu, --cuda-arch)."""
    from .targets import get_target

    return get_target(_resolve_target(args)).configure(
        cuda_arch=getattr(args, "cuda_arch", None), strict_fp=getattr(args, "strict_fp", None),
        target_cpu=getattr(args, "target_cpu", None))


def _add_verify_each(p: argparse.ArgumentParser) -> None:
    p.add_argument("--verify-each", dest="verify_each", action="store_true",
                   help="verify the IR after every pass, not only after parsing (like "
                        "mlir-opt's -verify-each; also on with IREEC_VERIFY_EACH=1)")


def _cmd_compile(args) -> int:
    from .runtime.build import BuildError, write_generated_files

    fmt = args.output_format
    compile_to = args.compile_to or "end"
    if fmt == "vm-asm" and compile_to == "end":
        compile_to = "vm"  # the VM-level IR, printed as MLIR
    _resolve_target(args)  # flag errors first, then the input, then the output
    _check_readable(args.file)
    if compile_to == "end":  # check the output before spending time compiling
        if not args.output or args.output == "-":
            raise UserError("--output-format=vm-c writes several files: give a directory "
                            "with -o DIR (or --compile-to=PHASE to print IR)")
        if os.path.exists(args.output) and not os.path.isdir(args.output):
            raise UserError(f"-o {args.output}: exists and is not a directory")
    if getattr(args, "report", None) and compile_to != "end":
        raise UserError("--report describes the generated C: it cannot be combined with "
                        f"--compile-to={compile_to}")
    out = _compile(args, compile_to)
    if compile_to != "end":
        _write_text(args.output or "-", out.ir_text or "")
        return 0
    directory = Path(args.output)
    try:
        directory.mkdir(parents=True, exist_ok=True)
        # Only the files ireec generates are (over)written; anything else in DIR stays.
        write_generated_files(dict(sorted(out.files.items())), directory)
    except OSError as e:
        raise UserError(f"cannot write into '{args.output}': {e.strerror or e}") from None
    except BuildError as e:
        raise UserError(str(e)) from None
    _write_reports(out, args)
    return 0


# ---------------------------------------------------------------------------
# ireec build
# ---------------------------------------------------------------------------

def _cmd_build(args) -> int:
    from .runtime.build import build_shared_library

    if args.output and os.path.isdir(args.output):
        raise UserError(f"-o {args.output}: is a directory; give the library's file name")
    out = _compile(args, "end")
    # The IR is cyclic garbage now (the compile pauses the collector): free it, weights
    # included, before the C compiler and the linker run beside this process.
    gc.collect()
    target = _configured_target(args)
    lib = args.output or f"lib{out.module_name}.so"
    try:
        build_shared_library(out.files, out.module_name, lib, target=target,
                             extra_cflags=shlex.split(args.cflags or ""))
    except OSError as e:
        raise UserError(f"cannot write '{lib}': {e.strerror or e}") from None
    _write_reports(out, args, out.files, shlex.split(args.cflags or ""))
    return 0


# ---------------------------------------------------------------------------
# ireec run-module
# ---------------------------------------------------------------------------

def _cmd_run_module(args) -> int:
    from .runtime import io_format
    from .runtime.loader import load

    for device in args.device or []:
        if not any(device == d or device.startswith(d + ":") for d in DEVICES):
            raise UserError(f"unsupported --device={device} (ireec accepts {', '.join(DEVICES)}; "
                            "the library runs on the target it was built for)")
    modules = args.module or []
    if not modules:
        raise UserError("no module specified; use --module=libmodel.so (built by `ireec build`)")
    if len(modules) > 1:
        raise UserError("ireec run-module takes one --module= (a library holds the whole program)")
    path = _check_readable(modules[0], "module")
    constants = _check_readable(args.constants, "constants file") if args.constants else None
    try:
        module = load(path, constants)
    except (OSError, ValueError, RuntimeError) as e:
        raise UserError(str(e)) from None

    fn = args.function
    if not fn:
        if len(module.functions) != 1:
            raise UserError(f"no --function= given and module '{module.name}' exports "
                            f"{len(module.functions)} functions: {', '.join(module.functions)}")
        fn = module.functions[0]
    fn = fn[1:] if fn.startswith("@") else fn
    try:
        info = module.info(fn)
    except KeyError as e:
        raise UserError(e.args[0]) from None

    inputs = io_format.parse_inputs(args.input or [])
    if len(inputs) != len(info.args):
        raise UserError(f"@{fn} takes {len(info.args)} input{'s' * (len(info.args) != 1)} "
                        f"{info.signature}, got {len(inputs)} --input= value"
                        f"{'s' * (len(inputs) != 1)}")
    max_count = args.output_max_element_count
    sys.stdout.write(f"EXEC @{fn}\n")
    sys.stdout.flush()
    try:
        result = module.call(fn, *inputs)
    except (TypeError, ValueError, RuntimeError) as e:
        raise UserError(str(e)) from None
    results = [] if result is None else (list(result) if isinstance(result, tuple) else [result])
    type_names = [t.element_type_name for t in info.results]
    if args.output:
        io_format.write_outputs(results, type_names, args.output, sys.stdout,
                                max_element_count=max_count)
    else:
        text = io_format.format_invocation(fn, results, type_names, max_element_count=max_count)
        sys.stdout.write(text.split("\n", 1)[1])  # the EXEC line is already out
    sys.stdout.flush()
    return 0


def _cmd_check(args) -> int:
    from .compiler import read_source
    from .tools import check

    read_source(_check_readable(args.input))  # the same errors as compile and build
    if args.verify_each:  # the compile calls of the checker read it (compiler.verify_each_default)
        os.environ["IREEC_VERIFY_EACH"] = "1"
    return check.main(args.input, target=_configured_target(args))


# ---------------------------------------------------------------------------
# ireec opt
# ---------------------------------------------------------------------------

def _cmd_opt(args) -> int:
    from .passes.registry import PassPipelineError
    from .tools import opt

    if args.list_passes:
        sys.stdout.write("Passes (name: what it does), in pipeline order:\n" + opt.list_passes())
        return 0
    if not args.file:
        raise _UsageError("no input file given (see 'ireec opt --help')")
    if not args.pass_pipeline:
        raise _UsageError("no passes given: use --pass-pipeline=name1,name2 "
                          "(see 'ireec opt --list-passes')")
    try:
        from .passes.registry import parse_pass_pipeline

        parse_pass_pipeline(args.pass_pipeline)  # unknown names before the input's errors
        text = opt.opt_file(_check_readable(args.file), args.pass_pipeline, target=args.target,
                            generic=args.mlir_print_op_generic, split_input_file=args.split_input_file,
                            verify_diagnostics=args.verify_diagnostics,
                            options={"dim_bounds": _dim_bounds(args.dim_bound or ())})
    except PassPipelineError as e:
        raise UserError(str(e)) from None
    _write_text(args.output or "-", text)
    return 0


# ---------------------------------------------------------------------------
# ireec benchmark-module
# ---------------------------------------------------------------------------

def _cmd_benchmark_module(args) -> int:
    from .tools.benchmark import BenchmarkError, run_cli

    try:
        return run_cli(args, sys.stdout, sys.stderr)
    except BenchmarkError as e:
        raise UserError(str(e)) from None


# ---------------------------------------------------------------------------
# parser
# ---------------------------------------------------------------------------

def _add_compile_command(sub) -> None:
    """``ireec compile``: MLIR to C sources (or to the IR after a phase)."""
    p = sub.add_parser("compile", help="compile MLIR to C sources, or to IR after a phase",
                       allow_abbrev=False)
    _add_compile_options(p)
    p.add_argument("-o", "--output", metavar="OUT",
                   help="output directory for vm-c; output file for --compile-to (default stdout)")
    p.add_argument("--output-format", dest="output_format", default="vm-c",
                   choices=("vm-c", "vm-asm"),
                   help="vm-c: C sources (default); vm-asm: the IR at the vm phase")
    p.add_argument("--compile-to", dest="compile_to", choices=PHASES, metavar="PHASE",
                   help=f"stop after a phase and print its IR ({'|'.join(PHASES)})")
    p.add_argument("--dump-compilation-phases-to", dest="dump_compilation_phases_to",
                   metavar="DIR", help="write the IR after every phase into DIR")
    p.add_argument("--mlir-print-ir-after-all", dest="mlir_print_ir_after_all",
                   action="store_true", help="print the IR after every pass to stderr")
    p.set_defaults(handler=_cmd_compile)


def _add_build_command(sub) -> None:
    """``ireec build``: MLIR to a shared library."""
    p = sub.add_parser("build", help="compile MLIR into a shared library", allow_abbrev=False)
    _add_compile_options(p)
    p.add_argument("-o", "--output", metavar="LIB",
                   help="shared library to write (default lib<module>.so)")
    p.add_argument("--cflags", metavar="FLAGS",
                   help='extra C compiler flags, after the defaults (e.g. "-O2 -march=native")')
    p.add_argument("--cuda-arch", dest="cuda_arch", metavar="ARCH",
                   help="nvcc -arch for --target=cuda (default: native when a GPU is visible, "
                        "else sm_90, with PTX)")
    p.set_defaults(handler=_cmd_build)


def _add_run_module_command(sub) -> None:
    """``ireec run-module``: run one function of a built library."""
    p = sub.add_parser("run-module", help="run one function of a built library, "
                                          "like iree-run-module", allow_abbrev=False)
    p.add_argument("--module", action="append", metavar="LIB",
                   help="shared library built by `ireec build`")
    p.add_argument("--function", metavar="NAME",
                   help="function to run (default: the only one)")
    p.add_argument("--input", action="append", metavar="SPEC",
                   help='an input: "4xf32=1 2 3 4", "2x2xi32=[[1 2][3 4]]", "f32=-2", '
                        '"3x5xf32=1" (splat), @x.npy, 4xf32=@raw.bin; one per argument')
    p.add_argument("--output", action="append", metavar="SPEC",
                   help="per result: '' (ignore), - (print), @f.npy / +f.npy, @f.bin / +f.bin")
    p.add_argument("--output_max_element_count", "--output-max-element-count",
                   "--print_max_element_count", "--print-max-element-count",
                   dest="output_max_element_count", type=int, default=1024, metavar="N",
                   help="print at most N elements of each result (default 1024)")
    p.add_argument("--constants", metavar="FILE",
                   help="the weights of a library built with --constants=external (default: "
                        "the library's path with the suffix .bin)")
    p.add_argument("--device", action="append", metavar="DEVICE",
                   help="accepted for IREE compatibility (local-task, local-sync, cuda); ignored")
    p.set_defaults(handler=_cmd_run_module)


def _add_check_command(sub) -> None:
    """``ireec check``: run the check.expect_* tests of an MLIR file."""
    p = sub.add_parser("check", help="run the check.expect_* tests of an MLIR file, "
                                     "like iree-check-module", allow_abbrev=False)
    p.add_argument("input", metavar="FILE.mlir", help="MLIR file whose argument-free public "
                                                      "functions are tests")
    p.add_argument("--target", default="c", choices=_target_choices(),
                   help="code generation target (default c)")
    _add_verify_each(p)
    _add_fp_options(p)
    p.set_defaults(handler=_cmd_check)


def _add_benchmark_module_command(sub) -> None:
    """``ireec benchmark-module``: time one function of a built library."""
    p = sub.add_parser("benchmark-module", help="time one function of a built library, "
                                                "like iree-benchmark-module", allow_abbrev=False)
    from .tools.benchmark import add_arguments as _add_benchmark_arguments

    _add_benchmark_arguments(p)
    p.set_defaults(handler=_cmd_benchmark_module)


def _add_opt_command(sub) -> None:
    """``ireec opt``: run named passes on an MLIR file and print the IR."""
    p = sub.add_parser("opt", help="run named passes on an MLIR file and print the IR, "
                                   "like iree-opt", allow_abbrev=False)
    p.add_argument("file", metavar="FILE", nargs="?", help="MLIR input")
    p.add_argument("--pass-pipeline", "--passes", dest="pass_pipeline", metavar="PASSES",
                   help="comma-separated pass names, run in order "
                        "(MLIR's 'builtin.module(a,func.func(b))' form is accepted too)")
    p.add_argument("--list-passes", dest="list_passes", action="store_true",
                   help="list the registered passes and exit")
    p.add_argument("-o", "--output", metavar="OUT", help="output file (default stdout)")
    p.add_argument("--target", choices=_target_choices(), default="c",
                   help="target the hal passes lower for (default: c)")
    p.add_argument("--mlir-print-op-generic", dest="mlir_print_op_generic", action="store_true",
                   help="print every op in the generic form")
    p.add_argument("--split-input-file", action="store_true",
                   help="run each chunk between '// -----' lines separately, like mlir-opt")
    p.add_argument("--verify-diagnostics", action="store_true",
                   help="check errors against the input's '// expected-error {{text}}' lines")
    p.add_argument("--dim-bound", dest="dim_bound", action="append", metavar="NAME=N",
                   help="upper bound of a dynamic dimension (as for compile)")
    p.set_defaults(handler=_cmd_opt)


def _make_parser() -> argparse.ArgumentParser:
    """The ``ireec`` argument parser: the top-level options and one subparser per command."""
    parser = _Parser(prog="ireec", allow_abbrev=False,
                     description="Ahead-of-time compiler from MLIR to runtimeless C, "
                                 "with IREE's tool flags.")
    parser.add_argument("--version", action="version", version=f"ireec {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    _add_compile_command(sub)
    _add_build_command(sub)
    _add_run_module_command(sub)
    _add_check_command(sub)
    _add_benchmark_module_command(sub)
    _add_opt_command(sub)
    # Further subcommands register here: a helper that calls sub.add_parser(...) and
    # set_defaults(handler=...).
    return parser


def _parse_args(parser: argparse.ArgumentParser, argv: Sequence[str]) -> argparse.Namespace:
    """Parse ``argv``; an argument no parser knows is reported against the help of the
    subcommand it was given to (``ireec build --help``), not the top level's."""
    args, extra = parser.parse_known_args(argv)
    if extra:
        prog = parser.prog
        command = getattr(args, "command", None)
        after = argv[argv.index(command) + 1:] if command in argv else []
        if all(a in after for a in extra):  # given to the subcommand, not before it
            for action in parser._subparsers._group_actions if parser._subparsers else ():
                sub = getattr(action, "choices", {}).get(command)
                if sub is not None:
                    prog = sub.prog
        raise _UsageError(f"unrecognized arguments: {' '.join(extra)} "
                          f"(see '{prog} --help')")
    return args


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Entry point of the ``ireec`` console script; returns the exit code."""
    from .ir.diagnostics import CompileError
    from .runtime.build import BuildError
    from .runtime.io_format import InputError

    if argv is None:
        # The process's own command line: its exit frees the IR, so the cyclic collector
        # would only re-traverse it (see compiler.gc_paused_for_compilation).
        gc.disable()
    parser = _make_parser()
    try:
        args = _parse_args(parser, list(argv) if argv is not None else sys.argv[1:])
        return int(args.handler(args) or 0)
    except SystemExit as e:  # --help / --version
        return e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    except CompileError as e:
        if os.environ.get("IREEC_DEBUG") and e.__cause__ is not None:
            traceback.print_exception(type(e.__cause__), e.__cause__, e.__cause__.__traceback__)
        _err(e.render())
        return 1
    except BuildError as e:
        _err(f"error: {e.message}")
        if e.stderr.strip():
            _err(e.stderr)
        return 1
    except (UserError, InputError) as e:
        _err(f"error: {e}")
        return 1
    except KeyboardInterrupt:
        _err("error: interrupted")
        return 130
    except BrokenPipeError:
        try:
            sys.stdout = open(os.devnull, "w")
        except OSError:
            pass
        return 1
    except Exception as e:  # a bug in ireec: say so, without a traceback by default
        if os.environ.get("IREEC_DEBUG"):
            traceback.print_exc()
        _err(f"error: internal error in ireec: {type(e).__name__}: {e} "
             "(set IREEC_DEBUG=1 for a traceback)")
        return 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
