"""Int8 against f32 on a Cortex-M4 under QEMU: instructions per inference, arena and flash.

    python3 -m benchmarks --only cortex-m     # this section alone, spliced into RESULTS.md

For each network of ../shared/models/quant (cnn_int8, mlp_int8): the int8 QDQ model in its two
forms (``<m>.qdq.linalg.mlir``, ``<m>.qdq.tosa.mlir``) and its f32 twin, the same network in
float (``benchmarks/float_twin.py``: rebuilt from ``<m>.qdq.onnx`` with the weights
dequantized; ../shared has the float model's output ``out0.float.npy`` but not the float
model). Each is compiled with ``ireec compile --output-format=vm-c`` (default flags: the
workspace an argument, constants a C array in ``.rodata``), built with examples/cortex-m's
Makefile (``arm-none-eabi-gcc -mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16
-O2``) and run once on ``arg0.npy`` under ``qemu-system-arm -M mps2-an386 -icount
shift=0,sleep=off`` (tests/e2e/cortex_m.py):

- instructions per inference: the model call timed with the board's CMSDK APB timer 0
  (examples/cortex-m/icount_timer.h); under ``-icount shift=0`` the virtual clock advances
  1 ns per executed instruction, and the timer's ticks are converted with the instructions per
  tick measured in the same run from two ``subs``/``bne`` loops of known length (40 at QEMU's
  25 MHz SYSCLK; a run that measures anything else is reported, not converted). Exact to one
  tick (40 instructions). Instructions, not cycles: QEMU does not model the M4's timing;
- arena: the workspace array the generated header sizes (``<M>_WORKSPACE_ARRAY_SIZE``), from
  the ELF (``arm-none-eabi-nm -S``); stack: the header's bound ``<M>_STACK_SIZE``;
- flash: the model's own input sections in the link map (its objects' ``.text`` code,
  ``.rodata`` with the constant pool, ``.data``), without startup code, ``main`` and newlib;
- output check: int8 outputs against ONNX Runtime's ``out0.npy`` bit for bit; the f32 twin's
  largest difference from the float model's ``out0.float.npy``.

Skipped, with the reason, without ../shared/models/quant or the ARM toolchain and QEMU.
"""
from __future__ import annotations

import re
import subprocess
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, List, Optional, Sequence

import numpy as np

SECTION_TITLE = "## Cortex-M4 (QEMU)"
NETWORKS = ("cnn_int8", "mlp_int8")
INT8_FORMS = ("linalg", "tosa")


@dataclass
class Row:
    """One build: ``network``, ``build`` (``int8 linalg``, ``int8 tosa``, ``f32 twin``), and
    either the measurements or ``error`` (why it has none)."""

    network: str
    build: str
    instructions: Optional[int] = None
    per_tick: Optional[float] = None
    arena: Optional[int] = None
    flash: Optional[int] = None
    code: Optional[int] = None
    constants: Optional[int] = None
    stack: Optional[int] = None
    check: str = ""
    error: Optional[str] = None


def unavailable(quant_dir: Path) -> Optional[str]:
    """Why this section cannot run here, or None."""
    if not quant_dir.is_dir():
        return f"{quant_dir} is not present"
    try:
        from tests.e2e import cortex_m
    except ImportError as e:  # pragma: no cover - the repository always has it
        return f"tests/e2e/cortex_m.py does not import: {e}"
    return cortex_m.missing_tools()


def _header_int(header: Path, name: str) -> int:
    m = re.search(rf"^#define {re.escape(name)} (\d+)", header.read_text(), re.M)
    if not m:
        raise ValueError(f"no {name} in {header}")
    return int(m.group(1))


