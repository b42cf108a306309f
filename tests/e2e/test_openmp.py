"""The ``openmp`` target gives the same results as ``c`` (within 1e-5): on a sample of
IREE's e2e corpus (``ireec check --target=openmp``), and on small programs whose kernels hold control flow (every model of ../shared/models is
built for both targets in test_models.py); its launch functions really fork
(libgomp) and its C is warning-free with and without ``-fopenmp``."""
from __future__ import annotations

import ctypes
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import ireec
from ireec.runtime.build import build_shared_library, compile_object_check, undefined_symbols

from .common import REPO, build, shared_path

# A sample of the corpus, one file per suite, that passes in full with target c.
CORPUS = [
    ("stablehlo_ops", "while.mlir"), ("stablehlo_ops", "reduce.mlir"), ("stablehlo_ops", "convolution.mlir"),
    ("stablehlo_ops", "gather.mlir"), ("stablehlo_ops", "scatter.mlir"), ("stablehlo_ops", "sort.mlir"),
    ("tosa_ops", "while.mlir"), ("tosa_ops", "table.mlir"), ("linalg", "conv2d.mlir"),
    ("math", "math_ops_llvm-cpu.mlir"), ("tensor_ops", "extract_slice.mlir"), ("stablehlo_models", "collatz.mlir"),
]


def _corpus_file(suite: str, name: str) -> Path:
    root = shared_path("corpus", "iree_e2e", "tests")
    hits = sorted(p for p in root.rglob(name) if suite in p.parts)
    if not hits:
        pytest.skip(f"{suite}/{name} is not in the corpus")
    return hits[0]


def _check(path: Path, target: str):
    env = dict(os.environ)
    proc = subprocess.run([sys.executable, "-m", "ireec", "check", str(path), f"--target={target}"],
                          cwd=REPO, capture_output=True, text=True, env=env, timeout=600)
    return proc.returncode, proc.stdout


@pytest.mark.parametrize("suite,name", CORPUS, ids=[f"{s}-{n}" for s, n in CORPUS])
def test_corpus_openmp_matches_c(suite, name):
    path = _corpus_file(suite, name)
    rc_c, out_c = _check(path, "c")
    assert rc_c == 0, f"{suite}/{name} no longer passes with target c:\n{out_c[-2000:]}"
    rc, out = _check(path, "openmp")
    assert rc == 0, out
    passed = [ln.split()[0] for ln in out.splitlines() if "PASS" in ln]
    assert passed and passed == [ln.split()[0] for ln in out_c.splitlines() if "PASS" in ln]


# ------------------------------------------------- control flow through the whole pipeline
CONTROL_FLOW = """
#map = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @piecewise(%x: tensor<16x32xf32>, %t: tensor<16xi32>) -> tensor<16x32xf32> {
  %e = tensor.empty() : tensor<16x32xf32>
  %r = linalg.generic {indexing_maps = [#map, #row, #map], iterator_types = ["parallel", "parallel"]}
      ins(%x, %t : tensor<16x32xf32>, tensor<16xi32>) outs(%e : tensor<16x32xf32>) {
  ^bb0(%a: f32, %n: i32, %o: f32):
    %z = arith.constant 0.0 : f32
    %pos = arith.cmpf ogt, %a, %z : f32
    %v = scf.if %pos -> (f32) {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %p = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %a) -> (f32) : i32 {
        %h = arith.constant 0.5 : f32
        %m = arith.mulf %acc, %h : f32
        scf.yield %m : f32
      }
      scf.yield %p : f32
    } else {
      %q = arith.mulf %a, %a : f32
      scf.yield %q : f32
    }
    linalg.yield %v : f32
  } -> tensor<16x32xf32>
  return %r : tensor<16x32xf32>
}
"""


def _piecewise(x, t):
    halves = np.power(np.float32(0.5), t.astype(np.float32))[:, None]
    out = x * halves
    return np.where(x > 0, out, x * x).astype(np.float32)


