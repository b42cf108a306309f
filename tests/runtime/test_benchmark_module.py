"""``ireec benchmark-module`` (ireec/tools/benchmark.py): statistics, iteration counts, the
google-benchmark table and JSON, and the command line.

No timing is asserted: the timing loop runs on fake clocks that advance by a known
duration per call, so every number is exact. The command-line tests use the hand-written
module of tests/runtime/fixtures (no compiler involved) and only check the shape of the
output.
"""
import json
import re
from pathlib import Path

import numpy as np
import pytest

from ireec.cli import main
from ireec.runtime.build import build_shared_library
from ireec.runtime.loader import load
from ireec.tools import benchmark as bm

FIXTURES = Path(__file__).parent / "fixtures"


class FakeClock:
    """A wall clock and a CPU clock that move only when ``tick`` is called."""

    def __init__(self, cpu_ratio=1.0):
        self.now = 0.0
        self.cpu = 0.0
        self.cpu_ratio = cpu_ratio

    def tick(self, seconds):
        self.now += seconds
        self.cpu += seconds * self.cpu_ratio

    def real(self):
        return self.now

    def cpu_time(self):
        return self.cpu


def fake_benchmark(durations, **kw):
    """Benchmark a function whose k-th call lasts durations(k) seconds; returns the result
    and the number of calls made."""
    clock = FakeClock(kw.pop("cpu_ratio", 1.0))
    calls = [0]

    def fn():
        clock.tick(durations(calls[0]))
        calls[0] += 1
    res = bm.benchmark_callable(fn, "BM_f/process_time/real_time", real_clock=clock.real,
                                cpu_clock=clock.cpu_time, **kw)
    return res, calls[0]


# ---------------------------------------------------------------------------
# statistics
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("xs", [[3.0], [1.0, 2.0], [5.0, 1.0, 4.0, 2.0, 3.0],
                                list(np.random.default_rng(0).uniform(0.5, 2.0, 17))])
def test_statistics_match_numpy(xs):
    s = bm.statistics(xs)
    a = np.asarray(xs)
    assert s.count == len(xs)
    assert s.mean == pytest.approx(a.mean())
    assert s.median == pytest.approx(np.median(a))
    assert s.stddev == pytest.approx(a.std(ddof=1) if len(xs) > 1 else 0.0)
    assert s.cv == pytest.approx(s.stddev / a.mean())
    assert (s.min, s.max) == (a.min(), a.max())


def test_statistics_empty_and_zero_mean():
    with pytest.raises(ValueError):
        bm.statistics([])
    assert bm.statistics([0.0, 0.0]).cv == 0.0


@pytest.mark.parametrize("spec,expected", [("0.5s", (0.5, None)), ("2", (2.0, None)),
                                           ("0", (0.0, None)), ("100x", (None, 100))])
def test_parse_min_time(spec, expected):
    assert bm.parse_min_time(spec) == expected


@pytest.mark.parametrize("spec", ["", "abc", "-1s", "0x", "-3x", "1.5x", "inf"])
def test_parse_min_time_rejects(spec):
    with pytest.raises(bm.BenchmarkError, match="benchmark_min_time"):
        bm.parse_min_time(spec)


# ---------------------------------------------------------------------------
# the timing loop (fake clocks)
# ---------------------------------------------------------------------------

def test_iterations_grow_until_min_time():
    res, calls = fake_benchmark(lambda k: 0.001, min_time="0.5s", repetitions=1)
    (run,) = res.runs
    # The reported loop is the first one that lasted at least min_time ...
    assert run.real_time >= 0.5
    assert run.real_time == pytest.approx(run.iterations * 0.001)
    # ... and a loop 1/1.4 as long would have been too short: the count is not wasteful.
    assert run.iterations * 0.001 < 0.5 * 1.4 * 1.01 + 0.001
    assert run.real_time_per_iteration == pytest.approx(0.001)
    # trial loops grow at most tenfold each: 1, 10, 100, then enough
    assert calls > run.iterations


