"""The compile report of a module: memory (arena, stack, constants), work (FLOPs, bytes
moved) and code size per function and per dispatch; memory budgets; the memory plan as SVG.

What a firmware author needs to size a device, in the spirit of Glow's AOT bundle
``BundleConfig`` (every memory area's size) and TFLite Micro's arena report:

* ``arena_bytes``: the workspace of a call (the stream phase's static plan,
  ireec/passes/stream/schedule_allocation.py), with the transients live at its peak;
* ``stack_bytes``: an upper bound of the stack a call takes, computed from the emitted C:
  every local array of a workgroup function (``emitc.variable`` with an array size, element
  bytes from its C type) and scalar variable, plus :data:`FRAME_BYTES` per C function on the
  call path (saved registers, spills, outgoing arguments); a call is its host function's frame
  plus the launch and workgroup frames of its deepest dispatch. ``tests/e2e/test_firmware.py``
  checks it against GCC's ``-fstack-usage`` on the host and on a Cortex-M4;
* ``flops``: ireec/passes/common/cost_model.py; ``bytes_moved``: the bytes each dispatch
  reads and writes;
* ``text_bytes``: code size of the built objects (``-Os -ffunction-sections``, i.e. what a
  ``--gc-sections`` link keeps of each function) from binutils' ``size -A`` and
  ``nm --size-sort -S``; the constants are reported apart (``constant_pool_bytes``).

The report itself, the stack bound and the budgets (``--max-workspace-bytes``,
``--max-stack-bytes``, ``--max-constant-bytes``) are the pass ``ireec-check-memory-budgets``'
(ireec/passes/vm/check_memory_budgets.py; an overrun is a CompileError at the function
naming the tensors live at the arena's peak, or the dispatch with the largest frame); the
frame and C type sizes are ireec/emitc/stack.py's, the <math.h> detection
ireec/emitc/runtime_headers.py's. This module re-exports them and adds code sizes and the
JSON, text and SVG forms.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Dict, Iterable, List, Mapping, Sequence

from ..emitc.runtime_headers import needs_libm
from ..ir.diagnostics import CompileError, Location
from ..emitc.stack import C_TYPE_BYTES, FRAME_BYTES, c_type_bytes, emitc_locals_bytes
from ..passes.vm.check_memory_budgets import (loc_str, check_budgets, function_report, module_report,
                                              peak_of, stack_bounds)

__all__ = ["FRAME_BYTES", "C_TYPE_BYTES", "c_type_bytes", "emitc_locals_bytes", "stack_bounds",
           "needs_libm", "peak_of", "check_budgets", "function_report", "module_report",
           "code_sizes", "add_code_sizes", "to_json", "to_text", "to_svg"]


# ---------------------------------------------------------------------------- code size

def _binutil(cc: Sequence[str], tool: str) -> List[str]:
    """``nm``/``size`` matching compiler ``cc``: ``arm-none-eabi-nm`` for
    ``arm-none-eabi-gcc``, else the host's."""
    base = os.path.basename(cc[0])
    m = re.match(r"^(.*-)(?:gcc|cc|clang)(?:-[0-9.]+)?$", base)
    if m and shutil.which(m.group(1) + tool):
        return [m.group(1) + tool]
    return [tool]


