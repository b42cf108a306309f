"""The compiler driver: parse, run the pipeline phase by phase, render C.

``compile_source``/``compile_file`` return a :class:`CompileOutput`; every user error is
a :class:`~ireec.ir.diagnostics.CompileError` with a source location.
"""
from __future__ import annotations

import gc
import os
import re
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Dict, Optional, Union

from .frontend.parser import parse_source
from .frontend.source import SourceBuffer, load_source
from .ir.attributes import DictAttr
from .ir.diagnostics import CompileError, read_source  # noqa: F401  (the CLI reads through it)
from .ir.printer import print_module
from .ir.verifier import verify
from .passes.pass_base import PassContext, located_internal_errors
from .passes.pipeline import PHASES, passes_for
from .targets import Target, get_target


@dataclass
class CompileOutput:
    """``files``: generated sources (name → text) when compiled to the end; ``ir_text``: the
    IR after ``compile_to`` otherwise; ``report``: memory plan facts per function."""

    module_name: str
    files: Dict[str, str] = field(default_factory=dict)
    ir_text: Optional[str] = None
    report: Dict[str, object] = field(default_factory=dict)


def default_module_name(path: str) -> str:
    """C identifier from a file name: ``models/mlp.args.mlir`` → ``mlp_args``."""
    base = os.path.basename(path)
    base = base[: -len(".mlir")] if base.endswith(".mlir") else base
    name = re.sub(r"[^A-Za-z0-9_]", "_", base) or "module"
    return name if not name[0].isdigit() else "m_" + name


