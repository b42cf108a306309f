"""8-bit integer contractions through the ireec_uk_igemm micro-kernel
(runtime_c/ireec_ukernel_igemm.h) against numpy, exactly: linalg.matmul on i8 -> i32,
quantized_matmul with nonzero zero points (and zero points large enough for the int32 sums to
wrap), batch_matmul, generic forms (unsigned A, transposed B), odd shapes (37x53x29, K not a
multiple of 4, partial register tiles and blocks), extreme values -128 / 127, on c and openmp;
the header's kernels one by one (AVX-512 VNNI, AVX-VNNI, AVX2, portable C) in a C program;
the portable kernels on a Cortex-M4 under QEMU (SMLAD)."""
from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

import ireec
from ireec.compiler import compile_source as compile_to_c
from ireec.targets.c import UKERNEL_HEADERS, runtime_header

from .common import cached_module, random_i8, shared_path
from .models import inputs_and_expected


def _fill(t: str) -> str:
    return (f"  %zero = arith.constant 0 : i32\n  %e = tensor.empty() : tensor<{t}xi32>\n"
            f"  %c = linalg.fill ins(%zero : i32) outs(%e : tensor<{t}xi32>) -> tensor<{t}xi32>\n")


def _matmul(name: str, m: int, n: int, k: int) -> str:
    """``linalg.matmul`` of i8 operands into a zero-filled i32 result."""
    return (f"func.func @{name}(%a: tensor<{m}x{k}xi8>, %b: tensor<{k}x{n}xi8>) -> tensor<{m}x{n}xi32> {{\n"
            + _fill(f"{m}x{n}") +
            f"  %r = linalg.matmul ins(%a, %b : tensor<{m}x{k}xi8>, tensor<{k}x{n}xi8>) outs(%c : tensor<{m}x{n}xi32>) -> tensor<{m}x{n}xi32>\n"
            f"  return %r : tensor<{m}x{n}xi32>\n}}\n")


def _qmatmul(name: str, m: int, n: int, k: int, az: int, bz: int) -> str:
    """``linalg.quantized_matmul`` with constant zero points ``az``, ``bz``."""
    return (f"func.func @{name}(%a: tensor<{m}x{k}xi8>, %b: tensor<{k}x{n}xi8>) -> tensor<{m}x{n}xi32> {{\n"
            f"  %az = arith.constant {az} : i32\n  %bz = arith.constant {bz} : i32\n" + _fill(f"{m}x{n}") +
            f"  %r = linalg.quantized_matmul ins(%a, %b, %az, %bz : tensor<{m}x{k}xi8>, tensor<{k}x{n}xi8>, i32, i32)"
            f" outs(%c : tensor<{m}x{n}xi32>) -> tensor<{m}x{n}xi32>\n"
            f"  return %r : tensor<{m}x{n}xi32>\n}}\n")


