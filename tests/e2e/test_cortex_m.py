"""Generated C on a microcontroller model: each case is compiled to vm-c sources, cross-compiled
with ``arm-none-eabi-gcc -mcpu=cortex-m4 -mfloat-abi=hard`` through examples/cortex-m (its
startup code, linker script and Makefile flags), run under ``qemu-system-arm -M mps2-an386``
with semihosting, and the printed results are compared with numpy's expected values (the
int8 QDQ models: with ONNX Runtime's and the host build's, bit for bit). The harness is
tests/e2e/cortex_m.py; ``-icount`` instruction counting is checked here too.

Needs Debian's gcc-arm-none-eabi, libnewlib-arm-none-eabi and qemu-system-arm (.ci/run
installs them where it can); skips with that reason otherwise."""
from __future__ import annotations

import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

import ireec

from . import cortex_m
from .common import REPO, build, shared_path
from .cortex_m import EXAMPLE, EXTFLASH, exact_results, footprint, instructions, run_qemu
from .models import inputs_and_expected, skip_unless_pass

pytestmark = pytest.mark.skipif(cortex_m.missing_tools() is not None,
                                reason=cortex_m.missing_tools() or "")


def build_and_run_on_cortex_m(src: Path, fn: str, args, results, tmp_path: Path, capsys, flags=(),
                              make_vars=(), decls=(), prologue=(), exact=False, timed=False
                              ) -> tuple[Path, list[str]]:
    """Compile ``src`` to C (with ``flags``), build it with examples/cortex-m's Makefile (with
    the extra ``make_vars``, e.g. ``SECTION=.ireec_weights``) and run it under QEMU (with
    ``-icount shift=0,sleep=off`` when ``timed``); returns the ELF and the printed words."""
    try:
        elf = cortex_m.build_firmware(src, fn, args, results, tmp_path, flags, make_vars, decls,
                                      prologue, exact, timed)
    except RuntimeError as e:
        pytest.fail(f"{e}\n{capsys.readouterr().err}")
    return elf, run_qemu(elf, icount=timed)


_results = cortex_m.results


def run_on_cortex_m(src: Path, fn: str, args, results, tmp_path: Path, capsys, flags=(), make_vars=(),
                    decls=(), prologue=()):
    """Compile ``src`` to C (with ``flags``), build it with examples/cortex-m's Makefile and
    run it under QEMU; returns the printed result values as one float array."""
    _, words = build_and_run_on_cortex_m(src, fn, args, results, tmp_path, capsys, flags, make_vars,
                                         decls, prologue)
    return _results(words)


def test_abs_prints_2(tmp_path):
    proc = subprocess.run(["make", "-s", "-C", str(EXAMPLE), f"BUILD={tmp_path}", "run",
                           "IREEC=python3 -m ireec.cli"],
                          capture_output=True, text=True, timeout=300, cwd=REPO,
                          env={**os.environ, "PYTHONPATH": os.pathsep.join(
                              [str(REPO)] + [p for p in [os.environ.get("PYTHONPATH")] if p])})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.strip().splitlines()[-1] == "f32=2"


MODELS = [
    ("torch_mlir", "mlp", "mlp.const.linalg.mlir", "main"),
    ("jax", "lenet", "lenet.const.mlir", "main"),
    ("jax", "gpt_block", "gpt_block.const.mlir", "main"),
    ("jax", "mobilenet_block", "mobilenet_block.const.mlir", "main"),
    ("torch_mlir", "mobilenet_block", "mobilenet_block.const.linalg.mlir", "main"),
]


@pytest.mark.parametrize("frontend,model,file,fn", MODELS, ids=[f"{m[0]}-{m[2]}" for m in MODELS])
def test_model_on_cortex_m4(frontend, model, file, fn, tmp_path, capsys):
    path = shared_path("models", frontend, model, file)
    args, expected = inputs_and_expected(path)
    got = run_on_cortex_m(path, fn, args, [expected], tmp_path, capsys)
    np.testing.assert_allclose(got.reshape(expected.shape), expected, rtol=1e-4, atol=1e-4)


def test_lenet_static_workspace_on_cortex_m4(tmp_path, capsys):
    """--workspace=static: the arena is in .bss, the entry takes no workspace."""
    path = shared_path("models", "jax", "lenet", "lenet.const.mlir")
    args, expected = inputs_and_expected(path)
    got = run_on_cortex_m(path, "main", args, [expected], tmp_path, capsys, ["--workspace=static"])
    np.testing.assert_allclose(got.reshape(expected.shape), expected, rtol=1e-4, atol=1e-4)


# examples/cortex-m/link.ld: the section .ireec_weights goes to EXTFLASH, the mps2-an386 PSRAM
# (16 MiB at 0x21000000) standing for an external flash; QEMU loads it there from the ELF.
WEIGHTS_SECTION = ".ireec_weights"
LENET = ("models", "jax", "lenet", "lenet.const.mlir")  # 247016 bytes of constants


