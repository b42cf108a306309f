"""What the README and ``--help`` promise, tried as a new user would: each promise either
works as written or is not made."""
from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from ireec.cli import main
from ireec.compiler import PHASES, RESUMABLE_PHASES, compile_file, compile_source
from ireec.ir.diagnostics import CompileError

REPO = Path(__file__).resolve().parents[2]
INPUTS = REPO / "tests" / "e2e" / "inputs"
MATMUL = INPUTS / "matmul_small.mlir"
SUBCOMMANDS = ("compile", "build", "run-module", "check", "benchmark-module", "opt")


def run(capsys, *args):
    rc = main([str(a) for a in args])
    cap = capsys.readouterr()
    return rc, cap.out, cap.err


# --- non-UTF-8 input -------------------------------------------------------------------

@pytest.mark.parametrize("command", ["compile", "build", "check", "opt"])
def test_non_utf8_input_is_located_at_its_first_bad_byte(command, tmp_path, capsys):
    src = tmp_path / "latin1.mlir"
    # Line 2, after "  // caf" (8 characters): a Latin-1 e-acute, not UTF-8.
    src.write_bytes("func.func @f() {\n  // caf".encode() + b"\xe9 au lait\n  return\n}\n")
    extra = {"compile": ["--compile-to=input"], "opt": ["--passes=canonicalize"]}.get(command, [])
    rc, _, err = run(capsys, command, src, *extra)
    assert rc == 1
    lines = err.splitlines()
    assert lines[0].startswith(f"{src}:2:9: error: invalid UTF-8 byte 0xe9 in source file"), err
    assert lines[1].startswith("  // caf")
    assert lines[2] == " " * 8 + "^"
    assert "Traceback" not in err and "internal error" not in err


def test_non_utf8_multibyte_prefix_counts_characters(tmp_path):
    src = tmp_path / "mixed.mlir"
    src.write_bytes("// \u00e9\u00e9 ok\n// \u00e9".encode() + b"\xff\n")
    with pytest.raises(CompileError) as e:
        compile_file(str(src))
    assert (e.value.loc.line, e.value.loc.col) == (2, 5)


# --- --compile-from ---------------------------------------------------------------------

@pytest.mark.parametrize("phase", RESUMABLE_PHASES)
def test_compile_from_a_phase_gives_the_same_c(phase):
    full = compile_file(str(MATMUL))
    ir = compile_file(str(MATMUL), compile_to=phase).ir_text
    resumed = compile_source(ir, str(MATMUL), compile_from=phase)
    assert resumed.files == full.files
    for name, plan in full.report["functions"].items():
        assert resumed.report["functions"][name]["arena_bytes"] == plan["arena_bytes"]


def test_compile_from_through_the_cli(tmp_path, capsys):
    import ireec

    phases = tmp_path / "phases"
    rc, _, err = run(capsys, "compile", MATMUL, "--compile-to=flow",
                     f"--dump-compilation-phases-to={phases}")
    assert rc == 0, err
    flow = phases / "matmul_small.3.flow.mlir"
    lib = tmp_path / "libresumed.so"
    rc, _, err = run(capsys, "build", flow, "--compile-from=flow", "-o", lib)
    assert rc == 0, err
    m = ireec.load(lib)
    out = m.matmul_static(np.ones((3, 5), np.float32), np.full((5, 3), 2, np.float32),
                          np.full((3, 3), 42, np.float32))
    np.testing.assert_array_equal(out, np.full((3, 3), 52, np.float32))


def test_compile_from_refuses_what_it_cannot_do(tmp_path, capsys):
    rc, _, err = run(capsys, "compile", MATMUL, "--compile-from=end", "-o", tmp_path)
    assert rc == 1 and "invalid choice: 'end'" in err
    rc, _, err = run(capsys, "compile", MATMUL, "--compile-from=flow", "--compile-to=abi")
    assert rc == 1 and "--compile-to=abi is not after --compile-from=flow" in err
    # Input that is not the IR of that phase is a located error, not an empty program.
    for phase in ("abi", "flow", "hal", "vm"):
        rc, _, err = run(capsys, "build", INPUTS / "abs.mlir", f"--compile-from={phase}",
                         "-o", tmp_path / "x.so")
        assert rc == 1, err
        assert err.startswith(f"{INPUTS / 'abs.mlir'}:1:1: error: function @abs is not IR "
                              f"printed after the '{phase}' phase"), err


# --- the same error for a missing file everywhere ----------------------------------------

def test_missing_file_is_reported_the_same_way(tmp_path, capsys):
    missing = tmp_path / "nope.mlir"
    expected = f"error: cannot open input file '{missing}': No such file or directory\n"
    for argv in (["build", missing], ["check", missing], ["compile", missing, "-o", tmp_path],
                 ["opt", missing, "--passes=canonicalize"]):
        rc, _, err = run(capsys, *argv)
        assert (rc, err) == (1, expected), argv


# --- the README's commands ---------------------------------------------------------------

def _readme_command(fragment: str) -> list:
    for line in (REPO / "README.md").read_text().splitlines():
        if line.startswith("ireec ") and fragment in line:
            return shlex.split(line.split("#")[0])[1:]
    raise AssertionError(f"README has no 'ireec ...{fragment}...' line")


def test_readme_dump_phases_line_works_as_written(tmp_path, capsys, monkeypatch):
    argv = _readme_command("--dump-compilation-phases-to=phases/")
    shutil.copy(MATMUL, tmp_path / "model.mlir")
    monkeypatch.chdir(tmp_path)
    rc, _, err = run(capsys, *argv)
    assert rc == 0, err
    dumped = sorted(p.name for p in (tmp_path / "phases").iterdir())
    assert dumped == [f"model.{i + 1}.{p}.mlir" for i, p in enumerate(PHASES[:-1])]
    assert (tmp_path / "out" / "model.c").is_file()
    # ... and the README's --compile-from line resumes from what it dumped.
    argv = _readme_command("--compile-from=flow")
    rc, _, err = run(capsys, *argv)
    assert rc == 0, err
    assert (tmp_path / "libmodel.so").is_file()