def test_repetitions_reuse_the_iteration_count_and_aggregate():
    # calls get slower: 1 ms for the first 1000 calls, then 2 ms, then 4 ms
    durations = lambda k: 0.001 if k < 1000 else (0.002 if k < 2000 else 0.004)
    res, _ = fake_benchmark(durations, min_time="10x", repetitions=3)
    assert [r.iterations for r in res.runs] == [10, 10, 10]
    assert res.iterations == 10
    per_call = [r.real_time_per_iteration for r in res.runs]
    assert per_call == pytest.approx([0.001] * 3)
    res, calls = fake_benchmark(durations, min_time="1000x", repetitions=3)
    assert calls == 1000 * 3
    per_call = [r.real_time_per_iteration for r in res.runs]
    assert per_call == pytest.approx([0.001, 0.002, 0.004])
    mean, _ = res.aggregate("mean")
    median, _ = res.aggregate("median")
    mn, _ = res.aggregate("min")
    sd, _ = res.aggregate("stddev")
    cv, _ = res.aggregate("cv")
    assert mean == pytest.approx(np.mean(per_call))
    assert median == pytest.approx(0.002)
    assert mn == pytest.approx(0.001)
    assert sd == pytest.approx(np.std(per_call, ddof=1))
    assert cv == pytest.approx(np.std(per_call, ddof=1) / np.mean(per_call))
    with pytest.raises(ValueError):
        res.aggregate("p99")


def test_cpu_time_is_reported_separately():
    res, _ = fake_benchmark(lambda k: 0.002, min_time="50x", repetitions=2, cpu_ratio=2.0)
    assert res.real_stats().mean == pytest.approx(0.002)
    assert res.cpu_stats().mean == pytest.approx(0.004)  # two busy threads


def test_warmup_calls_are_not_measured():
    # the first 3 calls are slow (cold caches); a warm-up of 0.05 s absorbs them
    res, calls = fake_benchmark(lambda k: 0.01 if k < 3 else 0.001, min_time="5x",
                                repetitions=2, warmup_time=0.05)
    assert calls > 3 + 10
    assert [r.real_time_per_iteration for r in res.runs] == pytest.approx([0.001, 0.001])


def test_bad_parameters():
    with pytest.raises(bm.BenchmarkError):
        fake_benchmark(lambda k: 0.001, repetitions=0)
    with pytest.raises(bm.BenchmarkError):
        fake_benchmark(lambda k: 0.001, warmup_time=-1.0)


# ---------------------------------------------------------------------------
# report formats
# ---------------------------------------------------------------------------

def _result(per_call_seconds, name="BM_matmul/process_time/real_time", iterations=10):
    return bm.BenchmarkResult(name, [bm.Run(iterations, t * iterations, t * iterations * 1.5)
                                     for t in per_call_seconds])


def test_console_table_one_repetition():
    text = bm.format_console([_result([0.00022])])
    lines = text.splitlines()
    assert lines[0] == lines[2] == "-" * len(lines[1])
    assert lines[1].split() == ["Benchmark", "Time", "CPU", "Iterations"]
    assert len(lines) == 4  # no aggregates for one repetition
    name, t, u1, c, u2, it = lines[3].split()
    assert name == "BM_matmul/process_time/real_time"
    assert (t, u1, c, u2, it) == ("0.220", "ms", "0.330", "ms", "10")
    # columns line up under the header (google benchmark's layout)
    assert lines[3].index(" ms") + 3 == lines[1].index("Time") + 4
    assert lines[3].rindex(" ms") + 3 == lines[1].index("CPU") + 3
    assert len(lines[3]) == len(lines[1])


def test_console_table_aggregates_and_units():
    per_call = [0.001, 0.002, 0.004]
    text = bm.format_console([_result(per_call)], time_unit="us")
    rows = {line.split()[0]: line.split()[1:] for line in text.splitlines()[3:]}
    base = "BM_matmul/process_time/real_time"
    assert sum(1 for line in text.splitlines() if line.split()[0] == base) == 3
    for kind in ("mean", "median", "stddev", "cv", "min"):
        assert f"{base}_{kind}" in rows
    assert rows[f"{base}_mean"] == [f"{np.mean(per_call) * 1e6:.0f}", "us",
                                    f"{np.mean(per_call) * 1.5e6:.0f}", "us", "3"]
    assert rows[f"{base}_median"][0] == "2000"
    assert rows[f"{base}_min"][0] == "1000"
    assert float(rows[f"{base}_stddev"][0]) == pytest.approx(np.std(per_call, ddof=1) * 1e6, abs=0.5)
    cv = np.std(per_call, ddof=1) / np.mean(per_call) * 100
    assert rows[f"{base}_cv"][:2] == [f"{cv:.2f}", "%"]
    only = bm.format_console([_result(per_call)], aggregates_only=True)
    assert [line.split()[0] for line in only.splitlines()[3:]] == [
        f"{base}_{k}" for k in bm.AGGREGATES]