#: C = C0 + A @ B on a caller's C0 (the call accumulates), i8 x i8 batch_matmul,
#: matmul_unsigned (u8 x u8), a generic whose first input is B (unsigned, its zero point a
#: scalar input; A's a constant from above) and a generic with an unsigned A (arith.extui),
#: B transposed and a zero point on A only.
OTHERS = """
func.func @acc(%a: tensor<19x70xi8>, %b: tensor<70x33xi8>, %c: tensor<19x33xi32>) -> tensor<19x33xi32> {
  %r = linalg.matmul ins(%a, %b : tensor<19x70xi8>, tensor<70x33xi8>) outs(%c : tensor<19x33xi32>) -> tensor<19x33xi32>
  return %r : tensor<19x33xi32>
}
func.func @batch(%a: tensor<3x17x33xi8>, %b: tensor<3x33x50xi8>) -> tensor<3x17x50xi32> {
  %zero = arith.constant 0 : i32
  %e = tensor.empty() : tensor<3x17x50xi32>
  %c = linalg.fill ins(%zero : i32) outs(%e : tensor<3x17x50xi32>) -> tensor<3x17x50xi32>
  %r = linalg.batch_matmul ins(%a, %b : tensor<3x17x33xi8>, tensor<3x33x50xi8>) outs(%c : tensor<3x17x50xi32>) -> tensor<3x17x50xi32>
  return %r : tensor<3x17x50xi32>
}
func.func @u8u8(%a: tensor<23x40xi8>, %b: tensor<40x35xi8>) -> tensor<23x35xi32> {
  %zero = arith.constant 0 : i32
  %e = tensor.empty() : tensor<23x35xi32>
  %c = linalg.fill ins(%zero : i32) outs(%e : tensor<23x35xi32>) -> tensor<23x35xi32>
  %r = linalg.matmul_unsigned ins(%a, %b : tensor<23x40xi8>, tensor<40x35xi8>) outs(%c : tensor<23x35xi32>) -> tensor<23x35xi32>
  return %r : tensor<23x35xi32>
}
func.func @swapped(%b: tensor<29x53xi8>, %a: tensor<37x29xi8>) -> tensor<37x53xi32> {
  %zero = arith.constant 0 : i32
  %az = arith.constant 5 : i32
  %bz = arith.constant -9 : i32
  %e = tensor.empty() : tensor<37x53xi32>
  %c = linalg.fill ins(%zero : i32) outs(%e : tensor<37x53xi32>) -> tensor<37x53xi32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d2)>,
                                        affine_map<(d0, d1, d2) -> ()>, affine_map<(d0, d1, d2) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%b, %a, %bz : tensor<29x53xi8>, tensor<37x29xi8>, i32) outs(%c : tensor<37x53xi32>) {
  ^bb0(%y: i8, %x: i8, %z: i32, %acc: i32):
    %ye = arith.extui %y : i8 to i32
    %yz = arith.subi %ye, %z : i32
    %xe = arith.extsi %x : i8 to i32
    %xz = arith.subi %xe, %az : i32
    %p = arith.muli %yz, %xz : i32
    %s = arith.addi %acc, %p : i32
    linalg.yield %s : i32
  } -> tensor<37x53xi32>
  return %r : tensor<37x53xi32>
}
func.func @unsigned_nt(%a: tensor<29x45xi8>, %b: tensor<61x45xi8>) -> tensor<29x61xi32> {
  %zero = arith.constant 0 : i32
  %az = arith.constant 128 : i32
  %e = tensor.empty() : tensor<29x61xi32>
  %c = linalg.fill ins(%zero : i32) outs(%e : tensor<29x61xi32>) -> tensor<29x61xi32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>,
                                        affine_map<(d0, d1, d2) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<29x45xi8>, tensor<61x45xi8>) outs(%c : tensor<29x61xi32>) {
  ^bb0(%x: i8, %y: i8, %acc: i32):
    %xe = arith.extui %x : i8 to i32
    %xz = arith.subi %xe, %az : i32
    %ye = arith.extsi %y : i8 to i32
    %p = arith.muli %ye, %xz : i32
    %s = arith.addi %p, %acc : i32
    linalg.yield %s : i32
  } -> tensor<29x61xi32>
  return %r : tensor<29x61xi32>
}
"""

#: name -> (M, N, K, a_zp, b_zp) of the matmul / quantized_matmul cases.
CASES = {
    "mm_37x53x29": (37, 53, 29, 0, 0),
    "qmm_37x53x29": (37, 53, 29, -3, 7),
    "mm_1x1x1": (1, 1, 1, 0, 0),
    "mm_65x97x131": (65, 97, 131, 0, 0),
    "qmm_8x48x256": (8, 48, 256, 12, 0),
    "qmm_130x150x1030": (130, 150, 1030, -128, 5),
    # (a - 70000) * (b + 90000) overflows int32: the sums wrap as the loop nest's do
    "qmm_wrap_9x17x63": (9, 17, 63, 70000, -90000),
}
SRC = "".join(_qmatmul(n, m, nn, k, az, bz) if n.startswith("q") else _matmul(n, m, nn, k)
              for n, (m, nn, k, az, bz) in CASES.items()) + OTHERS




