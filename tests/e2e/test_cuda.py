"""Target ``cuda``: the generated CUDA sources compile with nvcc on any machine that has it
(compile only, warnings as errors, with only the runtime headers beside them), ``ireec build
--target=cuda`` links a library whose reflection loads without a GPU, and, on a machine with
an NVIDIA GPU (tests marked ``gpu``), the seeds, the models and the corpus run on the GPU and
match numpy / their expected outputs.

Without a GPU the generated CUDA also runs on the CPU: tests/e2e/cuda_emulation/ stands in for
the CUDA runtime (host memory, every block and thread in turn), so launch grids, the thread
mapping and the host module are checked against the ``c`` target and the models' outputs.

Also here: a target registered from this file (a subclass of the C target with its own name,
kernel specifier and ``#define``) is built and run without editing any ireec module.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Dict, List

import numpy as np
import pytest

import ireec
from ireec.compiler import compile_file
from ireec.runtime.loader import StatusError
from ireec.runtime.build import GPU_UKERNEL_HEADER, RUNTIME_HEADER, build_shared_library
from ireec.targets import get_target, register_target, target_names, unregister_target
from ireec.targets.c import CTarget
from ireec.targets.cuda import gpu_visible

from . import corpus
from .common import build, run_cli
from .models import inputs_and_expected, model_files, read_status, rel

INPUTS = Path(__file__).resolve().parent / "inputs"
SEEDS = sorted(INPUTS.glob("*.mlir"))
NVCC = shutil.which(os.environ.get("NVCC", "nvcc"))
needs_nvcc = pytest.mark.skipif(NVCC is None, reason="nvcc not found (set NVCC)")
GPU = gpu_visible()
#: Flags of the compile-only check: the default GPU architecture, no FMA contraction, every
#: nvcc warning an error, and the host compiler's -Wall -Wextra -Werror.
NVCC_CHECK = ["-O3", "-arch=sm_90", "-fmad=false", "-Werror", "all-warnings",
              "-Xcompiler", "-fPIC,-Wall,-Wextra,-Werror"]
PASS_MODELS = [p for p in model_files() if read_status().get(rel(p), ("",))[0] == "pass"]


def _nvcc_check(directory: Path) -> List[str]:
    """Compile every .cu file of ``directory`` to an object (two at a time); the error
    messages of the ones that fail."""
    cus = sorted(p.name for p in directory.glob("*.cu"))
    assert cus, f"no .cu file in {directory}"

    def one(name: str) -> str:
        proc = subprocess.run([NVCC] + NVCC_CHECK + ["-I", ".", "-c", name, "-o", name + ".o"],
                              cwd=directory, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        return "" if proc.returncode == 0 else f"{name}:\n{proc.stdout}"

    with ThreadPoolExecutor(max_workers=2) as pool:
        return [e for e in pool.map(one, cus) if e]


def _write_vmc(path: Path, out: Path) -> Dict[str, str]:
    """``ireec compile --target=cuda --output-format=vm-c`` of ``path`` into ``out``."""
    files = compile_file(str(path), target="cuda").files
    out.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (out / name).write_text(text)
    return files


def _check_sources_compile(path: Path, out: Path) -> None:
    files = _write_vmc(path, out)
    mod = next(n[:-3] for n in files if n.endswith(".cu") and not n.endswith("_kernels.cu"))
    assert sorted(files) == sorted([f"{mod}.h", f"{mod}.cu", f"{mod}_kernels.h", f"{mod}_kernels.cu",
                                    RUNTIME_HEADER, GPU_UKERNEL_HEADER])
    errors = _nvcc_check(out)
    assert not errors, "\n".join(errors)


# --------------------------------------------------------------------------- no GPU needed
@needs_nvcc
@pytest.mark.parametrize("path", SEEDS, ids=[p.stem for p in SEEDS])
def test_seed_sources_compile_with_nvcc(path, tmp_path):
    """The vm-c sources of a seed compile on their own (only the runtime headers beside them)."""
    _check_sources_compile(path, tmp_path)


@needs_nvcc
@pytest.mark.slow
@pytest.mark.parametrize("path", PASS_MODELS or [None], ids=[rel(p) for p in PASS_MODELS] or ["absent"])
def test_model_sources_compile_with_nvcc(path, tmp_path):
    """Every model whose status is ``pass`` compiles for cuda with nvcc, warning-free."""
    if path is None:
        pytest.skip("../shared/models is not present")
    _check_sources_compile(path, tmp_path)


def _corpus_files_passing_on_c() -> List[Path]:
    """Corpus files all of whose tests pass on ``c`` (tests/e2e/corpus_status.md)."""
    if not corpus.CORPUS.is_dir():
        return []
    rows: Dict[str, List[str]] = {}
    for (f, _name), (status, _why) in corpus.read_status().items():
        rows.setdefault(f, []).append(status)
    return [corpus.CORPUS / f for f, sts in sorted(rows.items()) if all(s == "pass" for s in sts)]


CORPUS_FILES = _corpus_files_passing_on_c()


@needs_nvcc
@pytest.mark.slow
@pytest.mark.parametrize("path", CORPUS_FILES or [None],
                         ids=[str(p.relative_to(corpus.CORPUS)) for p in CORPUS_FILES] or ["absent"])
def test_corpus_sources_compile_with_nvcc(path, tmp_path):
    """Every corpus file that passes on ``c`` compiles for cuda with nvcc, warning-free."""
    if path is None:
        pytest.skip("../shared/corpus/iree_e2e is not present")
    _check_sources_compile(path, tmp_path)


@needs_nvcc
def test_build_cuda_library_and_load_without_gpu(tmp_path, capsys):
    """``ireec build --target=cuda`` links a .so with nvcc; ``ireec.load`` reads its
    reflection; without a GPU a call fails with UNAVAILABLE instead of crashing."""
    lib = build(INPUTS / "add.mlir", tmp_path, capsys, target="cuda")
    m = ireec.load(lib)
    assert m.functions
    name = m.functions[0]
    args = [np.ones(t.shape, dtype=t.dtype) for t in m.info(name).args]
    if GPU:
        np.testing.assert_array_equal(m.call(name, *args), ireec.load(build(INPUTS / "add.mlir", tmp_path / "c", capsys)).call(name, *args))
        return
    with pytest.raises(StatusError) as e:
        m.call(name, *args)
    assert e.value.status_name in ("UNAVAILABLE", "INCOMPATIBLE")


@needs_nvcc
def test_cuda_arch_flag_reaches_nvcc(tmp_path, capsys):
    """``--cuda-arch`` is nvcc's ``-arch`` (an unknown one fails the build, naming it)."""
    code, _out, err = run_cli(["build", str(INPUTS / "abs.mlir"), "--target=cuda",
                               "--cuda-arch=sm_1234", "-o", str(tmp_path / "lib.so")], capsys)
    assert code == 1 and "sm_1234" in err
    assert get_target("cuda").configure(cuda_arch="sm_80").compile_flags()[1] == "-arch=sm_80"


