"""How the constant pool reaches the code (``--constants``, ireec/targets/constants.py):
a C array, ``.incbin`` of ``<m>_constants.bin``, or external weights handed over at run
time — each built, run and compared with numpy, through ``ireec.load`` and through the C
ABI from a plain C program that has only the generated files beside it."""
from __future__ import annotations

import re
import shutil
import subprocess
import zlib
from pathlib import Path

import numpy as np
import pytest

import ireec
from benchmarks.gen_weights import reference, weights, write_mlp
from ireec.cli import main as ireec_main
from ireec.runtime.loader import StatusError
from ireec.targets.constants import C_ARRAY_MAX_BYTES, hex_rows, string_rows

from .common import run_cli

HIDDEN = 128  # 279 k parameters: 1.1 MB of weights, well above the c-array threshold
MODES = ("c-array", "incbin", "external")


@pytest.fixture(scope="module")
def mlp(tmp_path_factory):
    """(path, params) of the const-weight MLP of benchmarks/gen_weights.py, hidden width 128."""
    path = tmp_path_factory.mktemp("mlp") / "mlp.mlir"
    params = weights(HIDDEN)
    write_mlp(path, HIDDEN, params)
    return path, params


def _x():
    return np.random.default_rng(7).uniform(-1, 1, (8, 1024)).astype(np.float32)


def _build(path, lib, capsys, *flags):
    rc, _out, err = run_cli(["build", path, "-o", lib, "--target-cpu=host", *flags], capsys)
    assert rc == 0, err
    return lib


def _vmc(path, out_dir, capsys, *flags):
    rc, _out, err = run_cli(["compile", path, "--output-format=vm-c", "--module-name=mlp",
                             "-o", out_dir, *flags], capsys)
    assert rc == 0, err
    return {p.name for p in out_dir.iterdir()}


@pytest.mark.parametrize("target", ["c", "openmp"])
@pytest.mark.parametrize("mode", MODES)
def test_build_and_load_each_mode(mode, target, mlp, tmp_path, capsys):
    path, params = mlp
    lib = _build(path, tmp_path / "libmlp.so", capsys, f"--constants={mode}", f"--target={target}")
    # external: the weights file is written next to the library, and only then
    assert (tmp_path / "libmlp.bin").is_file() == (mode == "external")
    m = ireec.load(lib)
    np.testing.assert_allclose(m.main(_x()), reference(_x(), params), rtol=1e-4, atol=1e-4)
    pool = (tmp_path / "libmlp.bin").read_bytes() if mode == "external" else None
    if pool is not None:
        assert m.constants_size == len(pool) and m.constants_crc32 == zlib.crc32(pool)
        assert m.constants_path == str(tmp_path / "libmlp.bin")


def test_auto_switches_to_incbin_above_the_threshold(mlp, tmp_path, capsys):
    names = _vmc(mlp[0], tmp_path / "big", capsys)
    assert {"mlp_constants.S", "mlp_constants.bin"} <= names
    assert (tmp_path / "big" / "mlp_constants.bin").stat().st_size > C_ARRAY_MAX_BYTES
    small = Path(__file__).parent / "inputs" / "matmul_small.mlir"
    names = _vmc(small, tmp_path / "small", capsys)
    assert not any(n.endswith((".S", ".bin")) for n in names)


def test_pool_file_is_the_pool_and_deterministic(mlp, tmp_path, capsys):
    """The .bin of incbin and external holds the bytes the C array would, and every file
    of two compiles is byte-identical."""
    texts = {}
    for mode in MODES:
        out = tmp_path / mode
        _vmc(mlp[0], out, capsys, f"--constants={mode}")
        texts[mode] = {p.name: p.read_bytes() for p in out.iterdir()}
    again = tmp_path / "again"
    _vmc(mlp[0], again, capsys, "--constants=incbin")
    assert texts["incbin"] == {p.name: p.read_bytes() for p in again.iterdir()}
    pool = texts["incbin"]["mlp_constants.bin"]
    assert texts["external"]["mlp_constants.bin"] == pool
    assert hex_rows(pool) in texts["c-array"]["mlp.c"].decode()
    header = texts["external"]["mlp.h"].decode()
    assert f"#define MLP_CONSTANT_SIZE {len(pool)}\n" in header
    assert f"#define MLP_CONSTANT_CRC32 0x{zlib.crc32(pool):08X}u\n" in header
    assert "#define MLP_CONSTANT_ALIGNMENT 64\n" in header


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("cc", ["gcc", "clang"])
def test_sources_compile_alone_in_each_mode(mode, cc, mlp, tmp_path, capsys):
    """The vm-c sources build warning-free with only the shipped headers beside them
    (a .S is assembled by the same compiler driver)."""
    if subprocess.run(["which", cc], capture_output=True).returncode != 0:
        pytest.skip(f"{cc} is not installed")
    out = tmp_path / "out"
    names = _vmc(mlp[0], out, capsys, f"--constants={mode}")
    sources = sorted(n for n in names if n.endswith((".c", ".S")))
    assert ("mlp_constants.S" in sources) == (mode == "incbin")
    for src in sources:
        subprocess.run([cc, "-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic", "-c", src,
                        "-o", src + ".o"], check=True, cwd=out)