def _ref(a, b, az=0, bz=0):
    """(a - az) @ (b - bz) in int64, wrapped to int32 as the i32 loop nest wraps."""
    return ((a.astype(np.int64) - az) @ (b.astype(np.int64) - bz)).astype(np.int32)


@pytest.fixture(scope="module")
def modules():
    return {}




def test_contractions_call_the_micro_kernel():
    """Every function calls ireec_uk_igemm (no plain loop nest), the zero fills are gone (the
    call overwrites: no IREEC_UK_FLAG_ACCUMULATE) except for the caller's C, and the lowering
    config and descriptor are recorded at --compile-to=hal."""
    out = compile_to_c(SRC, "t.mlir", target="c")
    kernels = out.files["t_kernels.c"]
    calls = [ln.strip() for ln in kernels.splitlines() if "ireec_uk_igemm(" in ln]
    assert len(calls) == len(CASES) + 5, calls
    assert sum("IREEC_UK_FLAG_ACCUMULATE" in c for c in calls) == 1
    assert sum("IREEC_UK_FLAG_LHS_UNSIGNED" in c for c in calls) == 2
    assert sum("IREEC_UK_FLAG_RHS_UNSIGNED" in c for c in calls) == 2
    assert any("((int32_t)5), ((int32_t)-9)" in c for c in calls)
    assert any("((int32_t)-3), ((int32_t)7)" in c for c in calls)
    assert all(name in out.files for name in UKERNEL_HEADERS)
    hal = compile_to_c(SRC, "t.mlir", target="openmp", compile_to="hal").ir_text
    assert hal.count('#iree_codegen.ukernel_descriptor<"ireec_uk_igemm", memref>') >= len(CASES) + 5
    assert "#iree_codegen.lowering_config<tile_sizes = [[72, 80, 0], [64, 80, 512]]>" in hal  # 130x150x1030
    # The header's work-size macro and the compiler's formula agree.
    from ireec.passes.hal import ukernels as UK
    header = runtime_header("ireec_ukernel_igemm.h")
    assert f"#define IREEC_UK_IGEMM_MAX_MR {UK.IGEMM_MAX_MR}" in header
    assert f"#define IREEC_UK_IGEMM_MAX_NR {UK.IGEMM_MAX_NR}" in header
    assert f"memref<{-(-UK.igemm_work_bytes(64, 80, 512) // 4)}xi32>" in hal


@pytest.mark.parametrize("target", ["c", "openmp"])
def test_matches_numpy_exactly(target, modules):
    m = cached_module(modules, SRC, target)
    rng = np.random.default_rng(0)
    for name, (mm, n, k, az, bz) in CASES.items():
        for extreme in (False, True):
            a, b = random_i8(rng, (mm, k), extreme), random_i8(rng, (k, n), extreme)
            got = getattr(m, name)(a, b)
            assert got.dtype == np.int32
            np.testing.assert_array_equal(got, _ref(a, b, az, bz), err_msg=f"{name} extreme={extreme}")
    a, b = random_i8(rng, (19, 70)), random_i8(rng, (70, 33))
    c = rng.integers(-2**31, 2**31, (19, 33), dtype=np.int64).astype(np.int32)
    np.testing.assert_array_equal(m.acc(a, b, c), (c.astype(np.int64) + _ref(a, b)).astype(np.int32))
    a, b = random_i8(rng, (3, 17, 33)), random_i8(rng, (3, 33, 50))
    np.testing.assert_array_equal(m.batch(a, b), np.stack([_ref(a[i], b[i]) for i in range(3)]))
    a, b = random_i8(rng, (23, 40), True), random_i8(rng, (40, 35))
    np.testing.assert_array_equal(m.u8u8(a, b), _ref(a.view(np.uint8), b.view(np.uint8)))
    a, b = random_i8(rng, (37, 29)), random_i8(rng, (29, 53))
    np.testing.assert_array_equal(m.swapped(b, a), _ref(a, b.view(np.uint8), 5, -9))
    a, bt = random_i8(rng, (29, 45)), random_i8(rng, (61, 45))
    np.testing.assert_array_equal(m.unsigned_nt(a, bt), _ref(a.view(np.uint8), bt.T, 128, 0))