# --- no option offered that is refused ---------------------------------------------------

def test_vm_bytecode_is_not_offered(tmp_path, capsys):
    rc, out, _ = run(capsys, "compile", "--help")
    assert rc == 0 and "vm-bytecode" not in out and "vm-c" in out
    rc, _, err = run(capsys, "compile", MATMUL, "--output-format=vm-bytecode", "-o", tmp_path)
    assert rc == 1 and "invalid choice: 'vm-bytecode'" in err


# --- unknown flags point at the subcommand's help ----------------------------------------

@pytest.mark.parametrize("command", SUBCOMMANDS)
def test_unknown_flag_points_at_the_subcommands_help(command, capsys):
    positional = [] if command in ("run-module", "benchmark-module") else [MATMUL]
    rc, out, err = run(capsys, command, *positional, "--no-such-flag")
    assert rc == 1 and out == ""
    assert err == (f"error: unrecognized arguments: --no-such-flag "
                   f"(see 'ireec {command} --help')\n")


def test_unknown_top_level_flag_points_at_the_top_level_help(capsys):
    rc, _, err = run(capsys, "--no-such-flag", "build", MATMUL)
    assert rc == 1 and "(see 'ireec --help')" in err


# --- ireec opt ---------------------------------------------------------------------------

def test_opt_lists_every_pipeline_pass(capsys):
    from ireec.passes.pipeline import PIPELINE

    rc, out, _ = run(capsys, "opt", "--list-passes")
    assert rc == 0
    listed = [ln.split()[0] for ln in out.splitlines()[1:]]
    names = list(dict.fromkeys(cls.name for _, cls, _ in PIPELINE))  # a pass run twice is listed once
    assert listed[:len(names)] == names


def test_opt_unknown_pass_lists_the_known_ones(capsys):
    rc, out, err = run(capsys, "opt", MATMUL, "--pass-pipeline=canonicalize,nope")
    assert rc == 1 and out == ""
    assert err.startswith("error: unknown pass 'nope'; known passes: inline, ")
    assert "iree-stream-schedule-allocation" in err


def test_opt_writes_output_file(tmp_path, capsys):
    out_file = tmp_path / "o.mlir"
    rc, out, err = run(capsys, "opt", MATMUL, "--passes=iree-abi-wrap-entry-points", "-o", out_file)
    assert rc == 0 and out == "", err
    text = out_file.read_text()
    assert "hal.tensor.import" in text and "!hal.buffer_view" in text
    assert compile_source(text, "o.mlir", compile_from="abi").files  # parses and resumes


# --- make --------------------------------------------------------------------------------

def _make(*args):
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    return subprocess.run(["make", "-s", "-C", str(REPO), *args], capture_output=True,
                          text=True, timeout=60)


def test_make_help_lists_every_target_with_one_line():
    text = (REPO / "Makefile").read_text()
    phony = re.search(r"^\.PHONY:(.*)$", text, re.M).group(1).split()
    rules = re.findall(r"^([A-Za-z][\w-]*):", text, re.M)
    assert set(phony) <= set(rules), f".PHONY targets without a rule: {set(phony) - set(rules)}"
    p = _make("help")
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    for target in rules:
        mine = [ln for ln in lines if ln.split()[:1] == [target]]
        assert len(mine) == 1 and len(mine[0].split()) > 1, (target, p.stdout)


def test_make_sanitize_runs_the_sanitizer_runner():
    p = _make("-n", "sanitize")
    assert p.returncode == 0 and "-m tests.e2e.sanitize" in p.stdout, p.stdout + p.stderr


def test_a_small_model_runs_under_asan_and_ubsan(tmp_path):
    """The sanitized build works here: the add example, built with -fsanitize and run in a
    Python with the runtimes preloaded, matches and reports nothing."""
    from tests.e2e.sanitize import _child, sanitizer_env

    try:
        env = sanitizer_env()
    except SystemExit as e:
        pytest.skip(str(e))
    env["IREEC_CACHE_DIR"] = str(tmp_path / "cache")
    script = ("import numpy as np, ireec; "
              f"m = ireec.compile_file({str(INPUTS / 'add.mlir')!r}); "
              "a = np.arange(4, dtype=np.float32); "
              "assert (m.add(a, a) == 2 * a).all(); print('ok')")
    status, detail = _child([sys.executable, "-c", script], env)
    assert status == "ok", detail


# --- import ireec ------------------------------------------------------------------------

def test_import_ireec_exposes_only_its_api():
    code = ("import ireec, json; "
            "print(json.dumps([ireec.__all__, dir(ireec), "
            "[n for n in ireec.__all__ if getattr(ireec, n, None) is None]]))")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       cwd=REPO, timeout=60, env={**os.environ, "PYTHONPATH": str(REPO)})
    assert p.returncode == 0, p.stderr
    import json

    api, names, unresolved = json.loads(p.stdout)
    assert {"load", "compile_file", "compile_source", "CompileError", "BuildError"} <= set(api)
    assert unresolved == []
    package = REPO / "ireec"
    submodules = {p.stem for p in package.iterdir() if p.suffix == ".py" or (p / "__init__.py").exists()}
    public = {n for n in names if not n.startswith("_")}
    assert public <= set(api) | submodules, public - set(api) - submodules
    assert not {n for n in names if n.startswith("_") and not n.startswith("__")}