def test_cuda_is_a_target_of_every_command(tmp_path, capsys):
    """--target=cuda and --iree-hal-target-backends=cuda are accepted by compile and check."""
    assert "cuda" in target_names()
    code, _out, err = run_cli(["compile", str(INPUTS / "abs.mlir"), "--iree-hal-target-backends=cuda",
                               "--output-format=vm-c", "-o", str(tmp_path / "o")], capsys)
    assert code == 0, err
    assert (tmp_path / "o" / "abs_kernels.cu").exists()
    text = (tmp_path / "o" / "abs_kernels.cu").read_text()
    assert "__global__" in text and "blockIdx" in text and "<<<" in text


def test_static_workspace_is_refused_for_cuda(tmp_path, capsys):
    code, _out, err = run_cli(["compile", str(INPUTS / "matmul_128.mlir"), "--target=cuda",
                               "--workspace=static", "--output-format=vm-c", "-o", str(tmp_path / "o")],
                              capsys)
    assert code == 1 and "--workspace=static is not supported for --target=cuda" in err


# --------------------------------------------------------------------------- a toy target
class ToyTarget(CTarget):
    """The C target under another name, with its own kernel specifier and a ``#define``."""

    name = "toy"
    variant = "toy_c"

    def kernel_preamble(self):
        return ["#define TOY_KERNEL __attribute__((noinline))"]

    def kernel_specifiers(self, has_loop):
        return ["static", "TOY_KERNEL"]