@pytest.mark.parametrize("seconds,text", [(0.5e-3, "0.500"), (2.5e-3, "2.50"), (25e-3, "25.0"),
                                          (1234e-3, "1234")])
def test_console_precision(seconds, text):
    row = bm.format_console([_result([seconds])]).splitlines()[3]
    assert row.split()[1] == text


def test_json_document():
    per_call = [0.001, 0.003]
    ctx = bm.machine_context()
    doc = json.loads(bm.format_json([_result(per_call), _result([0.5], "BM_b")], ctx))
    assert doc["context"]["num_cpus"] >= 1
    assert set(doc["context"]) >= {"date", "host_name", "executable", "num_cpus",
                                   "mhz_per_cpu", "load_avg", "library_build_type"}
    entries = doc["benchmarks"]
    iters = [e for e in entries if e["run_type"] == "iteration"]
    aggs = {e["aggregate_name"]: e for e in entries if e["run_type"] == "aggregate"}
    assert [e["repetition_index"] for e in iters] == [0, 1, 0]
    assert [e["family_index"] for e in iters] == [0, 0, 1]
    assert [e["real_time"] for e in iters] == pytest.approx([1.0, 3.0, 500.0])
    assert [e["cpu_time"] for e in iters] == pytest.approx([1.5, 4.5, 750.0])
    assert all(e["time_unit"] == "ms" for e in entries)
    assert set(aggs) == set(bm.AGGREGATES)  # only the first benchmark repeats
    assert aggs["mean"]["real_time"] == pytest.approx(2.0)
    assert aggs["median"]["real_time"] == pytest.approx(2.0)
    assert aggs["min"]["real_time"] == pytest.approx(1.0)
    assert aggs["stddev"]["real_time"] == pytest.approx(np.std([1.0, 3.0], ddof=1))
    assert aggs["cv"]["aggregate_unit"] == "percentage"
    assert aggs["cv"]["real_time"] == pytest.approx(np.std([1.0, 3.0], ddof=1) / 2.0)
    assert aggs["mean"]["name"] == "BM_matmul/process_time/real_time_mean"
    assert aggs["mean"]["iterations"] == 2


def test_context_lines():
    ctx = bm.machine_context()
    text = bm.format_context(ctx)
    assert re.search(r"^Run on \(\d+ X \d+ MHz CPU s\)$", text, re.M)


# ---------------------------------------------------------------------------
# prepare_call on a real module, and the command line
# ---------------------------------------------------------------------------

@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    out = tmp_path_factory.mktemp("bench") / "libfixture.so"
    srcs = {n: (FIXTURES / n).read_text() for n in ("fixture.c", "fixture.h")}
    return str(build_shared_library(srcs, "fixture", out))


def test_prepare_call_runs_the_c_function(lib):
    m = load(lib)
    a = np.array([1, 2, 3, 4], np.float32)
    b = np.array([10, 20, 30, 40], np.float32)
    call = bm.prepare_call(m, "add", [a, b])
    call()  # no exception: status OK
    with pytest.raises(RuntimeError, match="INTERNAL"):
        bm.prepare_call(m, "fail", [np.float32(1)])
    with pytest.raises(TypeError):
        bm.prepare_call(m, "add", [a])
    res = bm.benchmark_function(m, "add", [a, b], min_time="3x", repetitions=2)
    assert res.name == "BM_add/process_time/real_time"
    assert [r.iterations for r in res.runs] == [3, 3]


def run(capsys, *argv):
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


ROW = re.compile(r"^(BM_\S+)\s+([\d.]+) (ms|us|ns|s )\s+([\d.]+) (ms|us|ns|s )\s+(\d+)$")