# A caller of the C ABI: reads the weights file into aligned memory (or not, per argv),
# hands them over, runs @main on x = 0.001 * i and prints the statuses and the results.
MAIN_C = r"""
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mlp.h"

static float x[MLP_MAIN_INPUT0_ELEMENT_COUNT], y[MLP_MAIN_OUTPUT0_ELEMENT_COUNT];
IREEC_ALIGNAS(64) static uint8_t workspace[MLP_WORKSPACE_ARRAY_SIZE];
IREEC_ALIGNAS(64) static uint8_t weights[MLP_CONSTANT_SIZE + 64];

int main(int argc, char **argv) {
  for (int i = 0; i < MLP_MAIN_INPUT0_ELEMENT_COUNT; ++i) x[i] = 0.001f * (float)(i % 1000);
  printf("before %d\n", (int)mlp_main(x, y, workspace));
  FILE *f = fopen(argv[1], "rb");
  size_t n = fread(weights, 1, sizeof weights, f);
  fclose(f);
  if (argc > 2 && strcmp(argv[2], "flip") == 0) weights[n / 2] ^= 1;
  printf("misaligned %d\n", (int)mlp_set_constants(weights + 4, (int64_t)n));
  printf("short %d\n", (int)mlp_set_constants(weights, (int64_t)n - 1));
  printf("set %d\n", (int)mlp_set_constants(weights, (int64_t)n));
  printf("call %d\n", (int)mlp_main(x, y, workspace));
  for (int i = 0; i < MLP_MAIN_OUTPUT0_ELEMENT_COUNT; ++i) printf("%.9g\n", (double)y[i]);
  return 0;
}
"""


@pytest.fixture(scope="module")
def external_program(mlp, tmp_path_factory):
    """(executable, weights file) of MAIN_C built against the external-constants sources."""
    out = tmp_path_factory.mktemp("ext")
    rc = ireec_main(["compile", str(mlp[0]), "--output-format=vm-c", "--module-name=mlp",
                         "--constants=external", "-o", str(out)])
    assert rc == 0
    (out / "main.c").write_text(MAIN_C)
    exe = out / "main"
    subprocess.run(["cc", "-std=c99", "-O2", "-Wall", "-Wextra", "-Werror", "-I.", "main.c",
                    "mlp.c", "mlp_kernels.c", "-lm", "-o", str(exe)], check=True, cwd=out)
    return exe, out / "mlp_constants.bin"


def test_external_constants_through_the_c_abi(mlp, external_program):
    exe, weights_file = external_program
    lines = subprocess.run([str(exe), str(weights_file)], capture_output=True, text=True,
                           check=True).stdout.split("\n")
    statuses = dict(line.split() for line in lines[:5])
    assert statuses == {"before": "9", "misaligned": "3", "short": "3", "set": "0", "call": "0"}
    got = np.array([float(v) for v in lines[5:] if v])
    x = (0.001 * (np.arange(8 * 1024) % 1000)).astype(np.float32).reshape(8, 1024)
    np.testing.assert_allclose(got.reshape(8, 1024), reference(x, mlp[1]), rtol=1e-4, atol=1e-4)


def test_external_constants_with_a_flipped_bit_are_refused(external_program):
    exe, weights_file = external_program
    lines = subprocess.run([str(exe), str(weights_file), "flip"], capture_output=True, text=True,
                           check=True).stdout.split("\n")
    statuses = dict(line.split() for line in lines[:5])
    assert statuses["set"] == "15" and statuses["call"] == "9"  # DATA_LOSS, FAILED_PRECONDITION