@pytest.fixture
def toy_target():
    register_target(ToyTarget)
    try:
        yield ToyTarget
    finally:
        unregister_target(ToyTarget.name)


def test_toy_target_registered_from_a_test_builds_and_runs(toy_target, tmp_path, capsys):
    """A target added from outside ireec is a --target choice, renders with its own kernel
    specifier and preamble, and its library computes what numpy does."""
    out = compile_file(str(INPUTS / "add.mlir"), target="toy")
    kernels = out.files["add_kernels.c"]
    assert "#define TOY_KERNEL" in kernels and "static TOY_KERNEL void" in kernels
    assert "Target: toy." in kernels
    lib = build(INPUTS / "add.mlir", tmp_path, capsys, target="toy")
    m = ireec.load(lib)
    name = m.functions[0]
    rng = np.random.default_rng(0)
    a, b = [rng.standard_normal(t.shape).astype(t.dtype) for t in m.info(name).args]
    np.testing.assert_array_equal(m.call(name, a, b), a + b)
    lib2 = build_shared_library(out.files, out.module_name, tmp_path / "lib2.so", target=ToyTarget())
    assert lib2.exists()


# --------------------------------------------------------------------------- on a GPU
@pytest.mark.parametrize("path", SEEDS, ids=[p.stem for p in SEEDS])
@pytest.mark.gpu
def test_gpu_seed_matches_c(path, tmp_path, capsys):
    """Each seed function on the GPU matches the ``c`` target within rtol 1e-5, atol 1e-4
    (the matmul micro-kernel fuses multiply-adds; element-wise work is bit-identical)."""
    if not GPU:
        pytest.skip("no NVIDIA GPU visible (nvidia-smi -L)")
    c = ireec.load(build(path, tmp_path / "c", capsys, target="c"))
    g = ireec.load(build(path, tmp_path / "cuda", capsys, target="cuda"))
    rng = np.random.default_rng(0)
    for name in c.functions:
        args = [rng.standard_normal(t.shape).astype(t.dtype) for t in c.info(name).args]
        np.testing.assert_allclose(g.call(name, *args), c.call(name, *args), rtol=1e-5, atol=1e-4)


@pytest.mark.gpu
@pytest.mark.parametrize("path", PASS_MODELS or [None], ids=[rel(p) for p in PASS_MODELS] or ["absent"])
def test_gpu_model_matches_expected(path, tmp_path, capsys):
    """Every ``pass`` model on the GPU within rtol = atol = 1e-4 of its expected output."""
    if not GPU:
        pytest.skip("no NVIDIA GPU visible (nvidia-smi -L)")
    if path is None:
        pytest.skip("../shared/models is not present")
    args, expected = inputs_and_expected(path)
    m = ireec.load(build(path, tmp_path, capsys, target="cuda"))
    out = m.call(m.functions[0], *args)
    if isinstance(out, (list, tuple)):
        out = out[0]
    np.testing.assert_allclose(out, expected, rtol=1e-4, atol=1e-4)


@pytest.mark.gpu
@pytest.mark.slow
def test_gpu_corpus_passes_exactly_what_c_passes():
    """On the GPU, every corpus test has the same outcome as on ``c``."""
    if not GPU:
        pytest.skip("no NVIDIA GPU visible (nvidia-smi -L)")
    if not corpus.CORPUS.is_dir():
        pytest.skip("../shared/corpus/iree_e2e is not present")
    cu = {(f, n): st for f, n, st, _ in corpus.run_all("cuda")}
    c = {k: st for k, (st, _why) in corpus.read_status().items()}
    differ = sorted(k for k in c if (c[k] == "pass") != (cu.get(k) == "pass"))
    assert not differ, f"cuda and c differ on {len(differ)} tests: {differ[:10]}"