def code_sizes(files: Mapping[str, str], cc: Sequence[str] = ("cc",),
               cflags: Iterable[str] = ()) -> Dict[str, dict]:
    """Text bytes of each generated ``.c`` file compiled alone with ``cc -std=c99 -Os
    -ffunction-sections -fdata-sections -c`` (plus ``cflags``): per object ``text_bytes``
    (the ``.text*`` sections ``size -A`` lists: code only, constants are in ``.rodata``)
    and ``symbols`` (function name → bytes, from ``nm -S``), so
    what a ``--gc-sections`` link keeps of a function is its symbol's size. Raises OSError
    when the compiler or binutils are missing, and CompileError when compiling fails."""
    out: Dict[str, dict] = {}
    with tempfile.TemporaryDirectory(prefix="ireec-size-") as tmp:
        for name, text in files.items():
            if isinstance(text, str):  # the constant pool's .bin is data, not code
                Path(tmp, name).write_text(text, encoding="utf-8")
        for name in sorted(n for n in files if n.endswith(".c")):
            obj = str(Path(tmp, name + ".o"))
            cmd = list(cc) + ["-std=c99", "-Os", "-ffunction-sections", "-fdata-sections",
                              "-DIREEC_NO_TARGET_CLONES", "-I", tmp] + list(cflags) + \
                ["-c", str(Path(tmp, name)), "-o", obj]
            proc = subprocess.run(cmd, capture_output=True, text=True)
            if proc.returncode != 0:
                raise CompileError(f"measuring code size: '{' '.join(cmd)}' failed:\n{proc.stderr}")
            sz = subprocess.run(_binutil(cc, "size") + ["-A", obj], capture_output=True, text=True,
                                check=True)
            text_bytes = sum(int(line.split()[1]) for line in sz.stdout.splitlines()
                             if line.startswith(".text") and len(line.split()) >= 2)
            nm = subprocess.run(_binutil(cc, "nm") + ["-S", "--size-sort", obj], capture_output=True,
                                text=True, check=True)
            symbols = {}
            for line in nm.stdout.splitlines():
                parts = line.split()
                if len(parts) == 4 and parts[2] in "tTwW":
                    symbols[parts[3]] = int(parts[1], 16)
            out[name] = {"text_bytes": text_bytes, "symbols": dict(sorted(symbols.items()))}
    return out


def add_code_sizes(report: dict, sizes: Mapping[str, dict]) -> None:
    """Put measured code sizes into ``report``: per object, per dispatch (launch and
    workgroup functions) and per function (its entry, body and the dispatches it calls)."""
    report["objects"] = {name: {"text_bytes": s["text_bytes"]} for name, s in sizes.items()}
    symbols: Dict[str, int] = {}
    for s in sizes.values():
        symbols.update(s["symbols"])
    for name, fn in report["functions"].items():
        total = 0
        for d in fn["dispatches"]:
            d["text_bytes"] = sum(v for k, v in symbols.items()
                                  if k == d["symbol"] or k.startswith(d["entry_point"] + "_workgroup"))
            total += d["text_bytes"]
        c_name = f"{report['module']}_{re.sub(r'[^A-Za-z0-9_]', '_', name)}"
        fn["text_bytes"] = total + symbols.get(c_name, 0) + symbols.get(c_name + "_impl", 0)
    report["text_bytes"] = sum(s["text_bytes"] for s in sizes.values())


# ---------------------------------------------------------------------------- output

def to_json(report: dict) -> str:
    """The report as JSON text (Locations as ``file:line:col``, keys sorted: deterministic)."""
    def default(o):
        if isinstance(o, Location):
            return loc_str(o)
        raise TypeError(type(o).__name__)
    return json.dumps(report, indent=2, sort_keys=True, default=default) + "\n"


def to_text(report: dict) -> str:
    """A readable table of the report: one block per function, one row per dispatch."""
    lines = [f"module {report['module']} ({report['source']}, target {report['target']}): "
             f"constants {report['constant_pool_bytes']} B, workspace {report['workspace_bytes']} B"
             f"{' (static)' if report.get('workspace') == 'static' else ''}, stack <= "
             f"{report['stack_bytes']} B"
             + (f", text {report['text_bytes']} B" if "text_bytes" in report else "")
             + (f", link with {' '.join('-l' + x for x in report['libraries'])}" if report["libraries"] else "")]
    for name, fn in report["functions"].items():
        lines.append(f"@{name}: arena {fn['arena_bytes']} B, stack <= {fn['stack_bytes']} B, "
                     f"{fn['flops']} FLOPs, {fn['bytes_moved']} B moved"
                     + (f", text {fn['text_bytes']} B" if "text_bytes" in fn else "")
                     + (" (FLOPs and bytes per slice of the dynamic dimensions; the arena is the "
                        "worst case, the same for every extent)" if fn.get("dynamic_dims") else "")
                     + (" (planned for the bounds " + ", ".join(f"input{a}_dim{d} <= {b}" for a, d, b in fn["bounds"])
                        + f"; {fn['staging_bytes']} B of it stage the padded tensors)" if fn.get("bounds") else ""))
        head = f"  {'dispatch':<52} {'FLOPs':>12} {'bytes moved':>12} {'stack B':>8}"
        has_text = any("text_bytes" in d for d in fn["dispatches"])
        lines.append(head + (f" {'text B':>7}" if has_text else ""))
        for d in fn["dispatches"]:
            row = f"  {d['entry_point']:<52} {d['flops']:>12} {d['bytes_moved']:>12} {d['stack_bytes']:>8}"
            lines.append(row + (f" {d.get('text_bytes', 0):>7}" if has_text else ""))
        peak = fn["peak"]
        if peak["tensors"]:
            lines.append(f"  peak {peak['bytes']} B live: " +
                         ", ".join(f"{b['name']} {b['type']} ({b['bytes']} B)" for b in peak["tensors"]))
    return "\n".join(lines) + "\n"