def test_cli_console(lib, capsys):
    rc, out, err = run(capsys, "benchmark-module", f"--module={lib}", "--function=add",
                       "--device=local-task", "--input=4xf32=1 2 3 4", "--input=4xf32=2",
                       "--benchmark_repetitions=3", "--benchmark_min_time=20x")
    assert rc == 0, err
    assert "Run on (" in err
    lines = out.splitlines()
    assert lines[1].split() == ["Benchmark", "Time", "CPU", "Iterations"]
    names = [line.split()[0] for line in lines[3:]]
    assert names == ["BM_add/process_time/real_time"] * 3 + [
        f"BM_add/process_time/real_time_{k}" for k in bm.AGGREGATES]
    for line in lines[3:]:
        if "_cv" not in line:
            m = ROW.match(line)
            assert m, line
            aggregate = m.group(1) != "BM_add/process_time/real_time"
            assert int(m.group(6)) == (3 if aggregate else 20)


def test_cli_json_and_out_file(lib, capsys, tmp_path):
    out_file = tmp_path / "bench.json"
    rc, out, err = run(capsys, "benchmark-module", f"--module={lib}", "--function=@abs",
                       "--input=f32=-2", "--benchmark_format=json", "--benchmark_min_time=5x",
                       "--benchmark_repetitions=2", "--benchmark_time_unit=us",
                       f"--benchmark_out={out_file}", "--benchmark_report_aggregates_only=true")
    assert rc == 0, err
    doc = json.loads(out)
    assert [e["run_type"] for e in doc["benchmarks"]] == ["aggregate"] * len(bm.AGGREGATES)
    assert all(e["time_unit"] == "us" for e in doc["benchmarks"])
    saved = json.loads(out_file.read_text())
    assert [e["name"] for e in saved["benchmarks"]] == [e["name"] for e in doc["benchmarks"]]


def test_cli_default_function_is_every_argument_free_one(lib, capsys):
    rc, out, err = run(capsys, "benchmark-module", f"--module={lib}", "--benchmark_min_time=2x")
    assert rc == 0, err
    assert [line.split()[0] for line in out.splitlines()[3:]] == ["BM_noop/process_time/real_time"]


@pytest.mark.parametrize("argv,fragment", [
    (["--function=add", "--input=4xf32=1"], "takes 2 inputs"),
    (["--function=nope"], "no function 'nope'"),
    (["--function=fail", "--input=f32=1"], "INTERNAL"),
    (["--function=add", "--input=4xf32=1", "--input=3xf32=1"], "expects tensor<4xf32>"),
    (["--function=abs", "--input=f32=1", "--benchmark_min_time=fast"], "benchmark_min_time"),
    (["--function=abs", "--input=f32=1", "--device=vulkan"], "unsupported --device"),
    (["--input=f32=1"], "without --function"),
    (["--function=abs", "--input=f32=1", "--benchmark_repetitions=0"], "at least 1"),
])
def test_cli_errors(lib, capsys, argv, fragment):
    rc, out, err = run(capsys, "benchmark-module", f"--module={lib}", *argv)
    assert rc == 1
    assert err.startswith("error: ") and fragment in err, err
    assert "Traceback" not in err


def test_cli_missing_module(capsys, tmp_path):
    rc, _, err = run(capsys, "benchmark-module", f"--module={tmp_path / 'none.so'}")
    assert rc == 1 and "No such file" in err
    rc, _, err = run(capsys, "benchmark-module")
    assert rc == 1 and "no module specified" in err


# ---------------------------------------------------------------------------
# benchmarks/run.py (the `make bench` runner): numpy references, dispatch count, report
# ---------------------------------------------------------------------------

def _runner():
    """benchmarks/run.py loaded from its file (the repository root need not be on sys.path)."""
    import importlib.util
    import sys

    name = "ireec_benchmarks_run"
    if name not in sys.modules:
        path = Path(__file__).resolve().parents[2] / "benchmarks" / "run.py"
        spec = importlib.util.spec_from_file_location(name, path)
        mod = importlib.util.module_from_spec(spec)
        sys.modules[name] = mod  # dataclasses look their module up there
        spec.loader.exec_module(mod)
    return sys.modules[name]


@pytest.mark.parametrize("model", ["mlp", "lenet"])
def test_runner_numpy_reference_matches_exported_model(model):
    from e2e.common import shared_path  # tests/ is on sys.path (rootdir-relative imports)

    folder = shared_path("models", "jax", model)
    run_mod = _runner()
    (case,) = [c for c in run_mod.all_cases() if c.name == f"jax_{model}"]
    got = case.reference(*case.make_inputs())
    np.testing.assert_allclose(got, np.load(folder / "out0.npy"), rtol=1e-5, atol=1e-5)