def test_workgroups_run_on_a_block_of_threads(tmp_path):
    """Loops whose iterations own their outputs (elementwise, matmul rows) are spread over
    the block's threads, block-stride, with a barrier between consecutive loops and before
    an f32 matmul's micro-kernel call (256 threads); a reduction of everything into one
    element runs over the block (warp shuffles, then shared memory), a short one on one
    thread; the c target is unchanged."""
    chain = compile_file(str(Path(__file__).resolve().parents[2] / "benchmarks" / "cases" / "elementwise_chain.mlir"),
                         target="cuda").files["elementwise_chain_kernels.cu"]
    assert "(int)threadIdx.x" in chain and "= 256 * 1;" in chain  # block-stride, a constant block size
    assert "dim3(256, 1, 1)" in chain and "__syncthreads" not in chain
    mm = compile_file(str(INPUTS / "matmul_small.mlir"), target="cuda").files["matmul_small_kernels.cu"]
    assert "(int)threadIdx.x" in mm and "__syncthreads();\n  ireec_gpu_matmul_f32(" in mm
    assert "dim3(256, 1, 1), 0, stream>>>" in mm
    # Not an f32 matmul: its rows are spread over a warp-rounded block, a barrier between loops.
    i64 = (INPUTS / "matmul_small.mlir").read_text().replace("f32", "i32").replace("arith.mulf", "arith.muli").replace("arith.addf", "arith.addi")
    (tmp_path / "mm_i32.mlir").write_text(i64)
    mm = compile_file(str(tmp_path / "mm_i32.mlir"), target="cuda").files["mm_i32_kernels.cu"]
    assert "ireec_gpu_" not in mm and "(int)threadIdx.x" in mm and "__syncthreads();" in mm
    assert "dim3(32, 1, 1), 0, stream>>>" in mm
    total = tmp_path / "total.mlir"
    total.write_text("""func.func @total(%x: tensor<1000xf32>) -> tensor<f32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<f32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %s = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> ()>],
                       iterator_types = ["reduction"]} ins(%x : tensor<1000xf32>) outs(%init : tensor<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.addf %acc, %a : f32
    linalg.yield %r : f32
  } -> tensor<f32>
  return %s : tensor<f32>
}
""")
    red = compile_file(str(total), target="cuda").files["total_kernels.cu"]
    assert "__shfl_down_sync" in red and "__shared__ float" in red and "dim3(256, 1, 1), 0, stream>>>" in red
    small = tmp_path / "small.mlir"
    small.write_text(total.read_text().replace("1000xf32", "5xf32"))
    red = compile_file(str(small), target="cuda").files["small_kernels.cu"]
    assert "threadIdx" not in red and "dim3(1, 1, 1), 0, stream>>>" in red
    files = compile_file(str(INPUTS / "add.mlir"), target="c").files
    c = files["add_kernels.c"]
    assert "threadIdx" not in c and "__syncthreads" not in c
    # the device micro-kernels ship with the cuda target's outputs only
    assert GPU_UKERNEL_HEADER not in files and "ireec_gpu_matmul" not in files[RUNTIME_HEADER]


# --------------------------------------------------------------------------- CPU emulation
EMULATION = Path(__file__).resolve().parent / "cuda_emulation"
CXX = shutil.which(os.environ.get("CXX", "g++"))
_LAUNCH = re.compile(r"(\w+)<<<(dim3\([^)]*\)), (dim3\([^)]*\)), 0, stream>>>\((.*)\);")


