"""Time ireec's ``cuda`` target on an NVIDIA GPU; write benchmarks/RESULTS-gpu.md.

    python3 -m benchmarks.gpu                # make bench-gpu
    python3 -m benchmarks.gpu --output -     # print instead of writing the file

Cases, measured in one run (inputs uniform in [-1, 1) from a fixed seed, on the device):

==================  ============================================================
elementwise_chain   relu(a*b + c) over 16M (2^24) f32 (benchmarks/cases/elementwise_chain.mlir, resized)
row_sum             (a + b).sum(1) over 100000x100 f32 (benchmarks/cases/row_sum.mlir)
matmul_4096_f32     4096³ f32 matmul (benchmarks/cases/matmul_128.mlir, resized)
matmul_4096_f16     the same in f16
models              every ``pass`` model of ../shared/models (tests/e2e/models_status.md)
==================  ============================================================

ireec is timed through the device entry (device pointers of torch tensors, torch's current
stream, a device workspace) with CUDA events, after a warm-up call; its output is checked
against torch. References: torch eager, ``torch.compile`` (when it works here), cuBLAS through
``torch.matmul`` with TF32 off for f32, and the device-to-device copy bandwidth
(``Tensor.copy_`` of 1 GiB) measured in the same run; elementwise and row sums are also given
as a fraction of that bandwidth (bytes read + written per second).

Without a GPU (or without torch with CUDA) it prints why and exits with 0: nothing to measure.
"""
from __future__ import annotations

import argparse
import ctypes
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable, List, Optional, Sequence

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

CASES = REPO / "benchmarks" / "cases"
DEFAULT_OUTPUT = REPO / "benchmarks" / "RESULTS-gpu.md"
SEED = 20240601


def unavailable() -> Optional[str]:
    """Why the GPU benchmarks cannot run here (None when they can): ireec not importable
    from this source tree (a missing dependency), no GPU, no nvcc, no torch with CUDA."""
    import os
    import shutil

    try:
        from ireec.targets.cuda import gpu_visible
    except ImportError as e:
        return (f"ireec does not import from {REPO} ({e}); its dependencies (numpy, jinja2, cffi) "
                "must be installed")
    if not gpu_visible():
        return "no NVIDIA GPU visible (nvidia-smi -L lists none)"
    nvcc = os.environ.get("NVCC", "nvcc").split()[0]
    if shutil.which(nvcc) is None:
        return f"nvcc not found ({nvcc}; set NVCC or put the CUDA toolkit's bin on PATH)"
    try:
        import torch
    except ImportError:
        return "torch is not installed (the references and device buffers come from torch)"
    if not torch.cuda.is_available():
        return "torch sees no CUDA device"
    return None


def case_sources() -> List[tuple]:
    """(name, description, MLIR text, function, bytes moved or 0, flops or 0) per case."""
    chain = (CASES / "elementwise_chain.mlir").read_text().replace("1048576", "16777216")
    rows = (CASES / "row_sum.mlir").read_text()
    mm = (CASES / "matmul_128.mlir").read_text().replace("128x128", "4096x4096")
    n = 1 << 24
    return [
        ("elementwise_chain", "relu(a*b + c), 2^24 f32", chain, "mul_add_relu", 4 * n * 4, 0),
        ("row_sum", "(a + b).sum(1), 100000x100 f32", rows, "row_sum", 4 * (2 * 100000 * 100 + 100000), 0),
        ("matmul_4096_f32", "4096³ f32 matmul", mm, "matmul", 0, 2 * 4096 ** 3),
        ("matmul_4096_f16", "4096³ f16 matmul", mm.replace("f32", "f16"), "matmul", 0, 2 * 4096 ** 3),
    ]