def test_other_integer_types_keep_the_loops():
    """i16 operands and an i8 matmul into i16 are not the micro-kernel's: plain loops."""
    i16 = _matmul("f", 9, 10, 11).replace("xi8>", "xi16>")
    i8_to_i16 = _matmul("f", 9, 10, 11).replace("xi32>", "xi16>").replace("i32", "i16")
    for src in (i16, i8_to_i16):
        assert "ireec_uk_igemm" not in compile_to_c(src, "t.mlir", target="c").files["t_kernels.c"]
    rng = np.random.default_rng(3)
    a, b = rng.integers(-300, 300, (9, 11), dtype=np.int16), rng.integers(-300, 300, (11, 10), dtype=np.int16)
    np.testing.assert_array_equal(ireec.compile_source(i16, target="c").f(a, b), _ref(a, b))


def test_prebuilt_family_object(tmp_path, monkeypatch):
    """`ireec build` compiles the igemm family into its own cached object (hidden symbol)."""
    from ireec.runtime import ukernel_objects
    from ireec.runtime.build import build_shared_library

    monkeypatch.setenv("IREEC_CACHE_DIR", str(tmp_path / "cache"))
    out = compile_to_c(_matmul("f", 20, 30, 40), "t.mlir", target="c")
    assert ukernel_objects.families_used(out.files) == ["igemm"]
    lib = build_shared_library(out.files, out.module_name, tmp_path / "lib.so")
    assert len(list((tmp_path / "cache" / "ukernels").glob("ireec_uk_igemm-*.o"))) == 1
    dyn = subprocess.run(["nm", "-D", "--defined-only", str(lib)], capture_output=True, text=True).stdout
    assert "ireec_uk_igemm" not in dyn
    rng = np.random.default_rng(4)
    a, b = random_i8(rng, (20, 40)), random_i8(rng, (40, 30))
    np.testing.assert_array_equal(ireec.load(str(lib)).f(a, b), _ref(a, b))


# ---------------------------------------------------------------------------
# The header's kernels one by one (IREEC_UK_IGEMM_FORCE_ISA), in C
# ---------------------------------------------------------------------------