def emulated_cuda_library(path: Path, out: Path) -> Path:
    """Build the cuda target's sources of ``path`` for the CPU: the CUDA runtime calls go to
    tests/e2e/cuda_emulation/cuda_runtime_api.h (host memory, memcpy) and each kernel launch
    runs every block and thread in turn; no contraction into FMA (as ``--strict-fp``), so
    results can be compared bit for bit with the ``c`` target's under ``--strict-fp``.
    Returns the shared library's path."""
    o = compile_file(str(path), target="cuda")
    out.mkdir(parents=True, exist_ok=True)
    for name, text in o.files.items():
        if name.endswith("_kernels.cu"):
            text, n = _LAUNCH.subn(lambda m: f"ireec_emulate_launch({m[1]}, {m[2]}, {m[3]}"
                                             f"{', ' + m[4] if m[4] else ''});", text)
            assert n == text.count("ireec_emulate_launch(") and "<<<" not in text
        (out / name).write_text(text)
    mod = o.module_name
    (out / "shim.cpp").write_text(f'#include "{mod}.h"\nextern "C" const ireec_module_info_t '
                                  f"*ireec_query_module_info(void) {{ return &{mod}_module_info; }}\n")
    lib = out / f"lib{mod}.so"
    cmd = [CXX, "-std=c++17", "-O1", "-ffp-contract=off", "-fPIC", "-shared", "-w", "-I", str(EMULATION), "-I", ".", "-x", "c++",
           f"{mod}.cu", f"{mod}_kernels.cu", "shim.cpp", "-o", lib.name, "-pthread", "-lm"]
    proc = subprocess.run(cmd, cwd=out, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert proc.returncode == 0, proc.stdout
    return lib


needs_cxx = pytest.mark.skipif(CXX is None, reason="no C++ compiler (set CXX)")
EMULATED_MODELS = [p for p in PASS_MODELS if rel(p).startswith("jax/") and p.name.endswith(".const.mlir")]
EMULATED = SEEDS + [Path(__file__).resolve().parents[2] / "benchmarks" / "cases" / f"{c}.mlir"
                    for c in ("elementwise_chain", "row_sum")]


@needs_cxx
@pytest.mark.parametrize("path", EMULATED, ids=[p.stem for p in EMULATED])
def test_emulated_cuda_matches_c(path, tmp_path, capsys):
    """The cuda target's host module and kernels, run on the CPU through the emulated CUDA
    runtime (every block, every thread), compute what the ``c`` target computes: launch
    grids, block-stride thread mapping, device entries, host-pointer entry and reflection.
    Bit-identical (both without FMA contraction: ``--strict-fp`` for ``c``, the emulation's
    ISO C++ mode for cuda) except where the matmul micro-kernel fuses multiply-adds or a warp
    reduction reorders a sum (rtol 1e-5, atol 1e-4 there: an indexing error would be of the
    order of the values). row_sum runs on 1000 rows (the emulation runs every thread)."""
    if path.stem == "row_sum":
        tmp_path.mkdir(parents=True, exist_ok=True)
        small = tmp_path / "row_sum.mlir"
        small.write_text(path.read_text().replace("100000x", "1000x").replace("<100000x", "<1000x")
                         .replace("tensor<100000xf32>", "tensor<1000xf32>"))
        path = small
    g = ireec.load(emulated_cuda_library(path, tmp_path / "cuda"))
    c = ireec.load(build(path, tmp_path / "c", capsys, "c", "--strict-fp"))
    o = compile_file(str(path), target="cuda")
    kernels = o.files[f"{o.module_name}_kernels.cu"]
    fused = "ireec_gpu_matmul_f32(" in kernels or "__shfl_down_sync" in kernels
    rng = np.random.default_rng(0)
    for name in c.functions:
        args = [rng.standard_normal(t.shape).astype(t.dtype) for t in c.info(name).args]
        if fused:
            np.testing.assert_allclose(g.call(name, *args), c.call(name, *args), rtol=1e-5, atol=1e-4)
        else:
            np.testing.assert_array_equal(g.call(name, *args), c.call(name, *args))


@needs_cxx
@pytest.mark.parametrize("path", EMULATED_MODELS or [None], ids=[rel(p) for p in EMULATED_MODELS] or ["absent"])
def test_emulated_cuda_model_matches_expected(path, tmp_path):
    """JAX models (constants in the module image) through the emulated CUDA runtime match
    their expected outputs within rtol = atol = 1e-5."""
    if path is None:
        pytest.skip("../shared/models is not present")
    args, expected = inputs_and_expected(path)
    m = ireec.load(emulated_cuda_library(path, tmp_path))
    out = m.call(m.functions[0], *args)
    out = out[0] if isinstance(out, tuple) else out
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-5)


