"""Firmware-ready output: the header alone sizes a call, budgets are compile errors, the
report gives arena, stack, FLOPs and code size, the C builds warning-free with gcc and clang
(host and Cortex-M), ``--workspace=static`` and ``--emit-line-directives``."""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

import ireec

from .common import INPUTS, SHARED, run_cli, shared_path
from .models import model_files, read_status as model_status, rel as rel_model

#: Every model that compiles (status ``pass`` in models_status.md), and the seeds.
MODELS = [rel_model(p) for p in model_files() if model_status().get(rel_model(p), ("",))[0] == "pass"]
SEEDS = ["abs.mlir", "add.mlir", "matmul_small.mlir", "matmul_128.mlir"]

WARN = ["-std=c99", "-Wall", "-Wextra", "-Werror"]
#: (name, compiler command) of every toolchain the C must build with, warning-free.
#: The host gcc build leaves out the x86-64 AVX2/AVX-512 kernel clones (the same C, built
#: three times; clang's build keeps them, attributes and resolvers included); the Cortex-M gcc
#: build's stack usage is the stack-bound check's at -O2.
COMPILERS = [
    ("gcc", ["gcc", "-O2", "-DIREEC_NO_TARGET_CLONES"]),
    ("clang", ["clang", "-O2"]),
    ("clang-armv7em", ["clang", "--target=armv7em-none-eabi", "-mfloat-abi=hard", "-mfpu=fpv4-sp-d16",
                       "-O2", "--sysroot=/usr/lib/arm-none-eabi"]),
    ("arm-none-eabi-gcc", ["arm-none-eabi-gcc", "-mcpu=cortex-m4", "-mthumb", "-mfloat-abi=hard",
                           "-mfpu=fpv4-sp-d16", "-O2", "-fstack-usage"]),
]


def _compile(src, out: Path, capsys, *flags) -> dict:
    """``ireec compile`` ``src`` to vm-c in ``out`` with a JSON report; returns the report."""
    rc, _, err = run_cli(["compile", src, "--output-format=vm-c", "--module-name=model", "-o", out,
                          f"--report={out}/report.json", *flags], capsys)
    assert rc == 0, err
    return json.loads((out / "report.json").read_text())


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    """name → (directory of the generated C, report) for every model and seed."""
    from ireec.cli import main

    out = {}
    for rel in MODELS + SEEDS:
        src = SHARED / "models" / rel if rel in MODELS else INPUTS / rel
        d = tmp_path_factory.mktemp(re.sub(r"\W", "_", rel))
        assert main(["compile", str(src), "--output-format=vm-c", "--module-name=model", "-o", str(d),
                     f"--report={d}/report.json"]) == 0
        out[rel] = (d, json.loads((d / "report.json").read_text()))
    return out


@pytest.fixture(scope="module")
def builds(generated):
    """compiler name → {object path: compiler output} of every generated .c/.S built with
    that toolchain and :data:`WARN`, each toolchain built once (two jobs at a time)."""
    done = {}

    def build(name):
        if name not in done:
            cmd = dict(COMPILERS)[name]
            outputs, jobs = {}, []

            def finish(job):
                obj, proc = job
                out, _ = proc.communicate(timeout=300)
                outputs[obj] = (proc.returncode, out, " ".join(proc.args))

            for rel, (d, _) in generated.items():
                # .S: the constant pool's .incbin stub of models over 64 KiB of weights,
                # assembled from the folder holding its .bin, as its comment says.
                for c in sorted(d.glob("*.c")) + sorted(d.glob("*.S")):
                    obj = Path(str(c) + f".{name}.o")
                    jobs.append((obj, subprocess.Popen(cmd + WARN + ["-c", str(c), "-o", str(obj)],
                                                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                                       text=True, cwd=d)))
                    if len(jobs) >= 2:
                        finish(jobs.pop(0))
            for j in jobs:
                finish(j)
            done[name] = outputs
        return done[name]
    return build


def _skip_unless_installed(name: str) -> None:
    cmd = dict(COMPILERS)[name]
    if shutil.which(cmd[0]) is None:
        pytest.skip(f"{cmd[0]} is not installed (Debian: "
                    f"{'clang' if 'clang' in cmd[0] else 'gcc-arm-none-eabi libnewlib-arm-none-eabi'})")
    if "armv7em" in name and not Path("/usr/lib/arm-none-eabi/include/stdint.h").exists():
        pytest.skip("clang --target=armv7em-none-eabi needs newlib's headers (libnewlib-arm-none-eabi)")


