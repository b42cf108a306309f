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

Budgets (``--max-workspace-bytes``, ``--max-stack-bytes``, ``--max-constant-bytes``) are
checked by :func:`check_budgets`; an overrun is a CompileError at the function naming the
tensors live at the arena's peak (or the dispatch with the largest frame).
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Dict, Iterable, List, Mapping, Optional, Sequence

from ..emitc.ctypes import c_type_bytes
from ..ir.core import Operation
from ..ir.diagnostics import CompileError, Location

#: Bytes allowed per C function frame on a call path besides its local arrays: callee-saved
#: registers, return address, spills and outgoing arguments. Measured with GCC 12
#: -fstack-usage on the models of ../shared/models and the seeds, a workgroup function and its
#: launch function take beyond their arrays at most 256 bytes on a Cortex-M4 (-O2; 232 at
#: -Os) and 528 on x86-64 (-O3, baseline ISA), within the 2 x 384 allowed. The bound does not
#: cover the x86-64 AVX2 clones (IREEC_KERNEL_CLONES), whose vectorized code may spill
#: kilobytes; define IREEC_NO_TARGET_CLONES where the stack is tight.
FRAME_BYTES = 384

#: C math library functions (<math.h>) whose use means linking with ``-lm``.
_LIBM = re.compile(r"\b(?:sqrt|exp|expm1|exp2|log|log2|log10|log1p|pow|sin|cos|tan|asin|acos|atan|"
                   r"atan2|sinh|cosh|tanh|asinh|acosh|atanh|erf|erfc|tgamma|lgamma|cbrt|hypot|fmod|"
                   r"remainder|floor|ceil|trunc|round|rint|nearbyint|fma|fmin|fmax|copysign|"
                   r"frexp|ldexp|modf|nextafter|fabs)f?\s*\(")


def emitc_locals_bytes(f: Operation) -> int:
    """Bytes of the local variables ``emitc.func`` ``f`` declares: arrays (``array_size``
    elements of their C element type; ``static const`` arrays with initial values live in
    read-only data and do not count) and mutable scalars (8 bytes each)."""
    total = 0
    for op in f.walk():
        if op.name != "emitc.variable":
            continue
        if "init_values" in op.attributes:
            continue
        if "array_size" in op.attributes:
            total += int(op.attributes["array_size"].value) * c_type_bytes(op.attributes["element"].value)
        else:
            total += 8
    return total


def _ukernel_stack_bytes(f: Operation) -> int:
    """Stack the micro-kernels kernel ``f`` calls take besides the arrays ``f`` passes them
    (ireec/passes/hal/ukernels.py: UKERNEL_STACK_BYTES, DWCONV_STACK_BYTES for the depthwise
    one; the largest of those it calls, 0 when it calls none)."""
    from ..passes.hal.ukernels import DWCONV, DWCONV_STACK_BYTES, UKERNEL_STACK_BYTES

    calls = {op.attributes["callee"].value for op in f.walk()
             if op.name == "emitc.call_opaque" and op.attributes["callee"].value.startswith("ireec_uk_")}
    return max((DWCONV_STACK_BYTES if c == DWCONV else UKERNEL_STACK_BYTES for c in calls), default=0)


def stack_bounds(module: Operation, module_name: str) -> Dict[str, dict]:
    """Stack bound of every host function of the emitc ``module``, by its MLIR name:
    ``{"stack_bytes": n, "dispatch_stack_bytes": {launch name: n}}``, where a dispatch's
    bytes are its launch and workgroup frames and a call's are the host frame plus its
    largest dispatch (calls are not nested further: kernels call only inline helpers)."""
    kernels: Dict[str, int] = {}
    for f in module.body.ops:
        if f.name == "emitc.func" and f.attributes["kind"].value == "kernel":
            launch = f"{module_name}_{f.attributes['launch'].value}"
            kernels[launch] = 2 * FRAME_BYTES + emitc_locals_bytes(f) + _ukernel_stack_bytes(f)
    out: Dict[str, dict] = {}
    for f in module.body.ops:
        if f.name != "emitc.func" or f.attributes["kind"].value != "host":
            continue
        called = {}
        for op in f.walk():
            if op.name == "emitc.call_opaque" and op.attributes["callee"].value in kernels:
                callee = op.attributes["callee"].value
                called[callee] = kernels[callee]
        own = FRAME_BYTES + emitc_locals_bytes(f)
        out[f.attributes["mlir_name"].value] = {
            "stack_bytes": own + max(called.values(), default=0), "dispatch_stack_bytes": called,
            "loc": f.loc}
    return out


