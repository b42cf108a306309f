"""Compiling and running a C harness of the CPU micro-kernels (runtime_c/ireec_ukernel*.h)
in a test's temporary directory."""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Sequence

import pytest

from ireec.runtime.build import runtime_header_text
from ireec.runtime.ukernel_objects import HEADERS


def run_c_harness(tmp_path: Path, source: str, flags: Sequence[str] = ()) -> str:
    """Compile ``source`` (C99, ``-O2 -ffp-contract=off`` and ``flags``) next to the
    micro-kernel headers, run it and return its stdout; skips without a C compiler, fails
    when it exits non-zero or does not print `` 0 failed``."""
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.skip("no C compiler")
    for name in HEADERS:
        (tmp_path / name).write_text(runtime_header_text(name))
    src = tmp_path / "harness.c"
    src.write_text(source)
    exe = tmp_path / "harness"
    subprocess.run([cc, "-std=c99", "-O2", "-ffp-contract=off", *flags, f"-I{tmp_path}", str(src),
                    "-o", str(exe)], check=True)
    r = subprocess.run([str(exe)], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout
    assert " 0 failed" in r.stdout, r.stdout
    return r.stdout