#: Corpus files with host-side control flow on tensor values, module state and scatter:
#: the host program reads and writes device memory (``ireec_cuda_read``/``_write``).
EMULATED_CORPUS = ["tests/e2e/tosa_ops/while.mlir", "tests/e2e/stablehlo_ops/while.mlir",
                   "tests/e2e/regression/globals.mlir", "tests/e2e/stablehlo_ops/scatter.mlir",
                   "tests/e2e/regression/scalar_computation.mlir"]


@needs_cxx
@pytest.mark.parametrize("name", EMULATED_CORPUS)
def test_emulated_cuda_corpus_matches_c(name, tmp_path, capsys):
    """Argument-free corpus functions (their outputs are the checked values) give the same
    bytes through the emulated CUDA runtime as on the ``c`` target."""
    path = corpus.CORPUS / name
    if not path.exists():
        pytest.skip(f"{path} is not present")
    g = ireec.load(emulated_cuda_library(path, tmp_path / "cuda"))
    c = ireec.load(build(path, tmp_path / "c", capsys, target="c"))
    assert g.functions == c.functions
    for fn in c.functions:
        if c.info(fn).args:
            continue
        want, got = c.call(fn), g.call(fn)
        want = want if isinstance(want, tuple) else (want,)
        got = got if isinstance(got, tuple) else (got,)
        for a, b in zip(got, want):
            np.testing.assert_array_equal(a, b, err_msg=f"{name} @{fn}")


class _DeviceArray:
    """A numpy array seen as a device array (``__cuda_array_interface__`` v3); with the
    emulated CUDA runtime, device memory is host memory."""

    def __init__(self, array: np.ndarray):
        self.array = np.array(array, order="C")  # a copy; 0-d stays 0-d
        self.__cuda_array_interface__ = {"shape": self.array.shape, "typestr": self.array.dtype.str,
                                         "data": (self.array.ctypes.data, False), "strides": None,
                                         "version": 3, "stream": None}


@needs_cxx
@pytest.mark.parametrize("path", SEEDS, ids=[p.stem for p in SEEDS])
def test_emulated_cuda_zero_copy_call(path, tmp_path, capsys):
    """``ireec.load`` passes arrays with ``__cuda_array_interface__`` (and ``out=``) to the
    device entries without copies; results match the host-pointer call."""
    g = ireec.load(emulated_cuda_library(path, tmp_path / "cuda"))
    rng = np.random.default_rng(1)
    for name in g.functions:
        fi = g.info(name)
        args = [rng.standard_normal(t.shape).astype(t.dtype) for t in fi.args]
        outs = [_DeviceArray(np.zeros(t.shape, t.dtype)) for t in fi.results]
        got = g.call(name, *[_DeviceArray(a) for a in args], out=outs)
        assert got is outs[0] if len(outs) == 1 else got == tuple(outs)
        want = g.call(name, *args)
        want = want if isinstance(want, tuple) else (want,)
        for o, w in zip(outs, want):
            np.testing.assert_array_equal(o.array, w)
        with pytest.raises(TypeError, match="need out="):
            g.call(name, *[_DeviceArray(a) for a in args])
    c = ireec.load(build(path, tmp_path / "c", capsys, target="c"))
    name = c.functions[0]
    fi = c.info(name)
    with pytest.raises(TypeError, match="no device entries"):
        c.call(name, *[_DeviceArray(np.zeros(t.shape, t.dtype)) for t in fi.args],
               out=[_DeviceArray(np.zeros(t.shape, t.dtype)) for t in fi.results])