#: Random problems against a plain loop nest: sizes, strides (transposed A / B), blockings,
#: signedness, zero points (some large), accumulate or not; every C element compared, and the
#: padding around C untouched. Prints "ok" or the first mismatches.
UNIT_C = r"""
#include <stdio.h>
#include <stdlib.h>
#include "ireec_ukernel_igemm.h"
static uint64_t s_ = 88172645463325252ull;
static uint32_t rnd(void) { s_ ^= s_ << 13; s_ ^= s_ >> 7; s_ ^= s_ << 17; return (uint32_t)s_; }
static int one(int64_t M, int64_t N, int64_t K, int ta, int tb, int flags, int32_t az, int32_t bz,
               int64_t mc, int64_t nc, int64_t kc) {
  int64_t i, j, k, x, bad = 0;
  int64_t a_m = ta ? 1 : K + (int64_t)(rnd() % 3), a_k = ta ? M + (int64_t)(rnd() % 2) : 1;
  int64_t b_k = tb ? 1 : N + (int64_t)(rnd() % 3), b_n = tb ? K + (int64_t)(rnd() % 2) : 1;
  int64_t ldc = N + (int64_t)(rnd() % 3), asz = (ta ? a_k * K : a_m * M) + 8, bsz = (tb ? b_n * N : b_k * K) + 8;
  unsigned char *A = malloc((size_t)asz), *B = malloc((size_t)bsz);
  int32_t *C = malloc(sizeof(int32_t) * (size_t)(ldc * M + 4)), *R = malloc(sizeof(int32_t) * (size_t)(ldc * M + 4));
  void *work = malloc(IREEC_UK_IGEMM_WORK_BYTES(mc, nc, kc));
  int extreme = rnd() % 4 == 0;
  for (x = 0; x < asz; ++x) A[x] = extreme ? ((rnd() & 1) ? 0x80 : 0x7f) : (unsigned char)rnd();
  for (x = 0; x < bsz; ++x) B[x] = extreme ? ((rnd() & 1) ? 0x80 : 0x7f) : (unsigned char)rnd();
  for (x = 0; x < ldc * M + 4; ++x) C[x] = R[x] = (int32_t)rnd();
  for (i = 0; i < M; ++i)
    for (j = 0; j < N; ++j) {
      uint32_t acc = (flags & IREEC_UK_FLAG_ACCUMULATE) ? (uint32_t)R[i * ldc + j] : 0u;
      for (k = 0; k < K; ++k) {
        unsigned char ra = A[i * a_m + k * a_k], rb = B[k * b_k + j * b_n];
        int32_t a = (flags & IREEC_UK_FLAG_LHS_UNSIGNED) ? (int32_t)ra : (int32_t)(int8_t)ra;
        int32_t b = (flags & IREEC_UK_FLAG_RHS_UNSIGNED) ? (int32_t)rb : (int32_t)(int8_t)rb;
        acc += ((uint32_t)a - (uint32_t)az) * ((uint32_t)b - (uint32_t)bz);
      }
      R[i * ldc + j] = (int32_t)acc;
    }
  ireec_uk_igemm(M, N, K, A, a_m, a_k, B, b_k, b_n, C, ldc, az, bz, mc, nc, kc, work, flags);
  for (x = 0; x < ldc * M + 4; ++x)
    if (C[x] != R[x] && bad++ < 3) printf("mismatch at %ld: %d, want %d\n", (long)x, (int)C[x], (int)R[x]);
  if (bad)
    printf("FAIL M=%ld N=%ld K=%ld ta=%d tb=%d flags=%d az=%d bz=%d mc=%ld nc=%ld kc=%ld\n", (long)M, (long)N,
           (long)K, ta, tb, flags, (int)az, (int)bz, (long)mc, (long)nc, (long)kc);
  free(A); free(B); free(C); free(R); free(work);
  return bad != 0;
}
int main(void) {
  int t, fails = 0;
  fails += one(37, 53, 29, 0, 0, 0, 0, 0, 64, 256, 512);
  fails += one(37, 53, 29, 0, 0, IREEC_UK_FLAG_ACCUMULATE, -3, 7, 64, 256, 512);
  fails += one(130, 150, 1030, 0, 0, 0, -128, 5, 64, 96, 512);
  for (t = 0; t < 250; ++t) {
    int64_t M = 1 + rnd() % 70, N = 1 + rnd() % 130, K = 1 + rnd() % 200;
    int flags = (int)(rnd() % 2) | (rnd() % 4 == 0 ? IREEC_UK_FLAG_LHS_UNSIGNED : 0)
                | (rnd() % 4 == 0 ? IREEC_UK_FLAG_RHS_UNSIGNED : 0);
    int32_t az = rnd() % 3 == 0 ? 0 : (int32_t)(rnd() % 300) - 150;
    int32_t bz = rnd() % 3 == 0 ? 0 : (int32_t)(rnd() % 300) - 150;
    int ta = rnd() % 4 == 0, tb = rnd() % 4 == 0;
    int64_t mc = 1 + rnd() % 80, nc = 1 + rnd() % 160, kc = 1 + rnd() % 256;
    if (rnd() % 10 == 0) { az = (int32_t)rnd(); bz = (int32_t)rnd(); }
    fails += one(M, N, K, ta, tb, flags, az, bz, mc, nc, kc);
  }
  printf(fails ? "FAILED %d\n" : "ok\n", fails);
  return fails != 0;
}
"""

#: IREEC_UK_IGEMM_FORCE_ISA value -> the /proc/cpuinfo flags that kernel needs.
ISAS = {"avx512vnni": (3, ("avx512f", "avx512_vnni")), "avxvnni": (2, ("avx2", "avx_vnni")),
        "avx2": (1, ("avx2",)), "portable": (0, ())}


def _cpu_flags() -> set:
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return set()
    m = re.search(r"^flags\s*:(.*)$", text, re.M)
    return set(m.group(1).split()) if m else set()