@pytest.mark.parametrize("compiler", COMPILERS, ids=[c[0] for c in COMPILERS])
def test_every_model_builds_without_warnings(compiler, builds):
    name, _ = compiler
    _skip_unless_installed(name)
    if not MODELS:
        pytest.skip(f"{SHARED / 'models'} is not present (the exported models live in ../shared)")
    for obj, (rc, out, args) in builds(name).items():
        assert rc == 0 and not out.strip(), f"{args}:\n{out}"


def test_every_model_reports_arena_and_stack(generated):
    if not MODELS:
        pytest.skip(f"{SHARED / 'models'} is not present")
    for rel, (d, rep) in generated.items():
        header = (d / "model.h").read_text()
        for name, fn in rep["functions"].items():
            assert fn["stack_bytes"] > 0, rel
            assert fn["arena_bytes"] == rep["workspace_bytes"] or len(rep["functions"]) > 1
            assert fn["flops"] >= 0 and fn["bytes_moved"] > 0
            macro = f"MODEL_{name.upper()}"
            assert re.search(rf"#define {macro}_STACK_SIZE {fn['stack_bytes']}\n", header), rel
            assert re.search(rf"#define {macro}_WORKSPACE_SIZE {fn['arena_bytes']}\n", header), rel
        assert f"#define MODEL_WORKSPACE_ARRAY_SIZE {max(rep['workspace_bytes'], 1)}\n" in header


def test_stack_bound_holds_under_gcc(generated, builds):
    """The bound of every dispatch covers what GCC measures (-fstack-usage) for its launch
    and workgroup functions, on the host at -O3 (baseline ISA: the x86-64 AVX2 clones are
    outside the bound) and on a Cortex-M4 at -O2 (the objects of its warning build)."""
    checked = 0
    for rel, (d, rep) in generated.items():
        sus = []
        obj = d / "k.gcc.o"
        subprocess.run(["gcc", "-O3", "-DIREEC_NO_TARGET_CLONES", "-std=c99", "-fstack-usage", "-c",
                        str(d / "model_kernels.c"), "-o", str(obj)], check=True, timeout=300)
        sus.append(("gcc", obj.with_suffix(".su")))
        if shutil.which("arm-none-eabi-gcc"):
            arm = d / "model_kernels.c.arm-none-eabi-gcc.o"
            rc, out, _ = builds("arm-none-eabi-gcc")[arm]
            assert rc == 0, out
            sus.append(("arm-none-eabi-gcc", arm.with_suffix(".su")))
        for name, su in sus:
            usage = {}
            for line in su.read_text().splitlines():
                where, size, _ = line.split("\t")
                usage[where.rsplit(":", 1)[-1]] = max(usage.get(where.rsplit(":", 1)[-1], 0), int(size))
            for fn in rep["functions"].values():
                for disp in fn["dispatches"]:
                    wg = max([v for k, v in usage.items() if k.startswith(disp["entry_point"] + "_workgroup")],
                             default=0)
                    measured = wg + usage.get(disp["symbol"], 0)
                    assert measured <= disp["stack_bytes"], (rel, name, disp["entry_point"], measured)
                    checked += 1
    assert checked > 0


def test_lenet_workspace_budget_names_the_peak_tensors(tmp_path, capsys):
    path = shared_path("models", "jax", "lenet", "lenet.const.mlir")
    rc, _, err = run_cli(["compile", path, "-o", tmp_path, "--max-workspace-bytes=1000"], capsys)
    assert rc == 1
    first = err.splitlines()[0]
    assert re.match(rf"{re.escape(str(path))}:\d+:\d+: error: function @main needs a workspace arena of "
                    r"\d+ bytes, over --max-workspace-bytes=1000", first), err
    peak = [l for l in err.splitlines() if l.startswith("note: live at the peak:")]
    assert peak and all(re.search(r"tensor<[0-9x]+xf32> '\w+#\d+' \(\d+ bytes", l) for l in peak), err
    assert all(re.search(r"produced at .*lenet\.const\.mlir:\d+:\d+", l) for l in peak), err
    assert "Traceback" not in err


def test_stack_budget_picks_smaller_tiles_then_errors(tmp_path, capsys):
    src = INPUTS / "matmul_128.mlir"
    big = _compile(src, tmp_path / "a", capsys)["stack_bytes"]
    budget = big - 1
    small = _compile(src, tmp_path / "b", capsys, f"--max-stack-bytes={budget}")["stack_bytes"]
    assert small <= budget < big
    rc, _, err = run_cli(["compile", src, "-o", tmp_path / "c", "--max-stack-bytes=16"], capsys)
    assert rc == 1 and "over --max-stack-bytes=16" in err and "matmul_128.mlir:" in err.splitlines()[0]
    assert "note: dispatch " in err