def test_runner_synthetic_references():
    run_mod = _runner()
    cases = {c.name: c for c in run_mod.all_cases()}
    for name, c in cases.items():
        if not name.startswith("jax_"):
            assert c.path.is_file(), c.path
    a, b = cases["matmul_128"].make_inputs()
    np.testing.assert_allclose(run_mod.np_matmul(a, b), a.astype(np.float64) @ b, atol=1e-4)
    x = cases["mlp"].make_inputs()
    y = run_mod.np_mlp(*x)
    assert y.shape == (64, 10)
    np.testing.assert_allclose(y.sum(axis=1), 1.0, rtol=1e-5)
    # the numpy conv equals the direct sum of products it replaces
    rng = np.random.default_rng(1)
    img, w = rng.normal(size=(1, 6, 7, 2)), rng.normal(size=(3, 3, 2, 4))
    direct = np.zeros((1, 6, 7, 4))
    pad = np.pad(img, ((0, 0), (1, 1), (1, 1), (0, 0)))
    for i in range(6):
        for j in range(7):
            direct[0, i, j] = np.einsum("abc,abco->o", pad[0, i:i + 3, j:j + 3], w)
    np.testing.assert_allclose(run_mod._conv2d_nhwc(img, w, 1), direct, rtol=1e-5)


def test_runner_count_dispatches():
    run_mod = _runner()
    ir = """
    %3 = flow.dispatch @ex0::@fn0(%0, %1) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %4 = "flow.dispatch"(%3) {entry_point = @ex1::@fn1} : (tensor<4xf32>) -> tensor<4xf32>
    %5 = "flow.dispatch.tensor.load"(%arg0) : (!flow.dispatch.tensor<readonly:tensor<4xf32>>) -> tensor<4xf32>
    flow.dispatch.tensor.store %5, %arg1 : tensor<4xf32> -> !flow.dispatch.tensor<writeonly:tensor<4xf32>>
    """
    assert run_mod.count_dispatches(ir) == 2


def test_runner_results_markdown():
    run_mod = _runner()
    (case,) = [c for c in run_mod.all_cases() if c.name == "matmul_128"]
    r = run_mod.CaseResult(case)
    r.numpy = run_mod.Measurement(median_ms=0.5, min_ms=0.4)
    r.numpy2_ms = 0.25
    r.targets["c"] = run_mod.Measurement(median_ms=2.0, min_ms=1.5, mean_ms=2.2, correct=True,
                                         max_abs_err=0.0, dispatches=1, arena_bytes=4096,
                                         flops=4_194_304, raw_us=1.0, load_us=3.5, load_out_us=2.0)
    r.targets["openmp"] = run_mod.Measurement(skipped="CompileError: unsupported op")
    r.iree = {"local-sync": run_mod.Measurement(median_ms=1.0, min_ms=0.9, correct=True),
              "local-sync dt": run_mod.Measurement(median_ms=0.8, min_ms=0.7, correct=True),
              "local-task": run_mod.Measurement(skipped="RuntimeError: no device")}
    ctx = bm.machine_context()
    env = {"os": "Linux", "python": "3", "numpy": "2", "cc": "cc", "omp_threads": "2",
           "blas_threads": "1", "iree": "iree 3", "overhead_us": "0.2", "flags": "-O3"}
    fma = run_mod.peak.Peak(isa="avx512", one_thread=100.0, all_threads=180.0, threads=2)
    text = run_mod.render_results([r], ctx, env, ["c", "openmp"], run_mod.Options(), None,
                                  fma_peak=fma)
    rows = [line for line in text.splitlines() if line.startswith("| matmul_128 |")]
    # GFLOP/s = 0.00419 GFLOP / 2 ms; % peak of the 1-thread 100 GFLOP/s; / numpy against the
    # 1-thread numpy; / IREE against the faster IREE configuration (data tiling, 0.8 ms).
    assert rows[0].split("|")[1:-1] == [
        " matmul_128 ", " c ", " 0.00419 ", " 2.000 ", " 1.500 ", " 2.200 ", " 2.1 ", " 2.1 ",
        " 0.500 / 0.250 ", " 4.00× ", " 1.000 / 0.800 ", " 2.50× ", " 2.5 / 1.0 ", " 1 ", " 4096 ", " ok "]
    assert " skipped " in rows[1]
    assert "- `matmul_128` / `openmp`: CompileError: unsupported op" in text
    assert "- `matmul_128` / IREE local-task: RuntimeError: no device" in text
    assert "avx512, 100.0 GFLOP/s on 1 thread, 180.0 GFLOP/s on 2 threads" in text
    assert "## How measured" in text and ctx["date"] in text


