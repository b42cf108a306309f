"""``ireec opt``: run named passes on an MLIR file and print the IR, like ``iree-opt`` /
``mlir-opt`` (``--pass-pipeline=name1,name2``).

The passes come from :mod:`ireec.passes.registry` (their ``name`` is the iree-opt flag
spelling). Passes run in the order given, on the whole module, without the rest of the
pipeline: a pass whose input must come out of earlier passes (``bufferize`` after
``materialize-interfaces``...) is given them in the pipeline string, or its input file is
the IR printed at the right phase (``ireec compile --compile-to=PHASE``).
"""
from __future__ import annotations

import os
from typing import List, Optional, Type

from ..compiler import default_module_name, verify_after_pass
from ..frontend.parser import parse_source
from ..frontend.source import load_source
from ..ir.diagnostics import CompileError
from ..ir.printer import print_module
from ..ir.verifier import verify
from ..passes.pass_base import Pass, PassContext, located_internal_errors
from ..passes.registry import pass_descriptions, parse_pass_pipeline
from ..targets import get_target


def list_passes() -> str:
    """One line per registered pass: its name and what it does (pipeline order)."""
    desc = pass_descriptions()
    width = max(len(n) for n in desc)
    return "".join(f"  {name.ljust(width)}  {text}\n" for name, text in desc.items())


def run_passes(module, passes: List[Type[Pass]], ctx: PassContext) -> None:
    """Run ``passes`` in order on ``module`` (in place), verifying the IR after each.

    CompileError from a pass propagates (it carries the op's location); any other exception
    becomes a CompileError at the op being processed, naming the pass, with a note: a pass
    given IR it does not expect (without the passes that must run before it) is the usual
    cause here.
    """
    for cls in passes:
        try:
            with located_internal_errors(f"pass '{cls.name}'", module):
                cls().run(module, ctx)
        except CompileError as e:
            if not e.message.startswith("internal error"):
                raise
            raise CompileError(e.message, e.loc, [*e.notes, "does its input need the passes that run "
                                                  "before it in the pipeline? see 'ireec opt "
                                                  "--list-passes'"]) from e
        verify_after_pass(module, cls.name)


def opt_file(path: str, pipeline: str, *, target: str = "c",
             module_name: Optional[str] = None, generic: bool = False) -> str:
    """Parse ``path``, run the passes named by ``pipeline`` and return the printed IR.

    Raises PassPipelineError for an unknown pass name (before reading the file) and
    CompileError for malformed input.
    """
    passes = parse_pass_pipeline(pipeline)
    module = parse_source(load_source(path), path)
    with located_internal_errors("verifier", module):
        verify(module)
    ctx = PassContext(target=get_target(target), module_name=module_name or default_module_name(path),
                      source_name=os.path.basename(path))
    run_passes(module, passes, ctx)
    return print_module(module, generic=generic)