def _symbol(elf: Path, name: str) -> tuple[int, str]:
    """The address and nm type letter of the symbol ``name`` in ``elf``."""
    out = subprocess.run(["arm-none-eabi-nm", str(elf)], capture_output=True, text=True, check=True).stdout
    found = [(int(p[0], 16), p[1]) for p in (line.split() for line in out.splitlines())
             if len(p) == 3 and p[2] == name]
    assert len(found) == 1, out
    return found[0]


def _section(elf: Path, name: str) -> tuple[int, int]:
    """The address and size of the section ``name`` in ``elf`` (readelf -S)."""
    out = subprocess.run(["arm-none-eabi-readelf", "-SW", str(elf)], capture_output=True, text=True,
                         check=True).stdout
    for line in out.splitlines():
        parts = line.replace("[ ", "[").split()
        if len(parts) > 5 and parts[1] == name:
            return int(parts[3], 16), int(parts[5], 16)
    raise AssertionError(f"no section {name} in {elf}:\n{out}")


def _assert_in_extflash(elf: Path, symbol: str, size: int):
    addr, _ = _symbol(elf, symbol)
    sec_addr, sec_size = _section(elf, WEIGHTS_SECTION)
    assert EXTFLASH[0] <= addr and addr + size <= EXTFLASH[1], hex(addr)
    assert sec_addr <= addr and addr + size <= sec_addr + sec_size, (hex(addr), hex(sec_addr), sec_size)
    assert addr % 64 == 0, hex(addr)


@pytest.mark.parametrize("mode", ["incbin", "c-array"])
def test_lenet_weights_in_external_flash(mode, tmp_path, capsys):
    """--constants=incbin (model_constants.S) or c-array (the C section attribute) with
    SECTION=.ireec_weights: the pool is linked into EXTFLASH and read from there."""
    path = shared_path(*LENET)
    args, expected = inputs_and_expected(path)
    elf, words = build_and_run_on_cortex_m(path, "main", args, [expected], tmp_path, capsys,
                                           [f"--constants={mode}"], [f"SECTION={WEIGHTS_SECTION}"])
    assert (tmp_path / "model" / "model_constants.S").exists() == (mode == "incbin")
    np.testing.assert_allclose(_results(words).reshape(expected.shape), expected, rtol=1e-4, atol=1e-4)
    size = int(next(line.split()[2] for line in (tmp_path / "model" / "model.h").read_text().splitlines()
                    if line.startswith("#define MODEL_CONSTANT_SIZE ")))
    assert size > 64 * 1024
    _assert_in_extflash(elf, "model_constant_pool", size)


# The weights of a --constants=external build, put into EXTFLASH by the application itself:
# the Makefile assembles it with -Wa,-I<generated folder>, where .incbin finds the .bin.
_WEIGHTS_S = f"""/* model_constants.bin in the external flash, for model_set_constants(). */
  .section {WEIGHTS_SECTION}, "a"
  .balign 64
  .globl model_weights
  .type model_weights, %object
model_weights:
  .incbin "model_constants.bin"
  .size model_weights, . - model_weights
"""


def test_lenet_external_constants(tmp_path, capsys):
    """--constants=external: main passes the weights (in EXTFLASH) to model_set_constants()
    first. Before it, a call fails with FAILED_PRECONDITION (9); a corrupted copy gives
    DATA_LOSS (15); a wrong size or a misaligned pointer INVALID_ARGUMENT (3)."""
    path = shared_path(*LENET)
    args, expected = inputs_and_expected(path)
    weights_s = tmp_path / "weights.S"
    weights_s.write_text(_WEIGHTS_S)
    decls = ["extern const uint8_t model_weights[MODEL_CONSTANT_SIZE];",
             "IREEC_ALIGNAS(MODEL_CONSTANT_ALIGNMENT) static uint8_t corrupt[MODEL_CONSTANT_SIZE];"]
    prologue = [
        'printf("before %d\\n", (int)model_main(in0, out0, workspace));',
        "memcpy(corrupt, model_weights, MODEL_CONSTANT_SIZE);",
        "corrupt[MODEL_CONSTANT_SIZE / 2] ^= 0x10;",
        'printf("corrupt %d\\n", (int)model_set_constants(corrupt, MODEL_CONSTANT_SIZE));',
        'printf("short %d\\n", (int)model_set_constants(model_weights, MODEL_CONSTANT_SIZE - 1));',
        'printf("misaligned %d\\n", (int)model_set_constants(corrupt + 4, MODEL_CONSTANT_SIZE));',
        'printf("still %d\\n", (int)model_main(in0, out0, workspace));',
        'printf("set %d\\n", (int)model_set_constants(model_weights, MODEL_CONSTANT_SIZE));',
    ]
    elf, words = build_and_run_on_cortex_m(
        path, "main", args, [expected], tmp_path, capsys, ["--constants=external"],
        [f"EXTRA_SRCS={weights_s}"], decls, prologue)
    gen = tmp_path / "model"
    assert (gen / "model_constants.bin").exists() and not (gen / "model_constants.S").exists()
    i = words.index("status") if "status" in words else len(words)
    assert dict(zip(words[:i:2], words[1:i:2])) == {
        "before": "9", "corrupt": "15", "short": "3", "misaligned": "3", "still": "9", "set": "0"}, words[:20]
    np.testing.assert_allclose(_results(words).reshape(expected.shape), expected, rtol=1e-4, atol=1e-4)
    _assert_in_extflash(elf, "model_weights", (gen / "model_constants.bin").stat().st_size)