def _expanded_helper_macros(text: str) -> str:
    """``text`` (ireec_runtime.h) with the instantiations of its helper-defining macros
    (``IREEC_SMALL_FLOAT(f8e4m3fn, ...)``) replaced by their bodies, the macro's first
    parameter pasted (``ireec_##name##_to_f32`` → ``ireec_f8e4m3fn_to_f32``)."""
    for m in re.finditer(r"^#define (\w+)\((\w+)[^)]*\)((?:[^\n]*\\\n)+[^\n]*)", text, re.M):
        macro, param, body = m.group(1), m.group(2), m.group(3).replace("\\\n", "\n")
        if "IREEC_INLINE" not in body:
            continue
        text = re.sub(rf"^{macro}\((\w+)\s*,[^\n]*$",
                      lambda i: body.replace(f"##{param}##", i.group(1)).replace(f"##{param}", i.group(1))
                      .replace(f"{param}##", i.group(1)), text, flags=re.M)
    return text


def _libm_helpers() -> List[str]:
    """Names of the ireec_runtime.h inline helpers whose bodies call <math.h> functions,
    directly or through another helper."""
    from ..targets.c import runtime_header

    names, bodies = [], []
    for chunk in _expanded_helper_macros(runtime_header()).split("IREEC_INLINE ")[1:]:
        m = re.match(r"[\w\s\*]*?\b(ireec_\w+)\s*\(", chunk)
        if m:
            names.append(m.group(1))
            bodies.append(chunk[m.end():])
    calls_libm = {n for n, b in zip(names, bodies) if _LIBM.search(b)}
    changed = True
    while changed:  # helpers calling such helpers
        changed = False
        for n, b in zip(names, bodies):
            if n not in calls_libm and any(re.search(r"\b" + c + r"\s*\(", b) for c in calls_libm):
                calls_libm.add(n)
                changed = True
    return sorted(calls_libm)


def needs_libm(files: Mapping[str, str]) -> bool:
    """Whether the generated C calls a <math.h> function (link with ``-lm``), directly or
    through a helper of ireec_runtime.h that calls one (e.g. ``ireec_erff``)."""
    helpers = _libm_helpers()
    pattern = re.compile(r"\b(?:" + "|".join(helpers) + r")\s*\(") if helpers else None
    return any(_LIBM.search(text) or (pattern is not None and pattern.search(text))
               for name, text in files.items() if name.endswith(".c"))


def peak_of(buffers: Sequence[dict]) -> dict:
    """The point of a function's memory plan where the most transient bytes are live:
    ``{"bytes", "position", "tensors": [buffer records live there, largest first]}``."""
    best = {"bytes": 0, "position": None, "tensors": []}
    for t in sorted({b["first"] for b in buffers}):
        live = [b for b in buffers if b["first"] <= t <= b["last"]]
        total = sum(b["bytes"] for b in live)
        if total > best["bytes"]:
            best = {"bytes": total, "position": t,
                    "tensors": sorted(live, key=lambda b: (-b["bytes"], b["offset"]))}
    return best


def _loc_str(loc) -> str:
    return str(loc) if isinstance(loc, Location) and loc.line > 0 else "unknown location"


def _tensor_note(b: dict) -> str:
    return (f"{b['type']} '{b['name']}' ({b['bytes']} bytes at arena offset {b['offset']}), "
            f"produced at {_loc_str(b.get('loc'))}")