@pytest.mark.parametrize("target", ["c", "openmp"])
def test_control_flow_kernels(target):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((16, 32)).astype(np.float32)
    t = rng.integers(0, 6, 16).astype(np.int32)
    m = ireec.compile_source(CONTROL_FLOW, target=target, source_name="piecewise.mlir")
    np.testing.assert_allclose(m.piecewise(x, t), _piecewise(x, t), rtol=1e-6, atol=0)


PADS = """
func.func @pads(%x: tensor<6x40x40xf32>, %y: tensor<2x31x33xf32>) -> (tensor<6x42x44xf32>, tensor<4x31x36xf32>) {
  %z = arith.constant 0.0 : f32
  %m = arith.constant -1.5 : f32
  %p = tensor.pad %x low[0, 1, 3] high[0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index):
    tensor.yield %z : f32
  } : tensor<6x40x40xf32> to tensor<6x42x44xf32>
  %q = tensor.pad %y low[1, 0, 2] high[1, 0, 1] {
  ^bb0(%i: index, %j: index, %k: index):
    tensor.yield %m : f32
  } : tensor<2x31x33xf32> to tensor<4x31x36xf32>
  return %p, %q : tensor<6x42x44xf32>, tensor<4x31x36xf32>
}
"""


@pytest.mark.parametrize("target", ["c", "openmp"])
def test_large_pads_are_shared_between_workgroups(target):
    """A pad of >= 1024 elements is cut in two workgroups along its outermost unpadded dim on
    openmp (6 channels of 42x44; the second pad's only unpadded dim is its middle one, odd
    extent 31): every element is written once, the border with the padding value."""
    rng = np.random.default_rng(5)
    x = rng.standard_normal((6, 40, 40)).astype(np.float32)
    y = rng.standard_normal((2, 31, 33)).astype(np.float32)
    m = ireec.compile_source(PADS, target=target, source_name="pads.mlir")
    p, q = m.pads(x, y)
    np.testing.assert_array_equal(p, np.pad(x, ((0, 0), (1, 1), (3, 1))))
    np.testing.assert_array_equal(q, np.pad(y, ((1, 1), (0, 0), (2, 1)), constant_values=-1.5))
    if target == "openmp":
        from ireec.compiler import compile_source

        c = compile_source(PADS, "pads.mlir", target="openmp")
        kernels = next(text for name, text in c.files.items() if name.endswith("_kernels.c"))
        assert kernels.count("workgroup count 2x1x1") == 2


# ------------------------------------------------------------- threads and warnings
GRID_KERNEL = """
"hal.executable"() ({
  "hal.executable.variant"() ({
    "hal.executable.export"() {sym_name = "k", ordinal = 0 : index, workgroup_count = array<i64: 64, 1, 1>} : () -> ()
    module {
      func.func @k() {
        %b0 = "hal.interface.binding.subspan"() {binding = 0 : index, descriptor_flags = "None"} : () -> (memref<64xi32>)
        %w = "hal.interface.workgroup.id"() {dimension = 0 : index} : () -> index
        %i = arith.index_cast %w : index to i32
        memref.store %i, %b0[%w] : memref<64xi32>
        return
      }
    }
  }) {sym_name = "embedded_c_openmp", target = "openmp"} : () -> ()
}) {sym_name = "ex", sym_visibility = "private"} : () -> ()
"""


def _grid_files(target):
    from ireec.frontend.parser import parse_source
    from ireec.passes.pass_base import PassContext
    from ireec.passes.pipeline import passes_for
    from ireec.targets import get_target

    module = parse_source(GRID_KERNEL, "grid.mlir")
    ctx = PassContext(target=target, module_name="grid", source_name="grid.mlir")
    for cls, _why in passes_for("vm"):  # the emitc lowering and the passes after it
        cls().run(module, ctx)
    return get_target(target).render(module, ctx)