def test_constant_budget(tmp_path, capsys):
    path = shared_path("models", "jax", "lenet", "lenet.const.mlir")
    rc, _, err = run_cli(["compile", path, "-o", tmp_path, "--max-constant-bytes=1024"], capsys)
    assert rc == 1 and "over --max-constant-bytes=1024" in err and "lenet.const.mlir:" in err


def test_build_report_json_text_svg_and_code_size(tmp_path, capsys):
    path = shared_path("models", "jax", "lenet", "lenet.const.mlir")
    rc, _, err = run_cli(["build", path, "-o", tmp_path / "lib.so", f"--report={tmp_path}/r.json",
                          f"--report={tmp_path}/r.svg", "--report=-"], capsys)
    assert rc == 0, err
    rep = json.loads((tmp_path / "r.json").read_text())
    fn = rep["functions"]["main"]
    assert rep["objects"]["lenet_const_kernels.c"]["text_bytes"] > 0
    assert fn["text_bytes"] > 0 and all(d["text_bytes"] > 0 for d in fn["dispatches"])
    conv = next(d for d in fn["dispatches"] if "1x6x28x28x1x5x5" in d["entry_point"])
    assert conv["flops"] == 2 * 6 * 28 * 28 * 5 * 5  # 2 per multiply-accumulate
    assert fn["peak"]["bytes"] <= fn["arena_bytes"] and fn["peak"]["tensors"]
    assert "@main: arena" in err and "FLOPs" in err
    svg = ET.fromstring((tmp_path / "r.svg").read_text())
    boxes = [e for e in svg.iter("{http://www.w3.org/2000/svg}rect")]
    assert len(boxes) == len(fn["buffers"]) + 1  # one per transient and the frame


def test_abs_code_is_small(tmp_path, capsys):
    """What a --gc-sections link keeps for a call of abs (entry, body, kernel) at -Os."""
    from ireec.tools import report

    rep = _compile(INPUTS / "abs.mlir", tmp_path, capsys)
    files = {p.name: p.read_text() for p in tmp_path.iterdir() if p.suffix in (".c", ".h")}
    toolchains = [["cc"]] + ([["arm-none-eabi-gcc", "-mcpu=cortex-m4", "-mthumb", "-mfloat-abi=hard",
                               "-mfpu=fpv4-sp-d16"]] if shutil.which("arm-none-eabi-gcc") else [])
    for cc in toolchains:
        report.add_code_sizes(rep, report.code_sizes(files, cc[:1], cc[1:]))
        assert 0 < rep["functions"]["abs"]["text_bytes"] < 64, (cc[0], rep["functions"]["abs"])


def test_header_macros_size_the_buffers(tmp_path, capsys):
    """A main that knows only the header declares its buffers from the macros."""
    _compile(INPUTS / "matmul_small.mlir", tmp_path, capsys)
    (tmp_path / "main.c").write_text("""
#include <stdio.h>
#include "model.h"
static const float a[MODEL_MATMUL_STATIC_INPUT0_ELEMENT_COUNT] = {0};
static const float b[MODEL_MATMUL_STATIC_INPUT1_ELEMENT_COUNT] = {0};
static const float c[MODEL_MATMUL_STATIC_INPUT2_ELEMENT_COUNT] = {0};
static MODEL_MATMUL_STATIC_OUTPUT0_ELEMENT_CTYPE r[MODEL_MATMUL_STATIC_OUTPUT0_ELEMENT_COUNT];
IREEC_ALIGNAS(MODEL_WORKSPACE_ALIGNMENT) static uint8_t ws[MODEL_WORKSPACE_ARRAY_SIZE];
static const int64_t shape[MODEL_MATMUL_STATIC_OUTPUT0_RANK] = MODEL_MATMUL_STATIC_OUTPUT0_SHAPE;
int main(void) {
  _Static_assert(sizeof r == MODEL_MATMUL_STATIC_OUTPUT0_BYTE_SIZE, "bytes");
  printf("%d %d %s\\n", (int)model_matmul_static(a, b, c, r, ws), (int)(shape[0] * shape[1]), MODEL_LIBS);
  return 0;
}
""")
    exe = tmp_path / "main"
    subprocess.run(["cc", "-std=c11", "-Wall", "-Wextra", "-Werror", "-I", str(tmp_path), str(tmp_path / "main.c"),
                    str(tmp_path / "model.c"), str(tmp_path / "model_kernels.c"), "-lm", "-o", str(exe)],
                   check=True, timeout=120)
    assert subprocess.run([str(exe)], capture_output=True, text=True).stdout.split()[:2] == ["0", "9"]


