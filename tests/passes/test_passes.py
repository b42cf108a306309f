"""Golden pass tests, lit-style: every ``.mlir`` file in this folder is one case.

Each file has ``// RUN:`` lines (a trailing ``\\`` continues a line on the next RUN line) of
the form::

    // RUN: [not] ireec opt %s --pass-pipeline=NAMES [flags] [2>&1] | filecheck %s [flags]

``%s`` is the file itself. ``ireec opt`` runs in-process (``ireec.cli.main``); its stdout
(and stderr with ``2>&1``) goes to the ``filecheck`` package's command, which matches the
file's ``CHECK`` lines. ``not`` expects exit code 1 (an error), otherwise 0. ``ireec opt``
takes mlir-opt's ``--split-input-file`` (``// -----`` chunks) and ``--verify-diagnostics``
(``// expected-error @+1 {{text}}`` annotations).

A golden test of a pass runs that pass alone, on the IR printed just before it in the pipeline
(``ireec compile FILE --mlir-print-ir-after-all``, trimmed to a small case): every pass of
``ireec/passes/pipeline.py`` needs one (``test_every_pipeline_pass_has_a_golden_test``).
"""
from __future__ import annotations

import contextlib
import io
import shlex
import subprocess
from pathlib import Path
from typing import List

import pytest

HERE = Path(__file__).resolve().parent
CASES = sorted(HERE.glob("*.mlir"))


def run_lines(path: Path) -> List[str]:
    """The RUN commands of ``path``, continuation lines joined, ``%s`` substituted."""
    commands, current = [], ""
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if not line.startswith("// RUN:"):
            continue
        part = line[len("// RUN:"):].strip()
        if part.endswith("\\"):
            current += part[:-1] + " "
            continue
        commands.append((current + part).replace("%s", shlex.quote(str(path))))
        current = ""
    return commands


def run_opt(argv: List[str]):
    """``ireec <argv>`` in-process; returns (exit code, stdout, stderr)."""
    from ireec.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = main(argv)
    return rc, out.getvalue(), err.getvalue()


def run_command(command: str) -> None:
    """Run one RUN line; fails the test with both tools' output when a stage fails."""
    stages = [shlex.split(s) for s in command.split("|")]
    assert len(stages) == 2, f"expected 'ireec opt ... | filecheck ...': {command}"
    opt, check = stages
    expect_error = opt[:1] == ["not"]
    opt = opt[1:] if expect_error else opt
    merge = "2>&1" in opt
    opt = [a for a in opt if a != "2>&1"]
    assert opt[:2] == ["ireec", "opt"], f"RUN line must run 'ireec opt': {command}"
    assert check[:1] == ["filecheck"], f"RUN line must pipe into filecheck: {command}"
    rc, out, err = run_opt(opt[1:])
    if expect_error:
        assert rc == 1, f"expected exit code 1, got {rc}\n{out}{err}"
    else:
        assert rc == 0, f"ireec opt failed ({rc}):\n{err}"
    text = out + err if merge else out
    p = subprocess.run(check, input=text, capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, f"filecheck failed:\n{p.stderr}\n--- ireec opt output ---\n{text}"


@pytest.mark.parametrize("path", CASES, ids=[p.name for p in CASES])
def test_pass(path: Path):
    commands = run_lines(path)
    assert commands, f"{path.name} has no RUN line"
    for command in commands:
        run_command(command)


def passes_run_alone(command: str) -> List[str]:
    """The name of the one pass the RUN line ``command`` runs (``--pass-pipeline=NAME`` or
    ``--pass-pipeline NAME``, MLIR's nested form too), or [] when it runs several or expects
    an error."""
    from ireec.passes.registry import PassPipelineError, parse_pass_pipeline

    opt = shlex.split(command.split("|")[0])
    if opt[:1] == ["not"]:
        return []
    pipelines = [a.split("=", 1)[1] for a in opt if a.startswith(("--pass-pipeline=", "--passes="))]
    pipelines += [b for a, b in zip(opt, opt[1:]) if a in ("--pass-pipeline", "--passes")]
    if len(pipelines) != 1:
        return []
    try:
        classes = parse_pass_pipeline(pipelines[0])
    except PassPipelineError:
        return []
    return [classes[0].name] if len(classes) == 1 else []


def test_every_pipeline_pass_has_a_golden_test():
    """Each pass of the pipeline table has a file here whose RUN line runs it alone (its input
    is then the IR printed just before that pass)."""
    from ireec.passes.pipeline import PIPELINE

    alone = {name for p in CASES for c in run_lines(p) for name in passes_run_alone(c)}
    missing = [f"{phase}: {cls.name}" for phase, cls, _ in PIPELINE if cls.name not in alone]
    assert not missing, ("passes of ireec/passes/pipeline.py without a golden test in "
                         "tests/passes running them alone (--pass-pipeline=NAME):\n  "
                         + "\n  ".join(missing))


def test_passes_run_alone_reads_run_lines():
    assert passes_run_alone("ireec opt x --pass-pipeline=canonicalize | filecheck x") == [
        "canonicalize"]
    assert passes_run_alone('ireec opt x --pass-pipeline="builtin.module(func.func(inline))" '
                            "| filecheck x") == ["inline"]
    assert passes_run_alone("ireec opt x --pass-pipeline=inline,canonicalize | filecheck x") == []
    assert passes_run_alone("not ireec opt x --pass-pipeline=inline 2>&1 | filecheck x") == []