def measure(src: Path, network: str, build: str, x: np.ndarray, like: np.ndarray, work: Path,
            check: Callable[[np.ndarray], str]) -> Row:
    """Build ``src`` for the M4, run it under QEMU with icount and return its ``Row``."""
    from tests.e2e import cortex_m

    row = Row(network, build)
    try:
        elf = cortex_m.build_firmware(src, "main_graph", [x], [like], work, exact=True, timed=True)
        words = cortex_m.run_qemu(elf, icount=True)
        out = cortex_m.exact_results(words, [like])[0]
        ins = cortex_m.instructions(words)
        fp = cortex_m.footprint(elf)
    except Exception as e:  # reported in the table
        row.error = f"{type(e).__name__}: {str(e).strip().splitlines()[0][:200] if str(e).strip() else ''}"
        traceback.print_exc()
        return row
    row.per_tick = ins.per_tick
    if ins.per_tick != 40.0 or ins.spin_error > ins.per_tick:
        row.error = (f"the timer measured {ins.per_tick:g} instructions per tick (calibration off by "
                     f"{ins.spin_error:g}): not converted")
        return row
    header = work / "model" / "model.h"
    row.instructions, row.arena, row.flash = ins.count, fp.arena, fp.flash
    row.code, row.constants = fp.code, fp.constants
    row.stack = _header_int(header, "MODEL_STACK_SIZE")
    row.check = check(out)
    return row


def run_cortex_m(quant_dir: Path, build_dir: Path, log: Callable[[str], None]) -> List[Row]:
    """Every network of ``quant_dir``: its int8 forms and its f32 twin (see the module
    docstring); builds under ``build_dir``."""
    from benchmarks.float_twin import float_twin

    rows: List[Row] = []
    for net in NETWORKS:
        d = quant_dir / net
        if not d.is_dir():
            rows.append(Row(net, "-", error=f"{d} is not present"))
            continue
        x = np.load(d / "arg0.npy")
        q_ref, f_ref = np.load(d / "out0.npy"), np.load(d / "out0.float.npy")

        def bits(out: np.ndarray, ref=q_ref) -> str:
            if np.array_equal(out.view(np.uint32), ref.view(np.uint32)):
                return "bit-exact vs ONNX Runtime (`out0.npy`)"
            steps = np.max(np.abs(out - ref))
            return f"**differs** from `out0.npy` (max abs {steps:.3g})"

        def near(out: np.ndarray, ref=f_ref, q=q_ref) -> str:
            return (f"max abs {np.max(np.abs(out - ref)):.2g} vs the float model (`out0.float.npy`; "
                    f"the int8 model: {np.max(np.abs(q - ref)):.2g})")

        for form in INT8_FORMS:
            src = d / f"{net}.qdq.{form}.mlir"
            log(f"cortex-m: {src.name}")
            rows.append(measure(src, net, f"int8 ({form})", x, q_ref, build_dir / f"{net}_{form}", bits))
        log(f"cortex-m: {net} f32 twin")
        twin = build_dir / f"{net}.float.mlir"
        try:
            build_dir.mkdir(parents=True, exist_ok=True)
            twin.write_text(float_twin(d / f"{net}.qdq.onnx"))
        except Exception as e:
            rows.append(Row(net, "f32 twin", error=f"float twin: {type(e).__name__}: {e}"))
            continue
        rows.append(measure(twin, net, "f32 twin", x, f_ref, build_dir / f"{net}_f32", near))
    return rows