# --------------------------------------------------------------------------- GPU lowering configs
KERNEL_SHAPES = Path(__file__).resolve().parent / "gpu_inputs" / "kernel_shapes.mlir"


def _kernel_shapes_reference(name: str, args: List[np.ndarray]) -> np.ndarray:
    """numpy (float64) of each function of gpu_inputs/kernel_shapes.mlir."""
    a = [x.astype(np.float64) for x in args]
    return {
        "matmul_partial": lambda: a[0] @ a[1],
        "matmul_unit": lambda: a[0] @ a[1],
        "matmul_accumulate": lambda: a[2] + a[0] @ a[1],
        "matmul_transposed": lambda: a[0].T @ a[1].T,
        "batch_matmul_bias_relu": lambda: np.maximum(a[0] @ a[1] + a[2], 0),
        "elementwise_odd": lambda: a[0] * a[1],
        "elementwise_narrow": lambda: a[0] - a[1],
        "row_max": lambda: a[0].max(axis=1),
        "row_sum_long": lambda: (a[0] + a[1]).sum(axis=1),
        "row_max_i32": lambda: a[0].max(axis=1),
        "total_sum": lambda: a[0].sum(),
        "matmul_f16": lambda: a[0] @ a[1],
        "matmul_broadcast_rhs": lambda: a[0] @ a[1],
        "total_min_i32": lambda: a[0].min(),
        "softmax_long_rows": lambda: np.exp(a[0] - a[0].max(1, keepdims=True)) / np.exp(a[0] - a[0].max(1, keepdims=True)).sum(1, keepdims=True),
        "softmax_rows": lambda: np.exp(a[0] - a[0].max(1, keepdims=True)) / np.exp(a[0] - a[0].max(1, keepdims=True)).sum(1, keepdims=True),
    }[name]()


@needs_cxx
def test_emulated_gpu_kernel_shapes_match_numpy(tmp_path, monkeypatch):
    """Every kernel shape of the GPU configs (matmul micro-kernel with partial tiles, unit
    dims, accumulation, transposed operands, batch + epilogue; elementwise tiles, here with
    the grid capped at 2 blocks so blocks loop over workgroups; reductions with a warp per
    row (f32 sums, i32 max, a softmax with block-shared row temporaries), a block per long
    row, a thread per short row, the whole block for a fold into one element) run
    through the CUDA emulation matches numpy within rtol 1e-5 / atol 1e-4 (f16: 1e-3 / 1e-2)."""
    import ireec.targets.cuda as cuda

    monkeypatch.setattr(cuda, "SM_COUNT", 2)
    monkeypatch.setattr(cuda, "BLOCKS_PER_SM", 1)
    text = compile_file(str(KERNEL_SHAPES), target="cuda").files["kernel_shapes_kernels.cu"]
    assert text.count("ireec_gpu_matmul_f32(") == 6 and text.count("ireec_gpu_matmul_f16(") == 1
    assert "grid 2x1x1 (grid-stride)" in text and "wg += (int64_t)gridDim.x" in text
    assert "__shfl_down_sync" in text and "__shared__ float" in text  # row reductions, softmax
    # Few long rows: a block per row (partials through shared memory), launched 256 wide.
    assert "softmax_long_rows_dispatch_0_reduction_3x2001_f32: workgroup count 3x1x1, grid 2x1x1" in text
    assert "softmax_long_rows_dispatch_0_reduction_3x2001_f32_kernel<<<dim3(2, 1, 1), dim3(256, 1, 1)" in text
    softmax = text[text.index("softmax_rows_dispatch_0_reduction_37x257_f32_kernel("):]
    assert "gridDim.x" in softmax.split("\n}")[0] and "__syncthreads();  /* the next" in softmax
    g = ireec.load(emulated_cuda_library(KERNEL_SHAPES, tmp_path))
    rng = np.random.default_rng(3)
    for name in g.functions:
        args = [(rng.uniform(-1, 1, t.shape) if t.dtype.kind == "f" else rng.integers(-1000, 1000, t.shape)).astype(t.dtype)
                for t in g.info(name).args]
        got = g.call(name, *args)
        tol = 1e-2 if got.dtype == np.float16 else 1e-4  # f16: the result's rounding
        np.testing.assert_allclose(got.astype(np.float64), _kernel_shapes_reference(name, args),
                                   rtol=tol / 10, atol=tol, err_msg=name)