def test_runner_time_calls_gives_per_call_times():
    run_mod = _runner()
    calls = []
    times = run_mod.time_calls(lambda: calls.append(1), run_mod.Options(repetitions=2, min_time="7x",
                                                                         warmup_time=0.0))
    assert len(times) == 14 and len(calls) == 15 and all(t >= 0 for t in times)
    m = run_mod.Measurement().take([0.003, 0.001, 0.002])
    assert (m.median_ms, m.min_ms, m.mean_ms) == (2.0, 1.0, pytest.approx(2.0))


def test_fma_peak_program_runs(tmp_path):
    """benchmarks/peak.py's C program builds and reports a positive peak (or says why not)."""
    import shutil

    if shutil.which("cc") is None:
        pytest.skip("no C compiler")
    run_mod = _runner()
    p = run_mod.peak.measure_peak(threads=2, iterations=200_000)
    assert p.error is None, p.error
    assert p.isa in ("avx512", "avx2-fma", "scalar")
    assert p.one_thread > 0 and p.all_threads > 0 and p.for_threads(1) == p.one_thread
    bad = run_mod.peak.measure_peak(threads=1, iterations=10, cc=str(tmp_path / "no-such-cc"))
    assert bad.error and bad.one_thread is None


def test_runner_numpy_environment_drops_blas_pinning():
    """numpy is timed without the variables that pin its BLAS to a code path
    (OPENBLAS_CORETYPE=Haswell: AVX2 kernels on an AVX-512 CPU); only its subprocess's
    environment loses them."""
    run_mod = _runner()
    base = {"PATH": "/bin", "OPENBLAS_CORETYPE": "Haswell", "MKL_CBWR": "AVX", "OMP_NUM_THREADS": "7"}
    env, removed = run_mod.numpy_environment(2, base)
    assert removed == {"OPENBLAS_CORETYPE": "Haswell", "MKL_CBWR": "AVX"}
    assert env == {"PATH": "/bin", "OPENBLAS_NUM_THREADS": "2", "OMP_NUM_THREADS": "2"}
    assert base["OPENBLAS_CORETYPE"] == "Haswell"  # the caller's mapping is not changed


def test_runner_names_the_blas_kernel():
    run_mod = _runner()
    pytest.importorskip("threadpoolctl")
    blas, error = run_mod.blas_info()
    assert error is None and blas, "numpy's BLAS not found by threadpoolctl"
    assert {"internal_api", "architecture", "num_threads"} <= set(blas[0])
    runs = [run_mod.NumpyRun(1, {"matmul_128": 0.5}, [{"internal_api": "openblas", "version": "0.3.31",
                                                        "architecture": "SkylakeX", "num_threads": 1}],
                             {"OPENBLAS_CORETYPE": "Haswell"}),
            run_mod.NumpyRun(2, {}, [], {}, error="numpy subprocess failed")]
    assert runs[0].kernel() == "openblas 0.3.31 SkylakeX, 1 thread"
    assert runs[1].kernel() == "unknown (numpy subprocess failed)"
    assert run_mod.numpy_kernel_label(runs) == " (openblas SkylakeX)"
    line = run_mod.numpy_line(runs)
    assert "OPENBLAS_NUM_THREADS=1 (openblas 0.3.31 SkylakeX, 1 thread)" in line
    assert line.endswith("removed from their environment: OPENBLAS_CORETYPE=Haswell")
    (case,) = [c for c in run_mod.all_cases() if c.name == "matmul_128"]
    text = "\n".join(run_mod.render_numpy(runs, [run_mod.CaseResult(case)], [0.5, 0.4, 0.3], partial=True))
    assert "| case | numpy (openblas SkylakeX) 1T ms | 2T ms |" in text
    assert "| matmul_128 | 0.500 | — |" in text and "partial run" in text
    pinned = run_mod.NumpyRun(1, {"matmul_128": 0.9}, [{"internal_api": "openblas", "version": "0.3.31",
                                                        "architecture": "Haswell", "num_threads": 1}],
                              pinned={"OPENBLAS_CORETYPE": "Haswell"})
    assert run_mod.numpy_line(runs + [pinned]) == line  # the pinned run is not numpy's timing
    text = "\n".join(run_mod.render_numpy(runs + [pinned], [run_mod.CaseResult(case)], [0.5], partial=False))
    assert ("| case | numpy (openblas SkylakeX) 1T ms | 2T ms | 1T with OPENBLAS_CORETYPE=Haswell "
            "(openblas Haswell) ms | pinned / not |") in text
    assert "| matmul_128 | 0.500 | — | 0.900 | 1.80× |" in text