def test_openmp_launch_forks_and_covers_every_workgroup(tmp_path):
    lib = build_shared_library(_grid_files("openmp"), "grid", tmp_path / "grid.so", target="openmp")
    assert "GOMP_parallel" in undefined_symbols(lib)
    out = np.full(64, -1, np.int32)
    getattr(ctypes.CDLL(str(lib)), "grid_k")(ctypes.c_void_p(out.ctypes.data))
    np.testing.assert_array_equal(out, np.arange(64))


@pytest.mark.parametrize("flags", [[], ["-fopenmp"]], ids=["serial", "fopenmp"])
def test_openmp_sources_warning_free(tmp_path, flags):
    compile_object_check(_grid_files("openmp"), flags, out_dir=tmp_path / "out")


def test_c_target_does_not_use_openmp(tmp_path):
    files = _grid_files("c")
    assert "#pragma omp" not in files["grid_kernels.c"]
    lib = build_shared_library(files, "grid", tmp_path / "grid.so", target="c")
    assert not any(s.startswith("GOMP_") for s in undefined_symbols(lib))


@pytest.mark.parametrize("source", [("torch_mlir", "lenet", "lenet.args.linalg.mlir"),
                                    ("jax", "resnet_block", "resnet_block.args.mlir")], ids=lambda s: s[-1])
@pytest.mark.parametrize("flags", [[], ["-fopenmp"]], ids=["serial", "fopenmp"])
def test_openmp_model_sources_warning_free(source, flags, tmp_path):
    from ireec.compiler import compile_file

    out = compile_file(str(shared_path("models", *source)), target="openmp")
    text = out.files[f"{out.module_name}_kernels.c"]
    grids = re.findall(r"workgroup count (\d+)x(\d+)x(\d+)", text)
    multi = [g for g in grids if g != ("1", "1", "1")]
    # One parallel loop per dispatch with more than one workgroup.
    assert text.count("#pragma omp parallel for") == len(multi)
    compile_object_check(out.files, flags, out_dir=tmp_path / "out")


# ------------------------------------------------- one parallel region per call
THREE_DISPATCHES = """
func.func @f(%x: tensor<128x128xf32>, %y: tensor<128x128xf32>) -> (tensor<128x128xf32>, tensor<128x128xf32>, tensor<128x128xf32>) {
  %e = tensor.empty() : tensor<128x128xf32>
  %z = arith.constant 0.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<128x128xf32>) -> tensor<128x128xf32>
  %a = linalg.matmul ins(%x, %y : tensor<128x128xf32>, tensor<128x128xf32>) outs(%f : tensor<128x128xf32>) -> tensor<128x128xf32>
  %b = linalg.matmul ins(%y, %x : tensor<128x128xf32>, tensor<128x128xf32>) outs(%f : tensor<128x128xf32>) -> tensor<128x128xf32>
  %c = linalg.matmul ins(%a, %b : tensor<128x128xf32>, tensor<128x128xf32>) outs(%f : tensor<128x128xf32>) -> tensor<128x128xf32>
  return %a, %b, %c : tensor<128x128xf32>, tensor<128x128xf32>, tensor<128x128xf32>
}
"""


def _host_impl(text: str) -> str:
    return re.search(r"static ireec_status_t \w+_impl\(.*?\n}\n", text, re.S).group(0)


