"""Generated C on a Cortex-M4 under QEMU: the harness of tests/e2e/test_cortex_m.py and
benchmarks/cortex_m.py (no pytest here).

A model is compiled to vm-c sources, a ``main.c`` calling it on static inputs is written, the
ELF is built with examples/cortex-m's Makefile (``arm-none-eabi-gcc -mcpu=cortex-m4
-mfloat-abi=hard``, its startup code and linker script) and run under ``qemu-system-arm -M
mps2-an386`` with semihosting; ``main.c`` prints ``status <code>`` and then every result element.

- ``exact=True`` prints float results as the hexadecimal bits of each element (``0x3f800000``)
  and integers in decimal, for a bit-for-bit comparison (``exact_results``).
- ``timed=True`` times the call with the board's CMSDK APB timer 0
  (examples/cortex-m/icount_timer.h); run with ``icount=True`` (``-icount shift=0,sleep=off``:
  one virtual ns per guest instruction) its ticks count instructions. ``main.c`` then first
  times ``icount_spin(n)`` (2n instructions) for ``SPIN_N`` and prints ``spin <n> <ticks>``,
  then ``ticks <ticks of the call>``: ``instructions(words)`` measures the instructions per tick
  from the two spins and converts.
- ``footprint(elf)`` reads what the model takes from the ELF (``arm-none-eabi-nm -S``) and
  the link map the Makefile writes (its input sections from the model's own objects).
"""
from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "cortex-m"
TOOLS = ("make", "arm-none-eabi-gcc", "arm-none-eabi-nm", "arm-none-eabi-readelf", "qemu-system-arm")
QEMU = ["qemu-system-arm", "-M", "mps2-an386", "-nographic", "-semihosting-config",
        "enable=on,target=native"]
#: QEMU's virtual clock advances 2^0 ns per guest instruction and never with host time.
QEMU_ICOUNT = ["-icount", "shift=0,sleep=off"]
#: Iterations of the two calibration loops of a timed main (2 instructions each).
SPIN_N = (50_000, 250_000)
#: mps2-an386 memory map (examples/cortex-m/link.ld): flash, RAM, external flash (PSRAM).
FLASH = (0x00000000, 0x00400000)
RAM = (0x20000000, 0x20400000)
EXTFLASH = (0x21000000, 0x22000000)

C_TYPES = {np.dtype(np.float32): "float", np.dtype(np.float64): "double",
           np.dtype(np.int8): "int8_t", np.dtype(np.uint8): "uint8_t",
           np.dtype(np.int16): "int16_t", np.dtype(np.uint16): "uint16_t",
           np.dtype(np.int32): "int32_t", np.dtype(np.uint32): "uint32_t",
           np.dtype(np.int64): "int64_t", np.dtype(np.uint64): "uint64_t"}


def missing_tools() -> Optional[str]:
    """Why the Cortex-M harness cannot run here (a tool not on the PATH), or None."""
    missing = [t for t in TOOLS if shutil.which(t) is None]
    if missing:
        return (f"needs {', '.join(missing)} (Debian: gcc-arm-none-eabi libnewlib-arm-none-eabi "
                "qemu-system-arm)")
    return None


def c_array(name: str, a: np.ndarray, const: bool) -> str:
    """A static C array of ``a``'s element type: initialized (``const``) or zeroed."""
    ct = C_TYPES[a.dtype]
    flat = a.reshape(-1)
    if const:
        if a.dtype.kind == "f":
            vals = ", ".join(repr(float(x)) + ("f" if ct == "float" else "") for x in flat)
        else:
            suffix = {"int64_t": "LL", "uint64_t": "ULL", "uint32_t": "U"}.get(ct, "")
            # INT64_MIN and INT32_MIN have no literal of their own.
            vals = ", ".join(f"({int(x) + 1}{suffix} - 1)" if x < 0 else f"{int(x)}{suffix}" for x in flat)
        return f"static const {ct} {name}[{flat.size}] = {{{vals}}};"
    return f"static {ct} {name}[{flat.size}];"


def _print_loop(i: int, r: np.ndarray, exact: bool) -> str:
    """The C loop printing result ``i`` one element a line (see the module docstring)."""
    if exact and r.dtype == np.float32:
        body = f'uint32_t b; memcpy(&b, &out{i}[k], 4); printf("0x%08lx\\n", (unsigned long)b);'
    elif exact and r.dtype == np.float64:
        body = (f'uint64_t b; memcpy(&b, &out{i}[k], 8); '
                f'printf("0x%08lx%08lx\\n", (unsigned long)(b >> 32), (unsigned long)(uint32_t)b);')
    elif r.dtype.kind == "f":
        body = f'printf("%.9g\\n", (double)out{i}[k]);'
    elif r.dtype.kind == "u":
        body = f'printf("%llu\\n", (unsigned long long)out{i}[k]);'
    else:
        body = f'printf("%lld\\n", (long long)out{i}[k]);'
    return f"  for (int k = 0; k < {r.size}; ++k) {{ {body} }}"


