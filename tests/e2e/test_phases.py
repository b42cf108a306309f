"""Every phase of every corpus and model file prints, and what it prints parses back.

For each ``.mlir`` file under ``../shared/corpus`` and ``../shared/models`` the pipeline runs
once up to ``vm`` with ``dump_phases_to`` (what ``--dump-compilation-phases-to`` writes, and
the same text ``--compile-to=P`` prints for each phase P). Each phase file must parse with
ireec's own parser and print back to exactly the same text (so parse → print → parse → print
is a fixed point); the generic form of the ``hal`` phase (func, scf, memref, arith, math, hal
and stream ops together) must parse back to the same IR.

A file that does not get through is listed in ``tests/e2e/phases_status.md`` with the phase
where it stops and why; the row must still hold (a listed file that now passes is reported,
so the status file stays true). A new file in ../shared is a new case: if it fails and has no
row, the test fails.

The two flags are also run through the CLI on the 128x128 matmul of ``tests/e2e/inputs`` and
on one model taking its weights as arguments: ``--mlir-print-ir-after-all`` (every pass's dump
parses, is a fixed point and so is its generic form) and ``--compile-to=P`` for every phase.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Dict, List, Tuple

import pytest

from ireec.compiler import compile_file
from ireec.frontend.parser import parse_source
from ireec.ir.diagnostics import CompileError
from ireec.ir.printer import print_module
from ireec.passes.pipeline import PHASES, PIPELINE

from .common import INPUTS, SHARED, run_cli, shared_path

STATUS_FILE = Path(__file__).resolve().parent / "phases_status.md"
PRINTED_PHASES = PHASES[:-1]  # "end" renders C, it prints no IR
STATUSES = ("compile-error", "reparse-error")
ARGS_MODEL = ("models", "jax", "mlp", "mlp.args.mlir")
GENERIC_CHECKED_PHASE = "hal"


def read_status() -> Dict[str, Tuple[str, str, str]]:
    """Rows of the status file: ``{file under ../shared: (status, phase, message)}``.

    ``status`` is ``compile-error`` (ireec stops with a located error while running
    ``phase``; ``message`` is part of its message) or ``reparse-error`` (what ``phase`` prints
    does not parse back; ``message`` is part of the parser's message). The last column says
    why, for people.
    """
    rows = {}
    for line in STATUS_FILE.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]
        if len(cells) != 5 or cells[1] not in STATUSES:
            continue
        f, status, phase, reason, _why = cells
        rows[f.strip("`")] = (status, phase, reason.replace("\\|", "|").strip("`"))
    return rows


def shared_files() -> List[str]:
    """Every ``.mlir`` file of ``../shared/corpus`` and ``../shared/models``, relative to
    ``../shared`` and sorted (empty when ../shared is absent)."""
    out = []
    for top in ("corpus", "models"):
        d = SHARED / top
        if d.is_dir():
            out += sorted(str(p.relative_to(SHARED)) for p in d.rglob("*.mlir"))
    return out


_EXPECTED = read_status()
_FILES = shared_files()


def _first_line(e: CompileError) -> str:
    return str(e).splitlines()[0]


def _check_round_trip(text: str, name: str, generic: bool = True) -> None:
    """``text`` (printed by ireec) parses and prints back to itself; with ``generic``, its
    generic form also parses back to the same IR. Raises CompileError where it does not parse."""
    module = parse_source(text, name)
    again = print_module(module)
    assert again == text, f"{name}: printing the parsed IR changes the text"
    if generic:
        generic_text = print_module(module, generic=True)
        assert print_module(parse_source(generic_text, name + " (generic form)")) == text, (
            f"{name}: the generic form does not parse back to the same IR")


@pytest.mark.parametrize("rel", _FILES or ["<no ../shared>"])
def test_every_phase_prints_and_parses_back(rel, tmp_path):
    path = shared_path(rel) if rel in _FILES else shared_path("corpus")
    expected = _EXPECTED.get(rel)
    error = None
    try:
        out = compile_file(str(path), compile_to="vm", dump_phases_to=str(tmp_path))
        name = out.module_name
    except CompileError as e:
        error = e
        name = None
    dumped = {p.name.split(".")[-2]: p for p in tmp_path.glob("*.mlir")}
    stopped_at = next((ph for ph in PRINTED_PHASES if ph not in dumped), None)
    if error is not None:
        msg = _first_line(error)
        assert error.loc is not None and error.loc.line > 0, f"{rel}: error without a location: {msg}"
        assert expected is not None, (f"{rel}: stops in phase {stopped_at} with {msg!r}; fix it or "
                                      f"add a row to {STATUS_FILE.name}")
        status, phase, reason = expected
        assert (status, phase) == ("compile-error", stopped_at) and reason in msg, (
            f"{rel}: {STATUS_FILE.name} says {status} in {phase} ({reason}); now stops in "
            f"{stopped_at} with {msg!r}")
    else:
        assert stopped_at is None and sorted(dumped) == sorted(PRINTED_PHASES), sorted(dumped)
        assert all(p.name.startswith(name + ".") for p in dumped.values())
    reparse_errors = {}
    for phase in PRINTED_PHASES:
        if phase not in dumped:
            continue
        try:
            # The generic form once per file (it costs as much again): at the phase whose IR
            # holds the most dialects; every pass's generic form is checked on two inputs below.
            _check_round_trip(dumped[phase].read_text(encoding="utf-8"), dumped[phase].name,
                              generic=phase == GENERIC_CHECKED_PHASE)
        except CompileError as e:
            reparse_errors[phase] = _first_line(e)
    if expected is not None and expected[0] == "reparse-error":
        status, phase, reason = expected
        assert phase in reparse_errors and reason in reparse_errors[phase], (
            f"{rel}: {STATUS_FILE.name} says phase {phase} does not parse back ({reason}); now: "
            f"{reparse_errors or 'every phase parses back: remove the row'}")
        del reparse_errors[phase]
    assert not reparse_errors, f"{rel}: phases that do not parse back: {reparse_errors}"
    if expected is not None and expected[0] == "compile-error":
        assert error is not None, f"{rel} compiles now: remove its row from {STATUS_FILE.name}"


def test_status_rows_name_existing_files():
    if not _FILES:
        pytest.skip(f"{SHARED} is not present (the shared corpus and models live in ../shared)")
    stale = sorted(set(_EXPECTED) - set(_FILES))
    assert not stale, f"rows of {STATUS_FILE.name} naming files that no longer exist: {stale}"


def _cli_inputs():
    return [("matmul_128", lambda: INPUTS / "matmul_128.mlir"),
            ("mlp_args", lambda: shared_path(*ARGS_MODEL))]


@pytest.mark.parametrize("which,path", _cli_inputs(), ids=[w for w, _ in _cli_inputs()])
def test_print_ir_after_all_parses_back(which, path, capsys):
    rc, out, err = run_cli(["compile", path(), "--compile-to=hal", "--mlir-print-ir-after-all"],
                           capsys)
    assert rc == 0, err
    header = re.compile(r"^// -----// IR Dump After (\w+) \(([^)]*)\) //----- //$", re.M)
    heads = list(header.finditer(err))
    up_to_hal = [cls.__name__ for ph, cls, _ in PIPELINE
                 if PHASES.index(ph) <= PHASES.index("hal")]
    assert [m.group(1) for m in heads] == up_to_hal
    for m, nxt in zip(heads, heads[1:] + [None]):
        text = err[m.end() + 1: nxt.start() if nxt else len(err)].rstrip("\n") + "\n"
        _check_round_trip(text, f"{which} after {m.group(1)}")
    # the last dump is the IR --compile-to=hal prints
    assert err[heads[-1].end() + 1:].rstrip("\n") == out.rstrip("\n")
    assert "hal.executable" in out and "hal.command_buffer.dispatch" in out


@pytest.mark.parametrize("phase", PRINTED_PHASES)
@pytest.mark.parametrize("which,path", _cli_inputs(), ids=[w for w, _ in _cli_inputs()])
def test_compile_to_every_phase(which, path, phase, tmp_path, capsys):
    dest = tmp_path / f"{which}.{phase}.mlir"
    rc, out, err = run_cli(["compile", path(), f"--compile-to={phase}", "-o", dest], capsys)
    assert rc == 0, err
    _check_round_trip(dest.read_text(encoding="utf-8"), dest.name)