def check_budgets(report: dict, options: Mapping[str, object]) -> None:
    """Raise CompileError when a function's arena (``max_workspace_bytes``), a call's stack
    bound (``max_stack_bytes``) or the constant pool (``max_constant_bytes``) is over its
    budget in ``options``. The error is located at the function (the constant pool's at the
    largest constant's producer is unknown: at the first function) and its notes name the
    tensors live at the arena's peak, or the dispatch with the deepest stack."""
    fns = report.get("functions", {})
    limit = options.get("max_workspace_bytes")
    if limit is not None:
        for name, fn in sorted(fns.items()):
            if fn.get("arena_bytes", 0) > int(limit):
                peak = fn.get("peak") or {"tensors": []}
                notes = [f"live at the peak: {_tensor_note(b)}" for b in peak["tensors"]]
                raise CompileError(f"function @{name} needs a workspace arena of {fn['arena_bytes']} "
                                   f"bytes, over --max-workspace-bytes={limit} (the tensors live at "
                                   f"the peak: {peak.get('bytes', 0)} bytes)", fn.get("loc"), notes)
    limit = options.get("max_stack_bytes")
    if limit is not None:
        for name, fn in sorted(fns.items()):
            if fn.get("stack_bytes", 0) > int(limit):
                deepest = sorted(fn.get("dispatches", []), key=lambda d: -d.get("stack_bytes", 0))[:3]
                notes = [f"dispatch {d['entry_point']} takes {d.get('stack_bytes', 0)} bytes of stack "
                         f"(local arrays {d.get('stack_bytes', 0) - 2 * FRAME_BYTES} bytes), at "
                         f"{_loc_str(d.get('loc'))}" for d in deepest]
                raise CompileError(f"a call of @{name} may take {fn['stack_bytes']} bytes of stack, "
                                   f"over --max-stack-bytes={limit}", fn.get("loc"), notes)
    limit = options.get("max_constant_bytes")
    if limit is not None and report.get("constant_pool_bytes", 0) > int(limit):
        first = next(iter(sorted(fns.items())), (None, {}))[1]
        raise CompileError(f"the constants of the module take {report['constant_pool_bytes']} bytes, "
                           f"over --max-constant-bytes={limit}", first.get("loc"))


def function_report(name: str, plan: dict, stacks: dict, flops: Mapping[str, int],
                    module_name: str) -> dict:
    """One function's entry of the report from its memory plan (stream phase), its stack
    bounds and the FLOP estimates of the dispatches (entry point → operations)."""
    st = stacks.get(name, {})
    dispatches = []
    for d in plan.get("dispatches", []):
        launch = f"{module_name}_{re.sub(r'[^A-Za-z0-9_]', '_', d['entry_point'])}"
        dispatches.append({"entry_point": d["entry_point"], "loc": d["loc"], "position": d["position"],
                           "flops": flops.get(d["entry_point"], 0),
                           "bytes_moved": d["bytes_read"] + d["bytes_written"],
                           "bytes_read": d["bytes_read"], "bytes_written": d["bytes_written"],
                           "stack_bytes": st.get("dispatch_stack_bytes", {}).get(launch, 0),
                           "symbol": launch})
    buffers = plan.get("buffers", [])
    return {"arena_bytes": plan.get("arena_bytes", 0),
            "lower_bound_bytes": plan.get("lower_bound_bytes", 0),
            "stack_bytes": st.get("stack_bytes", 0), "loc": st.get("loc"),
            "flops": sum(d["flops"] for d in dispatches),
            "bytes_moved": sum(d["bytes_moved"] for d in dispatches),
            "dispatches": dispatches, "buffers": buffers, "peak": peak_of(buffers),
            # >0: a program mapped over dynamic dims; FLOPs and bytes are per slice, the arena
            # is the worst case (the same for every extent).
            "dynamic_dims": plan.get("dynamic_dims", 0)}


def module_report(module: Operation, ctx, files: Optional[Mapping[str, str]] = None) -> dict:
    """The report of an emitc ``module`` compiled with PassContext ``ctx`` (its ``report``
    holds the stream phase's plans and FLOP estimates). JSON-ready except for Locations
    (see :func:`to_json`)."""
    stacks = stack_bounds(module, ctx.module_name)
    flops = ctx.report.get("dispatch_flops", {})
    plans = ctx.report.get("functions", {})
    fns = {}
    for name in sorted(set(plans) | set(stacks)):
        fns[name] = function_report(name, plans.get(name, {}), stacks, flops, ctx.module_name)
    return {"module": ctx.module_name, "source": ctx.source_name, "target": str(ctx.target),
            "workspace": ctx.options.get("workspace", "argument"),
            "constant_pool_bytes": ctx.report.get("constant_pool_bytes", 0),
            "global_state_bytes": ctx.report.get("global_state_bytes", 0),
            "workspace_bytes": max([f["arena_bytes"] for f in fns.values()] + [0]),
            "stack_bytes": max([f["stack_bytes"] for f in fns.values()] + [0]),
            "libraries": ["m"] if files is not None and needs_libm(files) else [],
            "functions": fns}


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
            return _loc_str(o)
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
                        "worst case, the same for every extent)" if fn.get("dynamic_dims") else ""))
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
            tip = f'{b["name"]} {b["type"]}: {b["bytes"]} B at {b["offset"]}, live {b["first"]}-{b["last"]}, {_loc_str(b.get("loc"))}'
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