@needs_nvcc
@pytest.mark.slow
def test_kernel_shapes_compile_with_nvcc(tmp_path):
    """Every GPU kernel shape (micro-kernels, warp and block reductions, shared temporaries,
    grid-stride launches) compiles with nvcc, warning-free, with ptxas placing no register
    block on the stack."""
    _check_sources_compile(KERNEL_SHAPES, tmp_path)
    proc = subprocess.run([NVCC] + NVCC_CHECK + ["-Xptxas", "-v", "-I", ".", "-c", "kernel_shapes_kernels.cu",
                                                 "-o", "k.o"], cwd=tmp_path, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True)
    frames = re.findall(r"(\d+) bytes stack frame", proc.stdout)
    assert proc.returncode == 0 and frames and set(frames) == {"0"}, proc.stdout


def test_gpu_lowering_config_is_shown_at_hal(tmp_path, capsys):
    """``--compile-to=hal`` for cuda shows each dispatch's GPU config: the pipeline and
    workgroup size in ``translation_info``, the workgroup tiles (and the matmul micro-kernel)
    in ``#iree_gpu.lowering_config`` (kept on the micro-kernel op) and ``ireec.distribution``,
    the workgroup count on the export; the c target keeps its CPU config."""
    code, out, err = run_cli(["compile", str(KERNEL_SHAPES), "--target=cuda", "--compile-to=hal"], capsys)
    assert code == 0, err
    assert "pipeline = LLVMGPUMatmulSimt workgroup_size = [256, 1, 1]" in out
    assert 'ukernel = #iree_gpu.ukernel_config<name = "ireec_gpu_matmul_f32">' in out
    assert "#iree_gpu.lowering_config<{workgroup = [1, 128, 128, 0]" in out  # batch, m, n, k
    assert "ireec.distribution = array<i64: 3, 1, 33, 128, 17, 128>" in out
    assert "pipeline = LLVMGPUVectorize workgroup_size = [256, 1, 1]" in out
    assert "ireec.distribution = array<i64: 20011, 1024>" in out
    assert "pipeline = LLVMGPUWarpReduction" in out
    assert "workgroup_count = array<i64: 20, 1, 1>" in out  # 20011 elements in tiles of 1024
    tall = tmp_path / "tall.mlir"  # 70000 rows in tiles of 1 would exceed the grid's y limit
    tall.write_text("""func.func @tall(%a: tensor<70000x300xf32>) -> tensor<70000x300xf32> {
  %e = tensor.empty() : tensor<70000x300xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]} ins(%a : tensor<70000x300xf32>) outs(%e : tensor<70000x300xf32>) {
  ^bb0(%x: f32, %o: f32):
    %n = arith.negf %x : f32
    linalg.yield %n : f32
  } -> tensor<70000x300xf32>
  return %r : tensor<70000x300xf32>
}
""")
    code, out, err = run_cli(["compile", str(tall), "--target=cuda", "--compile-to=hal"], capsys)
    assert code == 0, err
    assert "workgroup_count = array<i64: 1, 35000, 1>" in out and "ireec.distribution = array<i64: 70000, 2, 300, 300>" in out
    code, out, err = run_cli(["compile", str(KERNEL_SHAPES), "--target=c", "--compile-to=hal"], capsys)
    assert code == 0, err
    assert "iree_gpu" not in out and "CPUDoubleTilingExpert" in out