def _header_define(header: Path, name: str) -> int:
    """The integer value of ``#define name`` in ``header``."""
    for line in header.read_text().splitlines():
        if line.startswith(f"#define {name} "):
            return int(line.split()[2])
    raise AssertionError(f"no #define {name} in {header}")


def test_icount_timer_counts_instructions(tmp_path, capsys):
    """Under ``-icount shift=0,sleep=off`` (1 virtual ns per instruction) the CMSDK APB timer 0
    of mps2-an386 (25 MHz) ticks once every 40 instructions: measured, not assumed, from the
    ticks of two ``subs``/``bne`` loops of known length (examples/cortex-m/icount_timer.h), and the
    shorter loop's ticks give back its 2n instructions to within a tick."""
    src = REPO / "tests" / "e2e" / "inputs" / "abs.mlir"
    _, words = build_and_run_on_cortex_m(src, "abs", [np.array(-2.0, np.float32)],
                                         [np.zeros((), np.float32)], tmp_path, capsys, timed=True)
    assert _results(words).tolist() == [2.0]
    ins = instructions(words)
    assert ins.per_tick == 40.0, words[:8]
    assert ins.spin_error <= ins.per_tick, words[:8]
    assert 0 <= ins.count < 1000, words[:8]  # abs of one element: a few dozen instructions
    # Without -icount the timer follows host time: the loops no longer give 40 per tick.


QUANT = [(m, f"{m}.qdq.{form}.mlir") for m in ("cnn_int8", "mlp_int8") for form in ("linalg", "tosa")]


@pytest.mark.parametrize("model,file", QUANT, ids=[q[1] for q in QUANT])
def test_quantized_model_bit_exact_on_cortex_m4(model, file, tmp_path, capsys):
    """The int8 QDQ models of ../shared/models/quant on the M4: the output printed by the
    firmware (as bits) equals ONNX Runtime's ``out0.npy`` and the host ``c`` build's output bit
    for bit. Prints the model's arena, flash (code + constants + other read-only data),
    declared stack bound and instructions per call (``pytest -s`` or ``-rP`` shows them)."""
    path = shared_path("models", "quant", model, file)
    skip_unless_pass(path)
    args, expected = inputs_and_expected(path)
    elf, words = build_and_run_on_cortex_m(path, "main_graph", args, [expected], tmp_path / "m4", capsys,
                                           exact=True, timed=True)
    got = exact_results(words, [expected])[0]
    np.testing.assert_array_equal(got.view(np.uint32), expected.view(np.uint32),
                                  err_msg="Cortex-M4 against ONNX Runtime (out0.npy)")
    host = ireec.load(build(path, tmp_path / "host", capsys)).main_graph(*args)
    np.testing.assert_array_equal(got.view(np.uint32), np.asarray(host, np.float32).view(np.uint32),
                                  err_msg="Cortex-M4 against the host c build")

    header = tmp_path / "m4" / "model" / "model.h"
    fp = footprint(elf)
    assert fp.arena == _header_define(header, "MODEL_WORKSPACE_ARRAY_SIZE")
    assert fp.constants == _header_define(header, "MODEL_CONSTANT_SIZE") and fp.code > 0
    assert fp.rodata >= fp.constants and fp.extflash == 0
    stack = _header_define(header, "MODEL_STACK_SIZE")
    assert fp.flash < cortex_m.FLASH[1] - cortex_m.FLASH[0]
    assert fp.arena + fp.bss + fp.data + stack < cortex_m.RAM[1] - cortex_m.RAM[0]
    ins = instructions(words)
    assert ins.per_tick == 40.0
    print(f"{file}: arena {fp.arena} B, flash {fp.flash} B (code {fp.code}, constants {fp.constants}, "
          f"other rodata {fp.rodata - fp.constants}, data {fp.data}), stack bound {stack} B, "
          f"{ins.count} instructions per call (+-{ins.per_tick:g})")


@pytest.mark.slow
def test_icount_timer_agrees_with_an_execution_trace(tmp_path, capsys):
    """The instructions per call the timer gives (``-icount``) for mlp_int8 match, to within a
    tick, QEMU's own count of the instructions the call executes (``-singlestep -d exec``, one
    log line per instruction, from the ``bl`` to the return): the two differ only by the
    timer reads around the call."""
    path = shared_path("models", "quant", "mlp_int8", "mlp_int8.qdq.linalg.mlir")
    skip_unless_pass(path)
    args, expected = inputs_and_expected(path)
    elf, words = build_and_run_on_cortex_m(path, "main_graph", args, [expected], tmp_path, capsys,
                                           timed=True)
    ins = instructions(words)
    traced = cortex_m.trace_instructions(elf, "model_main_graph")
    print(f"timer {ins.count} (+-{ins.per_tick:g}), trace {traced}")
    assert abs(ins.count - traced) <= ins.per_tick