def main_c(module: str, fn: str, args, results, decls=(), prologue=(), exact=False, timed=False) -> str:
    """A main that calls ``<module>_<fn>`` on static inputs and prints every result element
    (with a workspace argument unless the header says the workspace is static). ``decls`` are
    C lines at file scope after the buffers, ``prologue`` C lines run first in main (what they
    print comes before the ``status`` line); ``exact``/``timed``: see the module docstring."""
    up = module.upper()
    lines = ["#include <stdio.h>", "#include <stdint.h>", "#include <string.h>",
             f'#include "{module}.h"']
    if timed:
        lines.append('#include "icount_timer.h"')
    lines.append("")
    lines += [c_array(f"in{i}", a, True) for i, a in enumerate(args)]
    lines += [c_array(f"out{i}", r, False) for i, r in enumerate(results)]
    lines += [f"IREEC_ALIGNAS({up}_WORKSPACE_ALIGNMENT) static uint8_t "
              f"workspace[{up}_WORKSPACE_ARRAY_SIZE];"]
    lines += list(decls)
    lines += ["", "int main(void) {"]
    if timed:
        lines.append("  icount_timer_start();")
        for n in SPIN_N:
            lines.append(f'  printf("spin %lu %lu\\n", {n}ul, (unsigned long)icount_spin_ticks({n}u));')
    lines += [f"  {line}" for line in prologue]
    call_args = [f"in{i}" for i in range(len(args))] + [f"out{i}" for i in range(len(results))]
    if timed:
        lines.append("  const uint32_t t0 = icount_timer_now();")
    lines.append(f"#if {up}_WORKSPACE_STATIC")
    lines.append(f"  ireec_status_t s = {module}_{fn}({', '.join(call_args)});")
    lines.append("  (void)workspace;")
    lines.append("#else")
    lines.append(f"  ireec_status_t s = {module}_{fn}({', '.join(call_args + ['workspace'])});")
    lines.append("#endif")
    if timed:
        lines.append("  const uint32_t t1 = icount_timer_now();")
        lines.append('  printf("ticks %lu\\n", (unsigned long)(t0 - t1));')
    lines.append('  printf("status %d\\n", (int)s);')
    lines += [_print_loop(i, r, exact) for i, r in enumerate(results)]
    lines += ["  return 0;", "}", ""]
    return "\n".join(lines)


def build_firmware(src: Path, fn: str, args, results, workdir: Path, flags=(), make_vars=(),
                   decls=(), prologue=(), exact=False, timed=False, module="model") -> Path:
    """Compile ``src`` to C (with the ireec ``flags``) into ``workdir/<module>``, write
    ``workdir/main.c`` (``main_c``) and build ``workdir/<module>.elf`` with examples/cortex-m's
    Makefile (with the extra ``make_vars``, e.g. ``SECTION=.ireec_weights``); returns the ELF.
    Raises RuntimeError when ireec or the build fails."""
    from ireec.cli import main as ireec_main

    workdir.mkdir(parents=True, exist_ok=True)
    gen = workdir / module
    rc = ireec_main(["compile", str(src), "--output-format=vm-c", f"--module-name={module}",
                     "-o", str(gen), *flags])
    if rc != 0:
        raise RuntimeError(f"ireec compile {src} failed (exit code {rc}; its error is on stderr)")
    main = workdir / "main.c"
    main.write_text(main_c(module, fn, args, results, decls, prologue, exact, timed))
    elf = workdir / f"{module}.elf"
    # The sources exist already: build the ELF only (no ireec on the PATH needed).
    make = ["make", "-s", "-C", str(EXAMPLE), f"BUILD={workdir}", f"NAME={module}", f"MAIN={main}",
            f"MODEL={src}", *make_vars, str(elf)]
    proc = subprocess.run(make, capture_output=True, text=True, timeout=300)
    if proc.returncode != 0:
        raise RuntimeError(f"building {elf.name} failed:\n{proc.stdout}{proc.stderr}")
    return elf


