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
TOOLS = ("arm-none-eabi-gcc", "qemu-system-arm")
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


def _main_c(module: str, fn: str, args, results) -> str:
    """A main that calls ``<module>_<fn>`` on static inputs and prints every result element
    (with a workspace argument unless the header says the workspace is static)."""
    lines = ["#include <stdio.h>", "#include <stdint.h>", f'#include "{module}.h"', ""]
    lines += [_c_array(f"in{i}", a, True) for i, a in enumerate(args)]
    lines += [_c_array(f"out{i}", r, False) for i, r in enumerate(results)]
    lines += [f"IREEC_ALIGNAS({module.upper()}_WORKSPACE_ALIGNMENT) static uint8_t "
              f"workspace[{module.upper()}_WORKSPACE_ARRAY_SIZE];",
              "", "int main(void) {"]
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


def run_on_cortex_m(src: Path, fn: str, args, results, tmp_path: Path, capsys, flags=()):
    """Compile ``src`` to C (with ``flags``), build it with examples/cortex-m's Makefile and
    run it under QEMU; returns the printed result values as one float array."""
    gen = tmp_path / "model"
    rc = ireec_main(["compile", str(src), "--output-format=vm-c", "--module-name=model", "-o", str(gen),
                     *flags])
    assert rc == 0, capsys.readouterr().err
    main_c = tmp_path / "main.c"
    main_c.write_text(_main_c("model", fn, args, results))
    make = ["make", "-s", "-C", str(EXAMPLE), f"BUILD={tmp_path}", "NAME=model", f"MAIN={main_c}",
            f"MODEL={src}"]
    # The sources exist already: build the ELF only (no ireec on the PATH needed).
    proc = subprocess.run(make + [f"{tmp_path}/model.elf"], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    qemu = ["qemu-system-arm", "-M", "mps2-an386", "-nographic", "-semihosting-config",
            "enable=on,target=native", "-kernel", str(tmp_path / "model.elf")]
    run = subprocess.run(qemu, capture_output=True, text=True, timeout=120)
    lines = run.stdout.split()
    assert lines[:2] == ["status", "0"], run.stdout[:500] + run.stderr[:500]
    return np.array([float(x) for x in lines[2:]])


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