def test_openmp_host_function_opens_one_region_with_barriers_only_on_dependences(tmp_path):
    """Two independent matmuls and a third reading both, each of several workgroups: one
    ``omp parallel`` per call, the first two back to back (``nowait``), one barrier before
    the third; the results match numpy, and the sources stay warning-free with and without
    -fopenmp."""
    from ireec.compiler import compile_source

    files = compile_source(THREE_DISPATCHES, "three.mlir", target="openmp", module_name="three").files
    host = _host_impl(files["three.c"])
    assert host.count("#pragma omp parallel") == 1
    assert "#pragma omp parallel for" not in host
    calls = re.findall(r"(\w+_workshare)\(", host)
    assert len(calls) == 3, host
    assert host.count("#pragma omp barrier") == 1
    assert host.index("#pragma omp barrier") > host.index(calls[1] + "(")
    kernels = files["three_kernels.c"]
    assert "#pragma omp for schedule(static) collapse(2) nowait" in kernels  # one kernel, three calls
    for flags in ([], ["-fopenmp"]):
        compile_object_check(files, flags, out_dir=tmp_path / f"out{len(flags)}")
    m = ireec.compile_source(THREE_DISPATCHES, target="openmp", source_name="three.mlir")
    rng = np.random.default_rng(5)
    x, y = (rng.standard_normal((128, 128)).astype(np.float32) for _ in range(2))
    a, b, c = m.f(x, y)
    np.testing.assert_allclose(a, x @ y, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(b, y @ x, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(c, a @ b, rtol=1e-4, atol=1e-3)


SMALL_CALL = """
func.func @f(%x: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %e = arith.mulf %x, %x : tensor<64x64xf32>
  %s = arith.addf %e, %x : tensor<64x64xf32>
  %t = tensor.empty() : tensor<64x64xf32>
  %r = linalg.transpose ins(%s : tensor<64x64xf32>) outs(%t : tensor<64x64xf32>) permutation = [1, 0]
  %q = arith.subf %r, %x : tensor<64x64xf32>
  return %q : tensor<64x64xf32>
}
"""


def test_openmp_small_call_runs_on_the_calling_thread():
    """A function whose call is too small for two threads to gain (one fused dispatch of
    several workgroups over 64 x 64 floats, which alone would open its own ``parallel
    for``) gets a team of one (``parallel if(0)``) around its work-shared variant, no
    barrier, and still computes what numpy does."""
    from ireec.compiler import compile_source
    from ireec.passes.vm.form_openmp_host_regions import FORK_WORK

    files = compile_source(SMALL_CALL, "small.mlir", target="openmp", module_name="small").files
    host = _host_impl(files["small.c"])
    assert host.count("#pragma omp parallel if(0)") == 1, host
    assert "#pragma omp barrier" not in host and "#pragma omp parallel for" not in host
    assert len(re.findall(r"\w+_workshare\(", host)) == 1, host
    assert 4 * 64 * 64 * 4 < 2 * FORK_WORK
    x = np.random.default_rng(3).standard_normal((64, 64)).astype(np.float32)
    got = ireec.compile_source(SMALL_CALL, target="openmp", source_name="small.mlir").f(x)
    np.testing.assert_allclose(got, (x * x + x).T - x, rtol=1e-6, atol=1e-6)


def _matmul_chain(n: int, count: int) -> str:
    """``count`` dependent n x n matmuls: x @ w @ w @ ... (one dispatch each)."""
    t = f"tensor<{n}x{n}xf32>"
    body, prev = ["  %z = arith.constant 0.0 : f32"], "%x"
    for i in range(count):
        body += [f"  %e{i} = tensor.empty() : {t}",
                 f"  %f{i} = linalg.fill ins(%z : f32) outs(%e{i} : {t}) -> {t}",
                 f"  %m{i} = linalg.matmul ins({prev}, %w : {t}, {t}) outs(%f{i} : {t}) -> {t}"]
        prev = f"%m{i}"
    return "\n".join([f"func.func @f(%x: {t}, %w: {t}) -> {t} {{", *body, f"  return {prev} : {t}", "}"])


@pytest.mark.parametrize("n,count,serial", [(48, 14, True), (160, 3, False)])
def test_openmp_chain_of_small_dispatches_runs_on_the_calling_thread(n, count, serial):
    """Whether a region runs on one thread weighs its barriers: 14 dependent 48 x 48 matmuls
    (3.2M operations and elements, more than a single shared dispatch needs to go parallel)
    need 13 barriers and run in a team of one; 3 dependent 160 x 160 matmuls keep two
    threads and their 2 barriers. Both compute what numpy does."""
    from ireec.compiler import compile_source
    from ireec.passes.vm.form_openmp_host_regions import FORK_WORK

    src = _matmul_chain(n, count)
    assert count * 2 * n ** 3 > 2 * FORK_WORK
    host = _host_impl(compile_source(src, "chain.mlir", target="openmp", module_name="chain").files["chain.c"])
    assert len(re.findall(r"\w+_workshare\(", host)) == count, host
    if serial:
        assert host.count("#pragma omp parallel if(0)") == 1 and "#pragma omp barrier" not in host, host
    else:
        assert "#pragma omp parallel if(0)" not in host and host.count("#pragma omp barrier") == count - 1, host
    rng = np.random.default_rng(11)
    x, w = ((rng.standard_normal((n, n)) / np.sqrt(n)).astype(np.float32) for _ in range(2))
    want = x.astype(np.float64)
    for _ in range(count):
        want = want @ w
    got = ireec.compile_source(src, target="openmp", source_name="chain.mlir").f(x, w)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


def test_openmp_parallel_gain_estimate():
    """The estimate alone: two threads save half of each shared call (less an odd
    workgroup's share) and cost the fork plus a barrier per dependence."""
    from ireec.emitc.access import BufferAccessAttr
    from ireec.passes.vm.form_openmp_host_regions import BARRIER_WORK, FORK_WORK, parallel_gain

    def call(i, reads, primary=False):  # writes buffer i, reads the buffers in reads
        ranges = [BufferAccessAttr(f"b{r}", 0, 64, "ro") for r in reads]
        return ranges + [BufferAccessAttr(f"b{i}", 0, 64, "wo")], primary

    independent = [call(1, [0]), call(2, [0])]
    assert parallel_gain([2 * FORK_WORK] * 2, independent, [2, 2]) == FORK_WORK
    assert parallel_gain([3 * FORK_WORK], independent[:1], [3]) == 0  # 2 of 3 workgroups on one thread
    assert parallel_gain([2 * FORK_WORK] * 2, [call(1, [0], True), call(2, [0])], [1, 2]) == 0
    chain = [call(i + 1, [i]) for i in range(5)]
    assert parallel_gain([4 * BARRIER_WORK] * 5, chain, [2] * 5) == 10 * BARRIER_WORK - FORK_WORK - 4 * BARRIER_WORK


def test_openmp_single_dispatch_keeps_its_own_parallel_loop():
    from ireec.compiler import compile_source

    files = compile_source(CONTROL_FLOW, "pw.mlir", target="openmp", module_name="pw").files
    host = _host_impl(files["pw.c"])
    assert "#pragma omp" not in host and "_workshare(" not in host


def test_openmp_region_barrier_placement():
    """The barrier rule alone: a call waits for earlier calls whose ranges it overlaps with
    a write on either side, except primary-thread calls after primary-thread calls."""
    from ireec.emitc.access import BufferAccessAttr
    from ireec.passes.vm.form_openmp_host_regions import barriers as _barriers

    w = lambda b, s, e: BufferAccessAttr(b, s, e - s, "wo")  # noqa: E731
    r = lambda b, s, e: BufferAccessAttr(b, s, e - s, "ro")  # noqa: E731
    assert _barriers([([r("in", 0, 8), w("ws", 0, 8)], False),
                      ([r("in", 0, 8), w("ws", 8, 16)], False),   # disjoint writes, shared reads
                      ([r("ws", 0, 16), w("out", 0, 8)], False),  # reads both: waits
                      ([r("ws", 16, 24), w("ws", 24, 32)], False),  # touches nothing pending
                      ([r("ws", 24, 32), w("ws", 32, 40)], True),   # reads a shared write: waits
                      ([r("ws", 32, 40), w("ws", 0, 8)], True),     # primary after primary
                      ([r("ws", 0, 8), w("out", 8, 16)], False),    # shared after primary: waits
                      ([r("in", 0, 8), w("out", 16, 24)], False)]) == [
        False, False, True, False, True, False, True, False]
    assert _barriers([([r("ws", 0, 8)], False), ([w("ws", 4, 12)], True)]) == [False, True]  # WAR
