"""Generated C on a microcontroller model: each case is compiled to vm-c sources, cross-compiled
with ``arm-none-eabi-gcc -mcpu=cortex-m4 -mfloat-abi=hard`` through examples/cortex-m (its
startup code, linker script and Makefile flags), run under ``qemu-system-arm -M mps2-an386``
with semihosting, and the printed results are compared with numpy's expected values.

Needs Debian's gcc-arm-none-eabi, libnewlib-arm-none-eabi and qemu-system-arm (.ci/run
installs them where it can); skips with that reason otherwise."""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from ireec.cli import main as ireec_main

from .common import REPO, shared_path
from .models import inputs_and_expected

EXAMPLE = REPO / "examples" / "cortex-m"
TOOLS = ("arm-none-eabi-gcc", "arm-none-eabi-nm", "arm-none-eabi-readelf", "qemu-system-arm")
pytestmark = pytest.mark.skipif(
    any(shutil.which(t) is None for t in TOOLS),
    reason="needs arm-none-eabi-gcc and qemu-system-arm (Debian: gcc-arm-none-eabi "
           "libnewlib-arm-none-eabi qemu-system-arm)")

_C_TYPES = {np.dtype(np.float32): "float", np.dtype(np.int32): "int32_t", np.dtype(np.int64): "int64_t"}


def _c_array(name: str, a: np.ndarray, const: bool) -> str:
    ct = _C_TYPES[a.dtype]
    flat = a.reshape(-1)
    if const:
        vals = ", ".join(repr(float(x)) + "f" if ct == "float" else str(int(x)) for x in flat)
        return f"static const {ct} {name}[{flat.size}] = {{{vals}}};"
    return f"static {ct} {name}[{flat.size}];"


def _main_c(module: str, fn: str, args, results, decls=(), prologue=()) -> str:
    """A main that calls ``<module>_<fn>`` on static inputs and prints every result element
    (with a workspace argument unless the header says the workspace is static). ``decls`` are
    C lines at file scope after the buffers, ``prologue`` C lines run first in main (what they
    print comes before the ``status`` line)."""
    lines = ["#include <stdio.h>", "#include <stdint.h>", "#include <string.h>",
             f'#include "{module}.h"', ""]
    lines += [_c_array(f"in{i}", a, True) for i, a in enumerate(args)]
    lines += [_c_array(f"out{i}", r, False) for i, r in enumerate(results)]
    lines += [f"IREEC_ALIGNAS({module.upper()}_WORKSPACE_ALIGNMENT) static uint8_t "
              f"workspace[{module.upper()}_WORKSPACE_ARRAY_SIZE];"]
    lines += list(decls)
    lines += ["", "int main(void) {"]
    lines += [f"  {line}" for line in prologue]
    call_args = [f"in{i}" for i in range(len(args))] + [f"out{i}" for i in range(len(results))]
    lines.append(f"#if {module.upper()}_WORKSPACE_STATIC")
    lines.append(f"  ireec_status_t s = {module}_{fn}({', '.join(call_args)});")
    lines.append("  (void)workspace;")
    lines.append("#else")
    lines.append(f"  ireec_status_t s = {module}_{fn}({', '.join(call_args + ['workspace'])});")
    lines.append("#endif")
    lines.append('  printf("status %d\\n", (int)s);')
    for i, r in enumerate(results):
        fmt = '"%.9g\\n", (double)' if r.dtype == np.float32 else '"%ld\\n", (long)'
        lines.append(f"  for (int i = 0; i < {r.size}; ++i) printf({fmt}out{i}[i]);")
    lines += ["  return 0;", "}", ""]
    return "\n".join(lines)


def build_and_run_on_cortex_m(src: Path, fn: str, args, results, tmp_path: Path, capsys, flags=(),
                              make_vars=(), decls=(), prologue=()) -> tuple[Path, list[str]]:
    """Compile ``src`` to C (with ``flags``), build it with examples/cortex-m's Makefile (with
    the extra ``make_vars``, e.g. ``SECTION=.ireec_weights``) and run it under QEMU; returns
    the ELF and the printed words."""
    gen = tmp_path / "model"
    rc = ireec_main(["compile", str(src), "--output-format=vm-c", "--module-name=model", "-o", str(gen),
                     *flags])
    assert rc == 0, capsys.readouterr().err
    main_c = tmp_path / "main.c"
    main_c.write_text(_main_c("model", fn, args, results, decls, prologue))
    make = ["make", "-s", "-C", str(EXAMPLE), f"BUILD={tmp_path}", "NAME=model", f"MAIN={main_c}",
            f"MODEL={src}", *make_vars]
    # The sources exist already: build the ELF only (no ireec on the PATH needed).
    elf = tmp_path / "model.elf"
    proc = subprocess.run(make + [str(elf)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    qemu = ["qemu-system-arm", "-M", "mps2-an386", "-nographic", "-semihosting-config",
            "enable=on,target=native", "-kernel", str(elf)]
    run = subprocess.run(qemu, capture_output=True, text=True, timeout=120)
    return elf, run.stdout.split()


def _results(words: list[str]) -> np.ndarray:
    """The values printed after ``status 0``."""
    assert "status" in words, " ".join(words)[:500]
    i = words.index("status")
    assert words[i:i + 2] == ["status", "0"], " ".join(words)[:500]
    return np.array([float(x) for x in words[i + 2:]])


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
EXTFLASH = (0x21000000, 0x21000000 + (16 << 20))
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