def run_qemu(elf: Path, icount: bool = False, timeout: float = 300) -> List[str]:
    """Run ``elf`` on mps2-an386 (``icount``: one virtual ns per instruction); the printed words."""
    cmd = QEMU + (QEMU_ICOUNT if icount else []) + ["-kernel", str(elf)]
    run = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    return run.stdout.split()


def _after_status(words: Sequence[str]) -> List[str]:
    """The words printed after ``status 0`` (AssertionError if the call failed)."""
    text = " ".join(words)[:500]
    if "status" not in words:
        raise AssertionError(f"no status printed: {text}")
    i = list(words).index("status")
    if list(words[i:i + 2]) != ["status", "0"]:
        raise AssertionError(f"the call failed: {text}")
    return list(words[i + 2:])


def results(words: Sequence[str]) -> np.ndarray:
    """The values printed after ``status 0``, as one float64 array (not with ``exact``)."""
    return np.array([float(x) for x in _after_status(words)])


def exact_results(words: Sequence[str], like: Sequence[np.ndarray]) -> List[np.ndarray]:
    """The results printed by an ``exact`` main, with the dtype and shape of each of ``like``."""
    rest = _after_status(words)
    out, k = [], 0
    for r in like:
        vals = rest[k:k + r.size]
        k += r.size
        if len(vals) != r.size:
            raise AssertionError(f"{len(vals)} values printed, {r.size} expected")
        if r.dtype == np.float32:
            a = np.array([int(v, 16) for v in vals], dtype=np.uint32).view(np.float32)
        elif r.dtype == np.float64:
            a = np.array([int(v, 16) for v in vals], dtype=np.uint64).view(np.float64)
        else:
            a = np.array([int(v) for v in vals], dtype=r.dtype)
        out.append(a.reshape(r.shape))
    return out


@dataclass
class Instructions:
    """What a ``timed`` main printed under ``-icount shift=0,sleep=off``.

    ``per_tick``: instructions per timer tick, measured as 2 (n2 - n1) / (t2 - t1) from the
    ``icount_spin`` loops (2 instructions per iteration); ``spin_error``: how far, in
    instructions, the first loop's ticks x ``per_tick`` lie from its 2 n1 instructions (one tick
    of resolution plus the call and the timer reads); ``ticks`` of the model call and
    ``count`` = round(ticks x per_tick), exact to one tick (``per_tick`` instructions)."""

    per_tick: float
    spin_error: float
    ticks: int
    count: int


def instructions(words: Sequence[str]) -> Instructions:
    """Parse the ``spin`` and ``ticks`` lines of a ``timed`` main (see ``Instructions``)."""
    w = list(words)
    spins = [(int(w[i + 1]), int(w[i + 2])) for i, x in enumerate(w) if x == "spin"]
    if len(spins) != 2 or "ticks" not in w:
        raise AssertionError(f"no calibration or no ticks printed: {' '.join(w)[:300]}")
    (n1, t1), (n2, t2) = spins
    if t2 <= t1:
        raise AssertionError(f"the timer did not advance with the loop: {spins} (is -icount on?)")
    per_tick = 2 * (n2 - n1) / (t2 - t1)
    ticks = int(w[w.index("ticks") + 1])
    return Instructions(per_tick, abs(t1 * per_tick - 2 * n1), ticks, round(ticks * per_tick))


def trace_instructions(elf: Path, function: str, timeout: float = 600) -> int:
    """Instructions one call of ``function`` executes in ``elf``, counted without the timer:
    QEMU runs one instruction per translation block (``-singlestep``) and logs each block it
    executes (``-d exec,nochain``); the count runs from the first entry of ``function`` to the
    instruction after its caller's ``bl`` (a 4-byte Thumb-2 instruction), the ``bl``
    included. Slow (the log takes ~100 bytes per instruction, written next to ``elf`` and
    removed): a cross-check of ``instructions`` on small models."""
    syms = symbol_sizes(elf)
    entry = syms[function][0] & ~1
    log = elf.with_suffix(".exec.log")
    cmd = QEMU + ["-singlestep", "-d", "exec,nochain", "-D", str(log), "-kernel", str(elf)]
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=timeout)
    pc_re = re.compile(r"^Trace \d+: \S+ \[[0-9a-f]+/([0-9a-f]+)/")
    prev = call = None
    count = 0
    try:
        with open(log) as f:
            for line in f:
                m = pc_re.match(line)
                if not m:
                    continue
                pc = int(m.group(1), 16)
                if call is None:
                    if pc == entry:
                        call, count = prev, 1
                elif pc == call + 4:
                    return count + 1
                else:
                    count += 1
                prev = pc
    finally:
        log.unlink(missing_ok=True)
    raise AssertionError(f"{function} was not entered and returned from in {elf}")