def test_static_workspace(tmp_path, capsys):
    path = shared_path("models", "jax", "lenet", "lenet.const.mlir")
    from .models import inputs_and_expected

    args, expected = inputs_and_expected(path)
    d = tmp_path / "c"
    rep = _compile(path, d, capsys, "--workspace=static")
    header = (d / "model.h").read_text()
    assert "ireec_status_t model_main(const float *input0, float *result0);" in header
    assert "#define MODEL_WORKSPACE_SIZE 0\n" in header and "#define MODEL_WORKSPACE_STATIC 1\n" in header
    assert f"#define MODEL_STATIC_WORKSPACE_SIZE {rep['functions']['main']['arena_bytes']}\n" in header
    assert re.search(r"static uint8_t model_workspace\[\d+\];", (d / "model.c").read_text())
    lib = tmp_path / "lib.so"
    rc, _, err = run_cli(["build", path, "-o", lib, "--workspace=static"], capsys)
    assert rc == 0, err
    m = ireec.load(lib)
    np.testing.assert_allclose(m.main(*args), expected, rtol=1e-4, atol=1e-4)


def test_line_directives_point_at_the_input(tmp_path, capsys):
    src = INPUTS / "matmul_small.mlir"
    texts = []
    for k in range(2):
        _compile(src, tmp_path / str(k), capsys, "--emit-line-directives")
        texts.append((tmp_path / str(k) / "model_kernels.c").read_text())
    assert texts[0] == texts[1]
    lines = texts[0].splitlines()
    into = [(i, l) for i, l in enumerate(lines) if l.startswith("#line") and "matmul_small.mlir" in l]
    assert into
    source = src.read_text().splitlines()
    for i, l in into:
        n = int(l.split()[1])
        assert "linalg.matmul" in source[n - 1]
    for i, l in enumerate(lines):  # directives back into the C name the next line
        if l.startswith("#line") and "model_kernels.c" in l:
            assert int(l.split()[1]) == i + 2
    subprocess.run(["cc", "-std=c99", "-Wall", "-Wextra", "-Werror", "-c", str(tmp_path / "0" / "model_kernels.c"),
                    "-o", str(tmp_path / "k.o")], check=True)


@pytest.mark.parametrize("flags,message", [
    (["-std=c99", "-U__GNUC__", "-U__clang__"], "no way to align variables"),
    (["-std=c99", "-U__BYTE_ORDER__", "-D__BYTE_ORDER__=__ORDER_BIG_ENDIAN__"], "big-endian"),
], ids=["no-alignment-attribute", "big-endian"])
def test_runtime_header_refuses_unsafe_targets(flags, message, tmp_path):
    """A C99 compiler with no known alignment attribute, or a big-endian target, stops with
    #error instead of building code that would fault or read wrong weights."""
    from ireec.targets.c import runtime_header

    (tmp_path / "ireec_runtime.h").write_text(runtime_header())
    (tmp_path / "t.c").write_text('#include "ireec_runtime.h"\nint x;\n')
    # Preprocessing is enough for #error (the libc headers need __GNUC__ to compile).
    proc = subprocess.run(["gcc", *flags, "-w", "-E", "-o", os.devnull, str(tmp_path / "t.c")],
                          capture_output=True, text=True)
    assert proc.returncode != 0 and message in proc.stderr, proc.stderr
    if "align" in message:  # a user-provided IREEC_ALIGNAS is accepted
        ok = subprocess.run(["gcc", *flags, "-w", "-E", "-o", os.devnull, "-DIREEC_ALIGNAS(n)=",
                             str(tmp_path / "t.c")], capture_output=True, text=True)
        assert ok.returncode == 0, ok.stderr


def test_libs_macro_says_when_libm_is_needed(tmp_path, capsys):
    from ireec.tools.report import needs_libm

    _compile(INPUTS / "abs.mlir", tmp_path / "abs", capsys)  # fabsf
    _compile(INPUTS / "matmul_small.mlir", tmp_path / "mm", capsys)  # + and * only
    assert '#define MODEL_LIBS "-lm"\n' in (tmp_path / "abs" / "model.h").read_text()
    assert '#define MODEL_LIBS ""\n' in (tmp_path / "mm" / "model.h").read_text()
    # Through a runtime helper defined by a macro of ireec_runtime.h.
    assert needs_libm({"k.c": "y = ireec_f32_to_f8e4m3fn(x);"})
    assert not needs_libm({"k.c": "y = ireec_f16_to_f32(x);"})