def _tool_version(cmd: Sequence[str]) -> str:
    try:
        out = subprocess.run(list(cmd), capture_output=True, text=True, timeout=30).stdout
        return out.splitlines()[0].strip() if out else "unknown"
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def render(rows: Sequence[Row], skipped: Optional[str], note: str = "") -> List[str]:
    """The ``## Cortex-M4 (QEMU)`` section of RESULTS.md (Markdown lines)."""
    L = [SECTION_TITLE, "",
         "Generated by `python3 -m benchmarks --only cortex-m` (also part of `make bench`; "
         "`benchmarks/cortex_m.py`). The int8 QDQ models of `../shared/models/quant` and their "
         "f32 twins (the same network in float: `benchmarks/float_twin.py` rebuilds it from "
         "`<m>.qdq.onnx` with the weights dequantized and the removed ReLUs put back; `../shared` "
         "holds the float model's output but not the float model), built by examples/cortex-m "
         "(`arm-none-eabi-gcc -mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16 -O2`, "
         "default ireec flags) and run once on `arg0.npy` under `qemu-system-arm -M mps2-an386 "
         "-icount shift=0,sleep=off`. Instructions: the call timed by the CMSDK APB timer 0, "
         "whose ticks count 40 instructions each under icount (measured in every run from two "
         "`subs`/`bne` loops of 50,000 and 250,000 iterations; exact to one tick, ±40; "
         "tests/e2e/test_cortex_m.py also checks it against QEMU's single-step execution trace "
         "of mlp_int8); instructions, not cycles. Arena: the workspace array (ELF symbol size); flash: the "
         "model's code + constants (+ other read-only data) from the link map, without startup "
         "code, `main` and newlib; stack: the header's bound.", ""]
    if note:
        L += [note, ""]
    if skipped:
        return L + [f"Skipped: {skipped}.", ""]
    f32 = {r.network: r.instructions for r in rows if r.build == "f32 twin" and r.instructions}
    L += ["| network | build | instructions / inference | vs f32 | arena (B) | flash (B): code + constants "
          "| stack bound (B) | output |",
          "|---|---|---:|---:|---:|---|---:|---|"]
    for r in rows:
        if r.error:
            L.append(f"| {r.network} | {r.build} | — | — | — | — | — | failed: {r.error} |")
            continue
        base = f32.get(r.network)
        ratio = f"{r.instructions / base:.2f}x" if base else "—"
        other = r.flash - r.code - r.constants
        flash = f"{r.flash:,} = {r.code:,} + {r.constants:,}" + (f" + {other:,}" if other else "")
        L.append(f"| {r.network} | {r.build} | {r.instructions:,} | {ratio} | {r.arena:,} | {flash} | "
                 f"{r.stack:,} | {r.check} |")
    L += ["", "What the int8 builds run: cnn_int8's QDQ files keep its per-channel weights "
          "fake-quantized (dequantize generics around f32 convolutions and a matmul). In the "
          "linalg form `fuse-qdq-contractions` makes them i8 x i8 -> i32 contractions with the "
          "i32 bias as their start and one f32 scaling (i8 weights in flash; the 8 -> 16 "
          "convolution and the matmul call `ireec_uk_igemm`, the one-channel 3x3 convolution is "
          "a loop nest); the TOSA form's dequantizations are separate elementwise TOSA ops, so "
          "it stays the f32 network plus the rounding steps (f32 weights in flash). mlp_int8 "
          "lowers to i8 x i8 -> i32 matmuls (`linalg.quantized_matmul`), which call "
          "`ireec_uk_igemm` (its portable path, SMLAD under __ARM_FEATURE_DSP; B is packed on "
          "every call, which at one row costs about what SMLAD saves), then the requantization "
          "as C loops.", ""]
    return L


def context_note() -> str:
    """Tool versions above the table."""
    return ("Tools: " + _tool_version(["qemu-system-arm", "--version"]) + "; "
            + _tool_version(["arm-none-eabi-gcc", "--version"]) + ".")


def section(quant_dir: Path, build_dir: Path, log: Callable[[str], None], partial: bool = False
            ) -> List[str]:
    """Measure (or skip with the reason) and render the section; ``partial``: say that only
    this section was measured (``--only cortex-m``)."""
    from ireec.tools.benchmark import machine_context

    why = unavailable(quant_dir)
    if why:
        log(f"cortex-m: skipped: {why}")
        return render([], why)
    rows = run_cortex_m(quant_dir, build_dir, log)
    note = context_note()
    if partial:
        note = (f"Partial run of this table alone (`--only cortex-m`, {machine_context('')['date']}); "
                "the other sections come from earlier runs. " + note)
    return render(rows, None, note)