@contextmanager
def gc_paused_for_compilation():
    """Context manager (and decorator) pausing CPython's cyclic garbage collector for its
    body, and restoring the caller's setting after.

    The IR is a large graph of small objects in reference cycles (an op and its results
    refer to each other), so collections during a compile traverse the whole IR again and
    again: with the default thresholds they took two thirds of the time of a 10,000-op
    module, and even with 70x rarer young collections a quarter. Reference counting still
    frees almost everything a pass drops; the cycles of erased ops wait for the next
    collection after the compile (peak memory measured for the 50,000-op chain of
    benchmarks/gen_chain.py: 1.16 GB, against 1.03 GB with a young collection every
    100,000 allocations; 10,000 ops: 260 MB against 233 MB)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


@gc_paused_for_compilation()
def compile_source(text: Union[str, SourceBuffer], filename: str = "<input>", *,
                   target: Union[str, Target] = "c",
                   module_name: Optional[str] = None, compile_to: str = "end",
                   dump_phases_to: Optional[str] = None, print_ir_after_all: bool = False,
                   ir_sink=None, verify_each: Optional[bool] = None,
                   compile_from: Optional[str] = None,
                   options: Optional[Dict[str, object]] = None) -> CompileOutput:
    """Compile MLIR text (a str or a :class:`SourceBuffer`). ``compile_to`` is one of
    input|abi|flow|stream|hal|vm|end.

    The parsed module is always verified; ``verify_each`` verifies again after every pass
    (None: on when the environment variable ``IREEC_VERIFY_EACH`` is ``1``).
    ``compile_from`` (iree-compile's ``--compile-from``): the text is the IR printed after
    that phase (input|abi|flow|stream|hal|vm); the pipeline resumes with the next phase
    (after vm: the target's emitter alone).
    ``options``: target options (PassContext.options: ``workspace``, ``max_*_bytes``,
    ``emit_line_directives``; see ireec/cli.py).
    Raises CompileError (file:line:col) for malformed, ill-typed or unsupported input.
    """
    if compile_to not in PHASES:
        raise CompileError(f"unknown phase '{compile_to}' (phases: {', '.join(PHASES)})")
    module = parse_source(text, filename)
    return compile_module(module, filename, target=target, module_name=module_name,
                          compile_to=compile_to, dump_phases_to=dump_phases_to,
                          print_ir_after_all=print_ir_after_all, ir_sink=ir_sink,
                          verify_each=verify_each, compile_from=compile_from, options=options)


@gc_paused_for_compilation()
def compile_module(module, filename: str = "<input>", *, target: Union[str, Target] = "c",
                   module_name: Optional[str] = None, compile_to: str = "end",
                   dump_phases_to: Optional[str] = None, print_ir_after_all: bool = False,
                   ir_sink=None, verify_each: Optional[bool] = None,
                   compile_from: Optional[str] = None,
                   options: Optional[Dict[str, object]] = None) -> CompileOutput:
    """Run the pipeline on a parsed ``module`` (transformed in place); see compile_source.
    ``target``: a target name (or IREE backend spelling) or a configured Target object,
    resolved here and handed to the passes and the emitter through the PassContext."""
    if compile_to not in PHASES:
        raise CompileError(f"unknown phase '{compile_to}' (phases: {', '.join(PHASES)})")
    tgt = get_target(target)
    with located_internal_errors("verifier", module):
        verify(module)
    if verify_each is None:
        verify_each = verify_each_default()
    name = module_name or default_module_name(filename)
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
        raise CompileError(f"module name '{name}' is not a C identifier")
    ctx = PassContext(target=tgt, module_name=name, source_name=os.path.basename(filename),
                      options=dict(options or {}))
    if dump_phases_to:
        os.makedirs(dump_phases_to, exist_ok=True)
    out = CompileOutput(module_name=name, report=ctx.report)
    first = resume_index(compile_from, compile_to, module, ctx)
    for i, phase in enumerate(PHASES[:-1]):
        if i < first:
            continue
        for cls, _why in passes_for(phase):
            with located_internal_errors(f"pass '{cls.name}'", module):
                cls().run(module, ctx)
            if verify_each:
                verify_after_pass(module, cls.name)
            if print_ir_after_all and ir_sink is not None:
                ir_sink(f"// -----// IR Dump After {cls.__name__} ({cls.name}) //----- //\n{print_module(module)}")
        if dump_phases_to:
            with open(os.path.join(dump_phases_to, f"{name}.{i + 1}.{phase}.mlir"), "w") as f:
                f.write(print_module(module))
        if phase == compile_to:
            out.ir_text = print_module(module)
            return out
    with located_internal_errors(f"target '{tgt.name}' emitter", module):
        out.files = tgt.render(module, ctx)
    return out


def verify_each_default() -> bool:
    """Whether ``--verify-each`` is on when not asked for: the environment variable
    ``IREEC_VERIFY_EACH=1`` (the test suite sets it)."""
    return os.environ.get("IREEC_VERIFY_EACH", "") == "1"


def verify_after_pass(module, pass_name: str) -> None:
    """Verify the IR a pass produced; a failure is a bug of that pass, reported at the
    offending op with the pass named (like MLIR's verifier after each pass)."""
    try:
        with located_internal_errors("verifier", module):
            verify(module)
    except CompileError as e:
        raise CompileError(e.message, e.loc,
                           notes=[*e.notes, f"the IR produced by pass '{pass_name}' does not "
                                            f"verify (a compiler bug)"]) from None


#: Phases whose printed IR holds all the pipeline needs to resume (``--compile-from``): every
#: phase; after ``vm`` only the emitter runs, reading the memory plan (``stream.memory_plan``)
#: and stack bounds (``ireec.stack_bytes``) the emitc functions carry.
RESUMABLE_PHASES = PHASES[:-1]


def resume_index(compile_from: Optional[str], compile_to: str, module, ctx: PassContext) -> int:
    """Index in PHASES of the first phase to run when the input is the IR printed after
    ``compile_from`` (0 when None). The memory plan the stream phase recorded on each
    public function (``stream.memory_plan``) goes back into ``ctx.report``.
    Raises CompileError for a phase that cannot be resumed from or that is not before
    ``compile_to``."""
    if compile_from is None:
        return 0
    if compile_from not in RESUMABLE_PHASES:
        raise CompileError(f"cannot compile from phase '{compile_from}' "
                           f"(phases: {', '.join(RESUMABLE_PHASES)})")
    first = PHASES.index(compile_from) + 1
    if PHASES.index(compile_to) < first:
        raise CompileError(f"--compile-to={compile_to} is not after --compile-from={compile_from}")
    from .dialects.func import func_name

    # What each phase leaves on every public function with a body: the ABI wrapper's mark,
    # then the stream phase's memory plan (on the host emitc.func after vm). Without it the
    # input is not that phase's IR.
    marker = {"abi": "iree.abi.stub", "flow": "iree.abi.stub", "stream": "stream.memory_plan",
              "hal": "stream.memory_plan", "vm": "stream.memory_plan"}.get(compile_from)
    report = ctx.report.setdefault("functions", {})
    for f in module.body.ops:
        if f.name not in ("func.func", "emitc.func") or not (f.regions and f.regions[0].blocks):
            continue
        if f.name == "emitc.func":  # after vm: the host functions carry the plan
            if f.attributes["kind"].value != "host":
                continue
            name, public = f.attributes["mlir_name"].value, True
        else:
            name = func_name(f)
            public = getattr(f.attributes.get("sym_visibility"), "value", "public") == "public"
        other_form = (compile_from == "vm") != (f.name == "emitc.func")  # vm: emitc functions only
        if marker and public and (marker not in f.attributes or other_form):
            raise CompileError(f"function @{name} is not IR printed after the "
                               f"'{compile_from}' phase (it has no {marker}); --compile-from="
                               f"{compile_from} takes what --compile-to={compile_from} prints", f.loc)
        plan = f.attributes.get("stream.memory_plan")
        if isinstance(plan, DictAttr):
            report[name] = {k: getattr(a, "value", 0) for k, a in plan.value}
    return first


def compile_file(path: str, **kw) -> CompileOutput:
    """Read ``path`` and :func:`compile_source` it (its long hex literals decoded straight
    from the file's bytes: :func:`load_source`). CompileError if unreadable or not UTF-8 (at
    the line and column of the first bad byte)."""
    return compile_source(load_source(path), path, **kw)
