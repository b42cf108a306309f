"""``ireec opt``: run named passes on an MLIR file and print the IR, like ``iree-opt`` /
``mlir-opt`` (``--pass-pipeline=name1,name2``).

The passes come from :mod:`ireec.passes.registry` (their ``name`` is the iree-opt flag
spelling). Passes run in the order given, on the whole module, without the rest of the
pipeline: a pass whose input must come out of earlier passes (``bufferize`` after
``materialize-interfaces``...) is given them in the pipeline string, or its input file is
the IR printed at the right phase (``ireec compile --compile-to=PHASE``).

As in mlir-opt, ``--split-input-file`` runs the passes on each chunk of the file between
``// -----`` lines separately and joins the printed chunks with ``// -----`` lines (a chunk
keeps its lines' numbers in the file); ``--verify-diagnostics`` checks the errors against the
file's ``// expected-error {{text}}`` annotations (see :func:`expected_diagnostics`) instead of
reporting them. Where a chunk fails, nothing is printed: the errors of every chunk are reported
together.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import List, Optional, Tuple, Type

from ..compiler import default_module_name, verify_after_pass
from ..frontend.parser import parse_source
from ..frontend.source import SourceBuffer, load_source
from ..ir.diagnostics import CompileError, Location, read_source, register_source
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


#: The line ``--split-input-file`` splits at (mlir-opt's default marker).
SPLIT_MARKER = "// -----"
_SPLIT_LINE = re.compile(r"^\s*// -----\s*$")
_EXPECTED = re.compile(r"//\s*expected-(error|warning|note|remark)\s*"
                       r"(?:@([+-]\d+|above|below))?\s*\{\{(.*?)\}\}")


@dataclass(frozen=True)
class Expected:
    """One ``// expected-<kind> [@+N|@-N|@above|@below] {{text}}`` annotation: a diagnostic of
    ``kind`` whose message contains ``text`` is expected on 1-based ``line``; ``at`` is where
    the annotation itself is."""

    kind: str
    line: int
    text: str
    at: Location


class DiagnosticsError(CompileError):
    """Errors of several chunks, or diagnostics that did not match the file's annotations;
    rendered one after the other."""

    def __init__(self, errors: List[CompileError]):
        super().__init__(errors[0].message, errors[0].loc, errors[0].notes)
        self.errors = errors

    def render(self) -> str:
        return "\n".join(e.render() for e in self.errors)


def split_input(text: str, split: bool) -> List[Tuple[int, str]]:
    """(0-based number of the chunk's first line, chunk text) of each chunk of ``text``
    between lines that are ``// -----``; the whole text when ``split`` is false."""
    if not split:
        return [(0, text)]
    chunks, start, lines = [], 0, text.split("\n")
    for i, line in enumerate(lines):
        if _SPLIT_LINE.match(line):
            chunks.append((start, "\n".join(lines[start:i])))
            start = i + 1
    chunks.append((start, "\n".join(lines[start:])))
    return chunks


def expected_diagnostics(text: str, path: str, first_line: int = 0) -> List[Expected]:
    """The annotations of ``text`` (whose first line is line ``first_line + 1`` of ``path``):
    ``@+N`` / ``@-N`` name the line N below / above the annotation, ``@below`` / ``@above``
    the next / previous line that is not an annotation only, no ``@`` its own line.

    Raises CompileError at an annotation naming a line outside ``text``."""
    lines = text.split("\n")
    only = [bool(re.fullmatch(r"\s*" + _EXPECTED.pattern + r"\s*", ln)) for ln in lines]
    out = []
    for i, line in enumerate(lines):
        for m in _EXPECTED.finditer(line):
            kind, offset, message = m.groups()
            at = Location(path, first_line + i + 1, m.start() + 1)
            if offset in ("above", "below"):
                step = -1 if offset == "above" else 1
                target = i + step
                while 0 <= target < len(lines) and only[target]:
                    target += step
            else:
                target = i + int(offset or 0)
            if not 0 <= target < len(lines):
                raise CompileError(f"expected-{kind} names line {first_line + target + 1}, "
                                   f"outside the input", at)
            out.append(Expected(kind, first_line + target + 1, message, at))
    return out


def opt_source(source: SourceBuffer, passes: List[Type[Pass]], ctx: PassContext,
                generic: bool = False) -> str:
    """``source`` parsed, verified, run through ``passes`` and printed. Raises CompileError
    for malformed input or a failing pass."""
    module = parse_source(source, source.filename)
    with located_internal_errors("verifier", module):
        verify(module)
    run_passes(module, passes, ctx)
    return print_module(module, generic=generic)


def check_diagnostics(errors: List[CompileError], expected: List[Expected],
                      path: str) -> List[CompileError]:
    """The mismatches between the ``errors`` raised and the ``expected`` annotations, as
    errors: one per error no annotation of its line matches (kind ``error``, message
    containing the annotation's text) and one per annotation no error met."""
    left = list(expected)
    out = []
    for e in errors:
        hit = next((x for x in left if x.kind == "error" and e.loc.file == path
                    and x.line == e.loc.line and x.text in e.message), None)
        if hit is None:
            out.append(CompileError(f"unexpected error: {e.message}", e.loc, e.notes))
        else:
            left.remove(hit)
    for x in left:
        out.append(CompileError(f'expected {x.kind} "{x.text}" was not produced', x.at))
    return out


def opt_file(path: str, pipeline: str, *, target: str = "c",
             module_name: Optional[str] = None, generic: bool = False,
             split_input_file: bool = False, verify_diagnostics: bool = False,
             options: Optional[dict] = None) -> str:
    """Parse ``path``, run the passes named by ``pipeline`` and return the printed IR (with
    ``split_input_file``: each chunk's, joined by ``// -----`` lines).

    Raises PassPipelineError for an unknown pass name (before reading the file) and
    CompileError for malformed input or a failing pass (DiagnosticsError: the errors of every
    chunk; with ``verify_diagnostics``, the errors and annotations that do not match).
    """
    passes = parse_pass_pipeline(pipeline)

    def context() -> PassContext:
        return PassContext(target=get_target(target), module_name=module_name or default_module_name(path),
                           source_name=os.path.basename(path), options=dict(options or {}))

    if not (split_input_file or verify_diagnostics):
        return opt_source(load_source(path), passes, context(), generic)
    outputs: List[str] = []
    problems: List[CompileError] = []
    text = read_source(path)
    for first_line, chunk in split_input(text, split_input_file):
        errors = []
        try:  # blank lines first: the chunk's lines keep their numbers in the file
            source = SourceBuffer.from_text("\n" * first_line + chunk, path)
            outputs.append(opt_source(source, passes, context(), generic))
        except CompileError as e:
            errors.append(e)
        if verify_diagnostics:
            errors = check_diagnostics(errors, expected_diagnostics(chunk, path, first_line), path)
        problems += errors
    if problems:
        register_source(path, text)  # each chunk's parse showed only its own lines
        raise DiagnosticsError(problems)
    return (SPLIT_MARKER + "\n").join(outputs)
