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
from typing import Dict, Optional

from .frontend.parser import parse_source
from .ir.diagnostics import CompileError, Location
from .ir.printer import print_module
from .passes.pass_base import PassContext
from .passes.pipeline import PHASES, passes_for


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
def compile_source(text: str, filename: str = "<input>", *, target: str = "c",
                   module_name: Optional[str] = None, compile_to: str = "end",
                   dump_phases_to: Optional[str] = None, print_ir_after_all: bool = False,
                   ir_sink=None) -> CompileOutput:
    """Compile MLIR text. ``compile_to`` is one of input|abi|flow|stream|hal|vm|end.

    Raises CompileError (file:line:col) for malformed or unsupported input.
    """
    if compile_to not in PHASES:
        raise CompileError(f"unknown phase '{compile_to}' (phases: {', '.join(PHASES)})")
    module = parse_source(text, filename)
    return compile_module(module, filename, target=target, module_name=module_name,
                          compile_to=compile_to, dump_phases_to=dump_phases_to,
                          print_ir_after_all=print_ir_after_all, ir_sink=ir_sink)


@gc_paused_for_compilation()
def compile_module(module, filename: str = "<input>", *, target: str = "c",
                   module_name: Optional[str] = None, compile_to: str = "end",
                   dump_phases_to: Optional[str] = None, print_ir_after_all: bool = False,
                   ir_sink=None) -> CompileOutput:
    """Run the pipeline on a parsed ``module`` (transformed in place); see compile_source."""
    from .targets import get_target

    if compile_to not in PHASES:
        raise CompileError(f"unknown phase '{compile_to}' (phases: {', '.join(PHASES)})")
    tgt = get_target(target)
    name = module_name or default_module_name(filename)
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
        raise CompileError(f"module name '{name}' is not a C identifier")
    ctx = PassContext(target=tgt.name, module_name=name, source_name=os.path.basename(filename))
    if dump_phases_to:
        os.makedirs(dump_phases_to, exist_ok=True)
    out = CompileOutput(module_name=name, report=ctx.report)
    for i, phase in enumerate(PHASES[:-1]):
        for cls, _why in passes_for(phase):
            cls().run(module, ctx)
            if print_ir_after_all and ir_sink is not None:
                ir_sink(f"// -----// IR Dump After {cls.__name__} ({cls.name}) //----- //\n{print_module(module)}")
        if dump_phases_to:
            with open(os.path.join(dump_phases_to, f"{name}.{i + 1}.{phase}.mlir"), "w") as f:
                f.write(print_module(module))
        if phase == compile_to:
            out.ir_text = print_module(module)
            return out
    out.files = tgt.render(module, ctx)
    return out


def compile_file(path: str, **kw) -> CompileOutput:
    """Read ``path`` and :func:`compile_source` it. CompileError if unreadable."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        raise CompileError(f"cannot read input file: {e.strerror}", Location(path, 0, 0)) from None
    except UnicodeDecodeError:
        raise CompileError("input file is not UTF-8 text", Location(path, 0, 0)) from None
    return compile_source(text, path, **kw)