def _write_headers(folder: Path) -> None:
    for name in ("ireec_ukernel_common.h", "ireec_ukernel_igemm.h"):
        (folder / name).write_text(runtime_header(name))


@pytest.mark.parametrize("isa", list(ISAS))
def test_each_kernel_in_c(isa, tmp_path):
    """Each kernel set of the header against the loop nest, compiled with
    -Wall -Wextra -Werror; the portable one under UBSan too (no signed overflow: its sums
    are unsigned)."""
    if shutil.which("cc") is None:
        pytest.skip("no C compiler")
    value, needs = ISAS[isa]
    if needs and (platform_machine() != "x86_64" or not set(needs) <= _cpu_flags()):
        pytest.skip(f"the CPU lacks {', '.join(needs)}")
    _write_headers(tmp_path)
    (tmp_path / "t.c").write_text(UNIT_C)
    flags = ["-std=c99", "-O2", "-Wall", "-Wextra", "-Werror", f"-DIREEC_UK_IGEMM_FORCE_ISA={value}"]
    if isa == "portable":
        flags += ["-fsanitize=undefined", "-fno-sanitize-recover=all"]
    subprocess.run(["cc", *flags, "-I", str(tmp_path), str(tmp_path / "t.c"), "-o", str(tmp_path / "t")],
                   check=True, capture_output=True, text=True)
    run = subprocess.run([str(tmp_path / "t")], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0 and run.stdout.strip().endswith("ok"), run.stdout + run.stderr


def platform_machine() -> str:
    import platform
    return platform.machine()


# ---------------------------------------------------------------------------
# Cortex-M4: the portable kernels, each pair of products one SMLAD
# ---------------------------------------------------------------------------

def _on_cortex_m(src_path, fn, args, results, tmp_path, capsys, monkeypatch):
    """Build ``fn`` of ``src_path`` for the Cortex-M4 (tests/e2e/cortex_m.py) and run it under
    QEMU: (the ELF, the printed words)."""
    from . import cortex_m as CM

    why = CM.missing_tools()
    if why is not None:
        pytest.skip(why)
    elf = CM.build_firmware(Path(src_path), fn, args, results, tmp_path / "m4")
    return elf, CM.run_qemu(elf)


def test_quantized_matmul_on_cortex_m4(tmp_path, capsys, monkeypatch):
    """quantized_matmul 37x53x29 with zero points, built for a Cortex-M4 (-mcpu=cortex-m4:
    __ARM_FEATURE_DSP) and run under QEMU: the results are exact and the kernels use SMLAD."""
    src = tmp_path / "q.mlir"
    src.write_text(_qmatmul("main", 37, 53, 29, -3, 7))
    rng = np.random.default_rng(5)
    a, b = random_i8(rng, (37, 29)), random_i8(rng, (29, 53))
    want = _ref(a, b, -3, 7)
    elf, words = _on_cortex_m(src, "main", [a, b], [want], tmp_path, capsys, monkeypatch)
    i = words.index("status")
    assert words[i:i + 2] == ["status", "0"], " ".join(words)[:300]
    np.testing.assert_array_equal(np.array([int(x) for x in words[i + 2:]]).reshape(want.shape), want)
    dis = subprocess.run(["arm-none-eabi-objdump", "-d", str(elf)], capture_output=True, text=True).stdout
    assert re.search(r"\bsmlad\b", dis)


def test_mlp_int8_on_cortex_m4(tmp_path, capsys, monkeypatch):
    """The quantized MLP (two linalg.quantized_matmul) on the Cortex-M4 matches ONNX Runtime
    to the quantization step."""
    path = shared_path("models", "quant", "mlp_int8", "mlp_int8.qdq.linalg.mlir")
    args, expected = inputs_and_expected(path)
    _, words = _on_cortex_m(path, "main_graph", args, [expected], tmp_path, capsys, monkeypatch)
    i = words.index("status")
    assert words[i:i + 2] == ["status", "0"], " ".join(words)[:300]
    got = np.array([float(x) for x in words[i + 2:]]).reshape(expected.shape)
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-6)