def test_busy_percentiles_and_table():
    busy = _runner().busy
    assert busy.percentile(list(range(1, 101)), 99) == 99
    assert busy.percentile([3.0, 1.0, 2.0], 50) == 2.0
    assert busy.percentile([5.0], 99) == 5.0
    st = busy.Stats.of([0.001] * 98 + [0.010, 0.100])
    assert (st.median_ms, st.p99_ms, st.max_ms, st.calls) == (1.0, 10.0, 100.0, 100)
    row = busy.Row("gpt_block", "ireec.load", {"quiet": busy.Stats(0.05, 0.1, 0.2, 300),
                                               "busy": busy.Stats(0.1, 0.5, 1.0, 300)},
                   "GOMP_SPINCOUNT=300 (set by ireec.load)", {"quiet": 0.1, "busy": 0.2},
                   delayed={"busy": 0.04})
    skipped = busy.Row("resnet18", "ireec.load", skipped="no .onnx")
    text = "\n".join(busy.render_busy([row, skipped], ["- load"], calls=300))
    assert ("| gpt_block | ireec.load | GOMP_SPINCOUNT=300 (set by ireec.load) | — | 0.050 / 0.100 | "
            "0.100 / 0.500 | 2.0× / 5.0× | 4.0% | — | — | 0.10 / 0.20 / — |") in text
    assert "- `resnet18` / ireec.load: no .onnx" in text
    row.stats["quiet-rt"] = busy.Stats(0.025, 0.05, 0.1, 300)  # the reference of x quiet when present
    text = "\n".join(busy.render_busy([row], ["- load"], calls=300))
    assert "| 0.025 / 0.050 | 0.050 / 0.100 | 0.100 / 0.500 | 4.0× / 10× |" in text
    # ONNX Runtime's own call under the same load: a row of its own, no ORT-in-process cell.
    assert busy.TARGET_OF["ONNX Runtime"] == busy.ORT_ENGINE
    ort = busy.Row("resnet18", "ONNX Runtime", {"quiet": busy.Stats(0.3, 0.4, 0.5, 300),
                                                "busy": busy.Stats(0.36, 8.0, 9.0, 300)},
                   "— (ONNX Runtime's own pool, 2 threads)", {"quiet": 0.0, "busy": 0.1})
    text = "\n".join(busy.render_busy([ort], ["- load"], calls=300))
    assert ("| resnet18 | ONNX Runtime | — (ONNX Runtime's own pool, 2 threads) | — | 0.300 / 0.400 | "
            "0.360 / 8.000 | 1.2× / 20× | — | — | — | 0.00 / 0.10 / — |") in text
    assert "`ONNX Runtime` is ONNX Runtime's own call" in text


def test_busy_delayed_share():
    busy = _runner().busy
    assert busy.delayed_share([0.001] * 96 + [0.006] * 4, 0.001) == pytest.approx(0.04)
    assert busy.delayed_share([0.001, 0.005], 0.001) == 0.0  # exactly 5x is not over
    assert busy.delayed_share([], 0.001) != busy.delayed_share([], 0.001)  # nan: nothing timed


def test_busy_loopers_end():
    busy = _runner().busy
    procs = busy.start_loopers(1, seconds=30)
    busy.stop_loopers(procs)
    assert all(p.returncode is not None for p in procs)
    procs = busy.start_loopers(1, seconds=0.2)  # ends by itself
    assert procs[0].wait(timeout=30) == 0