def test_load_refuses_wrong_constants(mlp, tmp_path, capsys):
    lib = _build(mlp[0], tmp_path / "libmlp.so", capsys, "--constants=external")
    pool = (tmp_path / "libmlp.bin").read_bytes()
    (tmp_path / "short.bin").write_bytes(pool[:-64])
    with pytest.raises(StatusError, match="INVALID_ARGUMENT.*needs"):
        ireec.load(lib, constants=tmp_path / "short.bin")
    flipped = bytearray(pool)
    flipped[len(pool) // 3] ^= 0x80
    (tmp_path / "flipped.bin").write_bytes(flipped)
    with pytest.raises(StatusError, match="DATA_LOSS.*CRC-32"):
        ireec.load(lib, constants=tmp_path / "flipped.bin")
    # an explicit copy elsewhere works; a missing one is named
    (tmp_path / "copy.bin").write_bytes(pool)
    m = ireec.load(lib, constants=tmp_path / "copy.bin")
    np.testing.assert_allclose(m.main(_x()), reference(_x(), mlp[1]), rtol=1e-4, atol=1e-4)
    (tmp_path / "libmlp.bin").unlink()
    with pytest.raises(FileNotFoundError, match="--constants=external"):
        ireec.load(lib)


def test_constants_argument_needs_an_external_module(tmp_path, capsys):
    small = Path(__file__).parent / "inputs" / "matmul_small.mlir"
    lib = _build(small, tmp_path / "libsmall.so", capsys)
    with pytest.raises(ValueError, match="constants= is not taken"):
        ireec.load(lib, constants=tmp_path / "x.bin")


def test_cuda_keeps_its_constants_in_the_image(mlp, tmp_path, capsys):
    rc, _out, err = run_cli(["compile", mlp[0], "--output-format=vm-c", "--target=cuda",
                             "--constants=external", "-o", tmp_path / "out"], capsys)
    assert rc == 1 and "--constants=external is not supported by this target" in err


def test_cuda_pool_is_one_string_literal_of_the_pool(mlp, tmp_path, capsys):
    """cuda's ``__device__`` pool is written as one string literal (octal escapes), one byte
    longer than the pool for C++'s terminating NUL, holding exactly the pool's bytes."""
    _vmc(mlp[0], tmp_path / "c", capsys, "--constants=incbin")
    pool = (tmp_path / "c" / "mlp_constants.bin").read_bytes()
    _vmc(mlp[0], tmp_path / "cuda", capsys, "--target=cuda")
    text = (tmp_path / "cuda" / "mlp.cu").read_text()
    m = re.search(r'uint8_t mlp_constant_pool\[(\d+) \+ 1\] =\n((?:  "[^"\n]*"\n)*  "[^"\n]*");', text)
    assert m and int(m.group(1)) == len(pool)
    literals = re.findall(r'"([^"]*)"', m.group(2))
    assert all(re.fullmatch(r"(\\[0-7]{3})*", lit) for lit in literals)
    assert bytes(int(o, 8) for lit in literals for o in lit.split("\\")[1:]) == pool


@pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is not installed")
def test_string_rows_round_trip_through_a_cxx_compiler(tmp_path):
    """Every byte value (NUL, quote, backslash, digits after an escape) survives a C++
    compile of :func:`string_rows` into an array of exactly its size plus the NUL."""
    data = bytes(range(256)) + b"\0" + b"??=" + b"\x01" + b"7" * 70 + bytes([255, 0, 48])
    src = tmp_path / "rows.cpp"
    src.write_text("#include <cstdio>\n"
                   f"static const unsigned char a[{len(data)} + 1] =\n{string_rows(data, 17)};\n"
                   "int main() { fwrite(a, 1, sizeof a - 1, stdout); return a[sizeof a - 1]; }\n")
    subprocess.run(["g++", "-std=c++11", "-Wall", "-Wextra", "-Werror", str(src), "-o", str(tmp_path / "rows")],
                   check=True)
    out = subprocess.run([str(tmp_path / "rows")], capture_output=True)
    assert out.returncode == 0 and out.stdout == data
    assert string_rows(b"") == '  ""'


def test_run_module_takes_external_constants(tmp_path, capsys):
    """ireec run-module finds LIB.bin by default, takes --constants=FILE, and refuses a
    wrong file with exit code 1 and the reason (no traceback)."""
    src = tmp_path / "w.mlir"
    src.write_text("func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
                   "  %w = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>\n"
                   "  %y = arith.addf %x, %w : tensor<4xf32>\n"
                   "  return %y : tensor<4xf32>\n}\n")
    lib = _build(src, tmp_path / "libw.so", capsys, "--constants=external")
    rc, out, err = run_cli(["run-module", f"--module={lib}", "--input=4xf32=1"], capsys)
    assert rc == 0 and "4xf32=2 3 4 5" in out, err
    moved = tmp_path / "elsewhere.bin"
    (tmp_path / "libw.bin").rename(moved)
    rc, out, err = run_cli(["run-module", f"--module={lib}", "--input=4xf32=1"], capsys)
    assert rc == 1 and "needs its constants file" in err and "Traceback" not in err
    rc, out, err = run_cli(["run-module", f"--module={lib}", f"--constants={moved}",
                            "--input=4xf32=1"], capsys)
    assert rc == 0 and "4xf32=2 3 4 5" in out, err
    (tmp_path / "bad.bin").write_bytes(b"\0" * moved.stat().st_size)
    rc, out, err = run_cli(["run-module", f"--module={lib}", f"--constants={tmp_path / 'bad.bin'}",
                            "--input=4xf32=1"], capsys)
    assert rc == 1 and "DATA_LOSS" in err and "Traceback" not in err