# ---------------------------------------------------------------------------
# footprint: what the model takes in flash and RAM
# ---------------------------------------------------------------------------

@dataclass
class Footprint:
    """Bytes the model takes in the ELF (from its own objects, ``<module>/*.o``, in the link
    map; ``nm -S`` for the symbols).

    ``code``: its ``.text*`` input sections; ``rodata``: its ``.rodata*`` (the constant pool
    with --constants=c-array, plus the module's tables); ``data``: its initialized ``.data``
    (in flash and copied to RAM); ``bss``: its ``.bss`` (the arena with --workspace=static);
    ``extflash``: what it puts in EXTFLASH (SECTION=.ireec_weights); ``constants``: the size of
    the constant pool symbol (``<module>_constant_pool``, 0 if none); ``arena``: the size of the
    workspace symbol (``workspace`` in main.c, or ``<module>_workspace`` with
    --workspace=static); ``flash`` = code + rodata + data (on-chip flash)."""

    code: int
    rodata: int
    data: int
    bss: int
    extflash: int
    constants: int
    arena: int

    @property
    def flash(self) -> int:
        return self.code + self.rodata + self.data


def symbol_sizes(elf: Path) -> Dict[str, Tuple[int, int, str]]:
    """{name: (address, size, nm type letter)} of the sized symbols of ``elf``."""
    out = subprocess.run(["arm-none-eabi-nm", "-S", str(elf)], capture_output=True, text=True,
                         check=True).stdout
    syms = {}
    for line in out.splitlines():
        p = line.split()
        if len(p) == 4:
            syms[p[3]] = (int(p[0], 16), int(p[1], 16), p[2])
    return syms


_OUT_SECTION = re.compile(r"^(\.\S+)(?:\s+0x([0-9a-f]+)\s+0x([0-9a-f]+))?")
_IN_SECTION = re.compile(r"^ (\.\S+|COMMON)(?:\s+0x([0-9a-f]+)\s+0x([0-9a-f]+)\s+(\S+))?\s*$")
_IN_CONTINUED = re.compile(r"^\s+0x([0-9a-f]+)\s+0x([0-9a-f]+)\s+(\S+)\s*$")


def map_input_sections(map_file: Path) -> List[Tuple[str, str, int, int, str]]:
    """(output section, input section, address, size, object file) for every input section
    the GNU ld map ``map_file`` places ("Linker script and memory map" part)."""
    text = map_file.read_text()
    start = text.find("\nLinker script and memory map")
    lines = text[start:].splitlines() if start >= 0 else []
    out, current, pending = [], "", None
    for line in lines:
        if line.startswith("OUTPUT("):
            break
        m = _OUT_SECTION.match(line)
        if m:
            current, pending = m.group(1), None
            continue
        m = _IN_SECTION.match(line)
        if m:
            if m.group(2) is None:
                pending = m.group(1)  # long name: address, size and file on the next line
            else:
                out.append((current, m.group(1), int(m.group(2), 16), int(m.group(3), 16), m.group(4)))
                pending = None
            continue
        m = _IN_CONTINUED.match(line)
        if m and pending:
            out.append((current, pending, int(m.group(1), 16), int(m.group(2), 16), m.group(3)))
        pending = None
    return out


def footprint(elf: Path, module: str = "model") -> Footprint:
    """The model's ``Footprint`` in ``elf`` (built by ``build_firmware``: its map is
    ``<elf without .elf>.map``, the model's objects ``<elf's folder>/<module>/*.o``)."""
    objects = (elf.parent / module).resolve()
    sizes = dict(code=0, rodata=0, data=0, bss=0, extflash=0)
    for out_sec, in_sec, addr, size, obj in map_input_sections(elf.with_suffix(".map")):
        if Path(obj).resolve().parent != objects or size == 0:
            continue
        if EXTFLASH[0] <= addr < EXTFLASH[1]:
            sizes["extflash"] += size
        elif FLASH[0] <= addr < FLASH[1] and out_sec not in (".comment",) and not out_sec.startswith(".debug"):
            if in_sec.startswith(".text"):
                sizes["code"] += size
            else:
                sizes["rodata"] += size
        elif RAM[0] <= addr < RAM[1]:
            sizes["bss" if out_sec == ".bss" else "data"] += size
    syms = symbol_sizes(elf)
    constants = syms.get(f"{module}_constant_pool", (0, 0, ""))[1]
    arena = syms.get(f"{module}_workspace", syms.get("workspace", (0, 0, "")))[1]
    return Footprint(constants=constants, arena=arena, **sizes)