def _esc(s: str) -> str:
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


def to_svg(report: dict) -> str:
    """The memory plan of every function as an SVG drawing: x = dispatch order, y = arena
    offset (bytes, 0 at the top), one box per transient named by its tensor (hover: its
    type, size, live range and source location); a dashed line marks the arena size and
    the boxes live at the peak are drawn darker. Written by hand: small and deterministic."""
    width, left, col_w, row_h_min = 960, 70, 0, 8
    parts: List[str] = []
    y0 = 10
    for name, fn in report["functions"].items():
        steps = fn["dispatches"]
        ordinal = {d.get("position"): k for k, d in enumerate(steps)}
        buffers = fn["buffers"]
        pos = sorted({b["first"] for b in buffers} | {b["last"] for b in buffers})
        col = {p: i for i, p in enumerate(pos)}
        ncols = max(len(pos), 1)
        col_w = (width - left - 10) / ncols
        arena = max(fn["arena_bytes"], 1)
        height = 240
        scale = height / arena
        peak_names = {b["name"] for b in fn["peak"]["tensors"]}
        parts.append(f'<text x="{left}" y="{y0 + 12}" font-size="13" font-weight="bold">@{_esc(name)}: '
                     f'arena {fn["arena_bytes"]} B, {len(buffers)} transients, {len(steps)} dispatches</text>')
        top = y0 + 20
        parts.append(f'<rect x="{left}" y="{top}" width="{width - left - 10}" height="{height}" '
                     f'fill="none" stroke="#888"/>')
        parts.append(f'<text x="{left - 4}" y="{top + 10}" font-size="10" text-anchor="end">0</text>')
        parts.append(f'<text x="{left - 4}" y="{top + height}" font-size="10" text-anchor="end">'
                     f'{fn["arena_bytes"]}</text>')
        for b in buffers:
            x = left + col[b["first"]] * col_w
            w = (col[b["last"]] - col[b["first"]] + 1) * col_w
            y = top + b["offset"] * scale
            h = max(b["bytes"] * scale, 1.0)
            fill = "#d9534f" if b["name"] in peak_names else "#6fa8dc"
            tip = f'{b["name"]} {b["type"]}: {b["bytes"]} B at {b["offset"]}, live {b["first"]}-{b["last"]}, {loc_str(b.get("loc"))}'
            parts.append(f'<g><title>{_esc(tip)}</title><rect x="{x:.1f}" y="{y:.1f}" width="{w:.1f}" '
                         f'height="{h:.1f}" fill="{fill}" fill-opacity="0.75" stroke="#333"/>')
            if h >= row_h_min:
                label = b["name"] if len(b["name"]) * 6 < w else b["name"][: max(int(w // 6) - 1, 1)] + "…"
                parts.append(f'<text x="{x + 3:.1f}" y="{y + min(h, 14) - 3:.1f}" font-size="10">{_esc(label)}</text>')
            parts.append("</g>")
        for i, p in enumerate(pos):
            parts.append(f'<text x="{left + (i + 0.5) * col_w:.1f}" y="{top + height + 12}" font-size="9" '
                         f'text-anchor="middle">{("d%d" % ordinal[p]) if p in ordinal else p}</text>')
        y0 = top + height + 30
    body = "\n".join(parts)
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{y0}" '
            f'font-family="sans-serif">\n<title>memory plan of {_esc(report["module"])} '
            f'(x: dispatch dN in call order, y: arena offset in bytes)</title>\n{body}\n</svg>\n')