def _time(fn: Callable[[], None], reps: int) -> float:
    """Median milliseconds of ``fn`` on the current stream (CUDA events), after one warm-up."""
    import torch

    fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return sorted(times)[len(times) // 2]


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Run the GPU benchmarks and write the results table (or explain why not)."""
    ap = argparse.ArgumentParser(prog="python3 -m benchmarks.gpu", description=__doc__.split("\n")[0])
    ap.add_argument("--output", default=str(DEFAULT_OUTPUT), help="results file ('-' for stdout)")
    ap.add_argument("--reps", type=int, default=10, help="timed repetitions per measurement")
    args = ap.parse_args(argv)
    why = unavailable()
    if why:
        print(f"bench-gpu: skipped: {why}")
        return 0
    import numpy as np
    import torch

    from ireec.compiler import compile_source

    torch.manual_seed(SEED)
    lines = ["# ireec on the GPU (`make bench-gpu`)", "",
             f"Device: {torch.cuda.get_device_name(0)}; torch {torch.__version__}; "
             f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}.", ""]
    # Device-to-device copy bandwidth (bytes read + written per second).
    src = torch.empty(1 << 28, dtype=torch.float32, device="cuda").uniform_(-1, 1)
    dst = torch.empty_like(src)
    copy_ms = _time(lambda: dst.copy_(src), args.reps)
    copy_gbs = 2 * src.numel() * 4 / (copy_ms * 1e-3) / 1e9
    src = dst = None  # free the 2 GiB before the cases
    lines += [f"Device-to-device copy: {copy_gbs:.0f} GB/s (read + write).", "",
              "| case | ireec ms | torch eager ms | torch.compile ms | cuBLAS ms | ireec vs reference | note |",
              "|---|---|---|---|---|---|---|"]
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    with tempfile.TemporaryDirectory(prefix="ireec-bench-gpu-") as tmp:
        for name, desc, text, fn, nbytes, flops in case_sources():
            note = ""
            try:
                out = compile_source(text, f"{name}.mlir", target="cuda", module_name=name)
                header = out.files[f"{name}.h"]
                from ireec.runtime.build import build_shared_library
                lib_path = build_shared_library(out.files, name, Path(tmp) / f"lib{name}.so", target="cuda")
                cdll = ctypes.CDLL(str(lib_path))
                macro = f"{name}_{fn}".upper() + "_WORKSPACE_SIZE"
                ws_size = next((int(l.split()[-1]) for l in header.splitlines()
                                if l.startswith(f"#define {macro} ")), 0)
                dt = torch.float16 if "f16" in name else torch.float32
                if name == "elementwise_chain":
                    ins = [torch.empty(1 << 24, device="cuda").uniform_(-1, 1) for _ in range(3)]
                    ref_fn = lambda a, b, c: torch.relu(a * b + c)  # noqa: E731
                elif name == "row_sum":
                    ins = [torch.empty(100000, 100, device="cuda").uniform_(-1, 1) for _ in range(2)]
                    ref_fn = lambda a, b: (a + b).sum(1)  # noqa: E731
                else:
                    ins = [torch.empty(4096, 4096, device="cuda").uniform_(-1, 1).to(dt) for _ in range(2)]
                    ref_fn = torch.matmul
                ref = ref_fn(*ins)
                res = torch.empty_like(ref)
                ws = torch.empty(max(ws_size, 1), dtype=torch.uint8, device="cuda")
                c_fn = getattr(cdll, f"{name}_{fn}")
                c_fn.restype = ctypes.c_int
                stream = ctypes.c_void_p(torch.cuda.current_stream().cuda_stream)
                ptrs = [ctypes.c_void_p(t.data_ptr()) for t in ins + [res]] + [ctypes.c_void_p(ws.data_ptr()), stream]
                run = lambda: c_fn(*ptrs)  # noqa: E731
                status = run()
                torch.cuda.synchronize()
                if status != 0:
                    raise RuntimeError(f"{name}_{fn} returned status {status}")
                t_ireec = _time(run, args.reps)
                note = _launches(out.files[f"{name}_kernels.cu"])
                tol = 1e-2 if dt == torch.float16 else 1e-3
                if not torch.allclose(res.float(), ref.float(), rtol=tol, atol=tol * max(1.0, float(ref.abs().max()))):
                    note = "MISMATCH with torch; " + note
                t_eager = _time(lambda: ref_fn(*ins), args.reps)
                try:
                    comp = torch.compile(ref_fn)
                    t_comp = _time(lambda: comp(*ins), args.reps)
                except Exception as e:  # noqa: BLE001 - a reference that does not work here
                    t_comp, note = None, (note + f" torch.compile: {type(e).__name__}").strip()
                t_blas = _time(lambda: torch.matmul(*ins), args.reps) if flops else None
                if nbytes:
                    gbs = nbytes / (t_ireec * 1e-3) / 1e9
                    vs = f"{gbs:.0f} GB/s = {100 * gbs / copy_gbs:.0f}% of copy"
                else:
                    vs = f"{100 * t_blas / t_ireec:.1f}% of cuBLAS"
                fmt = lambda v: "—" if v is None else f"{v:.3f}"  # noqa: E731
                lines.append(f"| {name} ({desc}) | {fmt(t_ireec)} | {fmt(t_eager)} | {fmt(t_comp)} | "
                             f"{fmt(t_blas)} | {vs} | {note} |")
            except Exception as e:  # noqa: BLE001 - one failing case does not stop the run
                lines.append(f"| {name} ({desc}) | — | — | — | — | — | {type(e).__name__}: {str(e)[:120]} |")
            torch.cuda.empty_cache()
        lines += _models(Path(tmp), args.reps, np)
    lines += ["", "Targets (one run): elementwise >= 85% and row sums >= 75% of the copy bandwidth; "
              "matmul 4096³ f32 >= 60% of cuBLAS (TF32 off); f16 matmul: the ratio as measured."]
    text = "\n".join(lines) + "\n"
    if args.output == "-":
        sys.stdout.write(text)
    else:
        Path(args.output).write_text(text)
        print(f"bench-gpu: wrote {args.output}")
    return 0


def _launches(kernels_cu: str) -> str:
    """The launch shapes of a generated ``_kernels.cu`` (``grid x block`` per dispatch) and
    which GPU kernel shape each uses (matmul micro-kernel, warp reductions, grid-stride)."""
    import re

    out = []
    for m in re.finditer(r"<<<dim3\(([^)]*)\), dim3\((\d+), 1, 1\)", kernels_cu):
        out.append(f"{m[1].replace(', ', 'x')} blocks of {m[2]}")
    kinds = [k for k, marker in (("matmul micro-kernel", "ireec_gpu_matmul_f32("),
                                 ("warp reductions", "__shfl_down_sync"),
                                 ("grid-stride", "(grid-stride)")) if marker in kernels_cu]
    return "; ".join(out) + (f" ({', '.join(kinds)})" if kinds else "")


def _models(build_dir: Path, reps: int, np) -> List[str]:
    """Rows for the ``pass`` models: ireec cuda (host-pointer entry, copies included) against
    the ``c`` target's result, timed with wall clock."""
    try:
        from tests.e2e.models import inputs_and_expected, model_files, read_status, rel
    except ImportError:
        return ["", "Models: tests/e2e/models.py not importable; skipped."]
    from ireec.compiler import compile_file
    from ireec.runtime.build import build_shared_library
    from ireec.runtime.loader import load

    status = read_status()
    out = ["", "## Models (host-pointer entry: copies in and out included)", "",
           "| model | ireec cuda ms | max abs error vs expected |", "|---|---|---|"]
    for path in model_files():
        if status.get(rel(path), ("",))[0] != "pass":
            continue
        try:
            o = compile_file(str(path), target="cuda")
            lib = build_shared_library(o.files, o.module_name, build_dir / f"m_{o.module_name}.so", target="cuda")
            m = load(lib)
            args, expected = inputs_and_expected(path)
            fn = m.functions[0]
            r = m.call(fn, *args)
            t0 = time.perf_counter()
            for _ in range(reps):
                r = m.call(fn, *args)
            ms = (time.perf_counter() - t0) * 1e3 / reps
            r = r[0] if isinstance(r, tuple) else r
            out.append(f"| {rel(path)} | {ms:.3f} | {float(np.max(np.abs(r - expected))):.2e} |")
        except Exception as e:  # noqa: BLE001
            out.append(f"| {rel(path)} | — | {type(e).__name__}: {str(e)[:100]} |")
    return out


if __name__ == "__main__":
    sys.exit(main())
