"""Mutation fuzzer of the compiler front to back: ``make fuzz`` / ``python3 -m tests.fuzz.fuzz``.

Takes the MLIR files of ``../shared/corpus/iree_e2e`` and ``../shared/models`` as seeds,
applies one seeded mutation to each sample (token and byte edits, dense-literal edits,
shape edits, attribute misspellings, truncation, region nesting and duplication, SSA
reordering, malformed successors and string escapes, invalid UTF-8) and compiles the result
in-process with :func:`ireec.compiler.compile_source` to the end (the C is rendered, no C
compiler runs). Each input runs in a worker subprocess under a time and memory limit, so
a hang or a crash is detected and counted rather than stopping the run.

Outcomes:

``ok``        compiled;
``located``   a :class:`~ireec.ir.diagnostics.CompileError` at a real ``file:line:col``;
``internal``  any other exception, a CompileError without a location, or one that reports
              an internal error (``internal error in pass ...``, or a note calling it a
              compiler bug, as the verifier run after a pass does);
``hang``      over the per-input time limit;
``crash``     the worker died (signal, memory limit).

The run is deterministic: sample ``i`` of seed ``s`` draws from ``random.Random(f"{s}:{i}")``,
so ``--only i`` replays one sample. For each internal error, hang and crash the mutated text
and a reduced reproducer (lines removed while the same failure persists) are written under
``--out``. Exit status 1 when any internal error, hang or crash was seen.
"""
from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import random
import re
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Dict, List, Optional, Tuple

REPO = Path(__file__).resolve().parents[2]
SHARED = REPO.parent / "shared"
SEED_DIRS = ("corpus/iree_e2e", "models")

OUTCOMES = ("ok", "located", "internal", "hang", "crash")


# ---------------------------------------------------------------------------- seeds
def seed_files(shared: Path = SHARED, max_size: Optional[int] = None) -> List[Path]:
    """The ``.mlir`` files under the seed folders of ``shared``, sorted (deterministic order);
    files over ``max_size`` bytes are left out when it is given."""
    out = []
    for d in SEED_DIRS:
        root = shared / d
        if root.is_dir():
            out.extend(p for p in root.rglob("*.mlir")
                       if max_size is None or p.stat().st_size <= max_size)
    return sorted(out)


# ------------------------------------------------------------------------ mutations
# A mutator takes (text, rng) and returns (new text, description) or None when it does
# not apply to this text. Texts are str; a mutator may return bytes (invalid UTF-8).
Mutator = Callable[[str, random.Random], Optional[Tuple[object, str]]]

_TOKEN = re.compile(r'"(?:[^"\\\n]|\\.)*"|%[A-Za-z0-9_$.#-]+|\^[A-Za-z0-9_$.-]+|@[A-Za-z0-9_$.-]+|'
                    r'#[A-Za-z0-9_$.-]+|!?[A-Za-z_][A-Za-z0-9_$.]*|-?[0-9]+(?:\.[0-9]*)?(?:[eE][-+]?[0-9]+)?|'
                    r'->|::|[^\sA-Za-z0-9]')
_INTERESTING_TOKENS = ("}", "{", ")", "(", "]", "[", ">", "<", ",", ":", "=", "->", "^bb0",
                       "%0", "@main", "dense", "tensor", "?", "-1", "0", "1e400", "nan",
                       "0x7FFFFFFFFFFFFFFFFF", "\"", "\\", "#map", "!t", "i64", "f32", "index",
                       "loc(", "^", "%", "@", "x", "xf32")


def _spans(text: str, pattern, group: int = 0):
    return [(m.start(group), m.end(group)) for m in re.finditer(pattern, text)]


def _pick(rng: random.Random, spans):
    return spans[rng.randrange(len(spans))] if spans else None


def _replace(text: str, span, new: str) -> str:
    return text[: span[0]] + new + text[span[1]:]


def m_byte(text, rng):
    """Delete, insert or replace one character."""
    if not text:
        return None
    i = rng.randrange(len(text))
    kind = rng.choice(("delete", "insert", "replace"))
    ch = rng.choice('{}()[]<>,:=%^@#!"\\x0-.?* \n' + "abcdefghijklmnopqrstuvwxyz0123456789")
    if kind == "delete":
        return text[:i] + text[i + 1:], f"delete char at {i}"
    if kind == "insert":
        return text[:i] + ch + text[i:], f"insert {ch!r} at {i}"
    return text[:i] + ch + text[i + 1:], f"replace char at {i} by {ch!r}"


def m_token(text, rng):
    """Delete, duplicate or replace one token (by another token of the file or a chosen one)."""
    toks = list(re.finditer(_TOKEN, text))
    if not toks:
        return None
    t = toks[rng.randrange(len(toks))]
    kind = rng.choice(("delete", "duplicate", "replace", "replace", "swap"))
    if kind == "delete":
        return text[: t.start()] + text[t.end():], f"delete token {t.group(0)!r} at {t.start()}"
    if kind == "duplicate":
        return text[: t.end()] + " " + t.group(0) + text[t.end():], f"duplicate token {t.group(0)!r} at {t.start()}"
    if kind == "swap":
        u = toks[rng.randrange(len(toks))]
        a, b = sorted((t, u), key=lambda m: m.start())
        if a.end() > b.start():
            return None
        new = text[: a.start()] + b.group(0) + text[a.end(): b.start()] + a.group(0) + text[b.end():]
        return new, f"swap tokens at {a.start()} and {b.start()}"
    new = (rng.choice(_INTERESTING_TOKENS) if rng.random() < 0.5
           else toks[rng.randrange(len(toks))].group(0))
    return _replace(text, (t.start(), t.end()), new), f"replace token {t.group(0)!r} at {t.start()} by {new!r}"


def m_truncate(text, rng):
    """Cut the file at a random point."""
    if len(text) < 2:
        return None
    i = rng.randrange(1, len(text))
    return text[:i], f"truncate at {i}"


_HEX_DENSE = re.compile(r'dense<"0x([0-9A-Fa-f]*)">')
_DENSE_LIT = re.compile(r"dense<([^\"<>]*)>\s*:\s*(tensor|vector)<([^<>]*)>")
_NUMBER = re.compile(r"(?<![A-Za-z0-9_.#%@^])-?[0-9]+(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?(?![A-Za-z0-9_x])")


def m_dense_hex(text, rng):
    """Make a hex dense blob the wrong size or not hex."""
    s = _pick(rng, _spans(text, _HEX_DENSE, 1))
    if s is None:
        return None
    blob = text[s[0]: s[1]]
    kind = rng.choice(("shorten", "lengthen", "odd", "nonhex", "empty"))
    new = {"shorten": blob[: max(0, len(blob) - rng.choice((2, 4, 8)))],
           "lengthen": blob + "AB" * rng.choice((1, 2, 4)),
           "odd": blob + "A",
           "nonhex": blob[:2] + "ZZ" + blob[4:],
           "empty": ""}[kind]
    return _replace(text, s, new), f"hex dense blob at {s[0]}: {kind}"


_BAD_ELEMENTS = ("1.5", "-2.5e3", "1e400", "-1e400", "nan", "inf", "99999999999999999999999",
                 "-170141183460469231731687303715884105729", "0x1FFFFFFFFFFFFFFFFF", "true",
                 "(1.0, 2.0)", "[1, 2]", "[]", "\"x\"")


def m_dense_literal(text, rng):
    """Put a value of the wrong kind or range into a dense literal, or change its count."""
    lits = list(_DENSE_LIT.finditer(text))
    if not lits:
        return None
    m = lits[rng.randrange(len(lits))]
    body_s, body_e = m.span(1)
    body = m.group(1)
    nums = [(body_s + a, body_s + b) for a, b in _spans(body, _NUMBER)]
    kind = rng.choice(("element", "element", "drop", "extra", "wrap"))
    if kind == "element" and nums:
        s = _pick(rng, nums)
        new = rng.choice(_BAD_ELEMENTS)
        return _replace(text, s, new), f"dense element at {s[0]} -> {new}"
    if kind == "drop" and len(nums) > 1:
        c = text.rfind(",", nums[-2][1], nums[-1][0])
        if c >= 0:
            return _replace(text, (c, nums[-1][1]), ""), f"drop last dense element at {nums[-1][0]}"
    if kind == "extra":
        return _replace(text, (body_e, body_e), ", 1"), f"extra dense element at {body_e}"
    return _replace(text, (body_s, body_e), "[" + body + "]"), f"wrap dense literal at {body_s} in []"


_ARRAY = re.compile(r"array<(i[0-9]+|f[0-9]+|i1)\s*:\s*([^<>]*)>")


def m_dense_array(text, rng):
    """nan / 1e400 / floats / huge values / booleans in an ``array<...>``."""
    arrs = list(_ARRAY.finditer(text))
    if not arrs:
        return None
    m = arrs[rng.randrange(len(arrs))]
    nums = [(m.start(2) + a, m.start(2) + b) for a, b in _spans(m.group(2), _NUMBER)]
    s = _pick(rng, nums)
    new = rng.choice(("nan", "1e400", "-1e400", "inf", "1.5", "0x1FFFFFFFFFFFFFFFFF",
                      "99999999999999999999999", "true", "-", ""))
    if s is None:
        s = (m.start(2), m.start(2))
    return _replace(text, s, new), f"array element at {s[0]} -> {new!r}"


_SHAPE = re.compile(r"\b(tensor|memref|vector)<((?:[0-9?]+x)+)")


def m_shape(text, rng):
    """Negative, zero, huge or changed dimensions; a huge splat constant."""
    if rng.random() < 0.2:
        splats = list(re.finditer(r"dense<(-?[0-9.e+-]+|true|false)>\s*:\s*tensor<((?:[0-9]+x)*)(\w+)>", text))
        if splats:
            m = splats[rng.randrange(len(splats))]
            new = rng.choice(("65536x256x256x", "4294967296x4294967296x", "1000000000000x"))
            return _replace(text, m.span(2), new), f"huge splat shape at {m.start(2)}"
    shapes = list(_SHAPE.finditer(text))
    if not shapes:
        return None
    m = shapes[rng.randrange(len(shapes))]
    dims = m.group(2)[:-1].split("x")
    i = rng.randrange(len(dims))
    new = rng.choice(("-1", "0", "1", "3", "7", "99999999999999999999", "4294967296",
                      "9223372036854775807", "-9223372036854775808", "?", "0x1F", "2x2"))
    old = dims[i]
    dims[i] = new
    return (_replace(text, m.span(2), "x".join(dims) + "x"),
            f"dim {i} of type at {m.start()} {old} -> {new}")


_ATTR_NAME = re.compile(r"(?<=[{,\s<])([a-z_][A-Za-z0-9_]*)\s*=\s*(?=[^=])")


def m_attr_name(text, rng):
    """Misspell or drop an attribute name (``dimensions = ...``)."""
    s = _pick(rng, _spans(text, _ATTR_NAME, 1))
    if s is None:
        return None
    name = text[s[0]: s[1]]
    kind = rng.choice(("typo", "typo", "case", "drop_value"))
    if kind == "typo" and len(name) > 1:
        j = rng.randrange(len(name))
        new = name[:j] + name[j + 1:]
    elif kind == "case":
        new = name.upper()
    else:
        new = name + "_x"
    return _replace(text, s, new), f"attribute name {name!r} at {s[0]} -> {new!r}"


def _balanced_end(text: str, i: int) -> Optional[int]:
    depth = 0
    for j in range(i, len(text)):
        c = text[j]
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return j + 1
    return None


def m_region(text, rng):
    """Duplicate a region, nest a region in an extra ``{ }`` or an extra op, or duplicate a line."""
    opens = [m.start() for m in re.finditer(r"\{", text)]
    kind = rng.choice(("dup_region", "nest", "wrap_op", "dup_line", "swap_lines"))
    lines = text.split("\n")
    if kind in ("dup_line", "swap_lines"):
        if len(lines) < 3:
            return None
        i = rng.randrange(len(lines) - 1)
        if kind == "dup_line":
            lines.insert(i, lines[i])
            return "\n".join(lines), f"duplicate line {i + 1}"
        lines[i], lines[i + 1] = lines[i + 1], lines[i]
        return "\n".join(lines), f"swap lines {i + 1} and {i + 2}"
    if not opens:
        return None
    i = opens[rng.randrange(len(opens))]
    e = _balanced_end(text, i)
    if e is None:
        return None
    region = text[i:e]
    if kind == "dup_region":
        return text[:e] + ", " + region + text[e:], f"duplicate region at {i}"
    if kind == "nest":
        return text[:i] + "{" + region + "}" + text[e:], f"nest region at {i}"
    return (text[: i + 1] + "\n \"test.wrap\"() ({" + region[1:-1] + "}) : () -> ()\n" + text[e - 1:],
            f"wrap region body at {i} in an op")


_DEF = re.compile(r"^(\s*)(%[A-Za-z0-9_$.-]+)(?::[0-9]+)?\s*=", re.M)


def m_ssa(text, rng):
    """Use a value before its definition: move a defining line down, or rename a use to a
    value defined later."""
    defs = list(_DEF.finditer(text))
    if len(defs) < 2:
        return None
    k = rng.randrange(len(defs) - 1)
    a, b = defs[k], defs[k + 1]
    if rng.random() < 0.5:
        # Swap the two defining lines.
        la_s = text.rfind("\n", 0, a.start()) + 1
        la_e = text.find("\n", a.start())
        lb_e = text.find("\n", b.start())
        lb_s = text.rfind("\n", 0, b.start()) + 1
        if la_e < 0 or lb_e < 0 or la_e >= lb_s:
            return None
        new = text[:la_s] + text[lb_s:lb_e] + text[la_e:lb_s] + text[la_s:la_e] + text[lb_e:]
        return new, f"swap definitions of {a.group(2)} and {b.group(2)}"
    # Replace a use between a and b with b's name (used before definition).
    uses = [m for m in re.finditer(re.escape(a.group(2)) + r"(?![A-Za-z0-9_$.-])", text)
            if m.start() > a.end()]
    if not uses:
        return None
    u = uses[rng.randrange(len(uses))]
    far = defs[rng.randrange(k + 1, len(defs))].group(2)
    return _replace(text, u.span(), far), f"use {far} instead of {a.group(2)} at {u.start()}"


def m_successor(text, rng):
    """Break a ``^bb`` reference or block header."""
    refs = _spans(text, r"\^[A-Za-z0-9_$.-]+")
    s = _pick(rng, refs)
    if s is None:
        return None
    new = rng.choice(("^", "^bb99", "^bb0(%x: i32)", "^bb1(", "^bb1:", "%bb1", "^bb1(%0 : )", "^-1"))
    return _replace(text, s, new), f"block reference at {s[0]} -> {new!r}"


def m_string(text, rng):
    """Bad escapes, unterminated or odd characters in a string literal."""
    s = _pick(rng, _spans(text, r'"(?:[^"\\\n]|\\.)*"'))
    if s is None:
        return None
    new = rng.choice(('\\q', '\\', '\\x', '\\4', '\\4G', '\\u1234', '\\\n', '\x00', '\u00e9', '\\"'))
    j = rng.randrange(s[0] + 1, s[1])
    return text[:j] + new + text[j:], f"string at {s[0]}: insert {new!r} at {j}"


def m_utf8(text, rng):
    """An invalid UTF-8 byte somewhere in the file (returned as bytes)."""
    data = text.encode("utf-8")
    i = rng.randrange(len(data) + 1)
    b = rng.choice((b"\xff", b"\xc3", b"\x80", b"\xed\xa0\x80"))
    return data[:i] + b + data[i:], f"invalid UTF-8 byte {b!r} at byte {i}"


MUTATORS: Dict[str, Tuple[Mutator, int]] = {
    # name: (function, weight)
    "byte": (m_byte, 6),
    "token": (m_token, 8),
    "truncate": (m_truncate, 2),
    "dense_hex": (m_dense_hex, 3),
    "dense_literal": (m_dense_literal, 5),
    "dense_array": (m_dense_array, 4),
    "shape": (m_shape, 6),
    "attr_name": (m_attr_name, 6),
    "region": (m_region, 4),
    "ssa": (m_ssa, 5),
    "successor": (m_successor, 2),
    "string": (m_string, 2),
    "utf8": (m_utf8, 1),
}


def mutate(text: str, rng: random.Random) -> Tuple[object, str]:
    """One mutation of ``text`` drawn with ``rng``: (mutated text or bytes, description)."""
    names = list(MUTATORS)
    weights = [MUTATORS[n][1] for n in names]
    for _ in range(20):
        name = rng.choices(names, weights)[0]
        r = MUTATORS[name][0](text, rng)
        if r is not None:
            return r[0], f"{name}: {r[1]}"
    return m_byte(text, rng)[0], "byte: fallback"


# ---------------------------------------------------------------------------- worker
def _classify(data, filename: str) -> Tuple[str, str]:
    """Compile ``data`` (str or bytes) to the end in this process; (outcome, detail)."""
    from ireec.compiler import compile_source
    from ireec.ir.diagnostics import CompileError, decode_source

    try:
        text = decode_source(data, filename) if isinstance(data, bytes) else data
        compile_source(text, filename)
        return "ok", ""
    except CompileError as e:
        first = e.render().split("\n")[0]
        bug = "internal error" in e.message or any("compiler bug" in str(n) for n in e.notes)
        if e.loc.line <= 0 or e.loc.file != filename or bug:
            return "internal", first
        return "located", first
    except RecursionError as e:
        return "internal", f"RecursionError: {e}"
    except Exception as e:  # noqa: BLE001 - everything else is what we look for
        import traceback

        tb = traceback.extract_tb(e.__traceback__)[-1]
        return "internal", f"{type(e).__name__}: {e} [{Path(tb.filename).name}:{tb.lineno}]"


def _worker_main(conn, mem_limit: int) -> None:
    try:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (mem_limit, mem_limit))
    except (ImportError, ValueError, OSError):
        pass
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 3000))
    while True:
        try:
            msg = conn.recv()
        except EOFError:
            return
        if msg is None:
            return
        data, filename = msg
        try:
            res = _classify(data, filename)
        except MemoryError:
            res = ("internal", "MemoryError")
        conn.send(res)


class Runner:
    """Runs inputs in a worker subprocess, restarting it after a hang or crash."""

    def __init__(self, timeout: float, mem_limit: int):
        self.timeout = timeout
        self.mem_limit = mem_limit
        self._ctx = mp.get_context("fork" if sys.platform != "win32" else "spawn")
        self.proc = None
        self.conn = None

    def _start(self):
        parent, child = self._ctx.Pipe()
        self.proc = self._ctx.Process(target=_worker_main, args=(child, self.mem_limit), daemon=True)
        self.proc.start()
        child.close()
        self.conn = parent

    def _kill(self):
        if self.proc is not None:
            self.proc.kill()
            self.proc.join()
        self.proc = None

    def run(self, data, filename: str) -> Tuple[str, str]:
        """(outcome, detail) for one input."""
        if self.proc is None or not self.proc.is_alive():
            self._start()
        try:
            self.conn.send((data, filename))
            if self.conn.poll(self.timeout):
                return self.conn.recv()
        except (EOFError, BrokenPipeError, ConnectionResetError):
            pass
        if self.proc.is_alive():
            self._kill()
            return "hang", f"no result within {self.timeout:g} s"
        code = self.proc.exitcode
        self._kill()
        return "crash", f"worker exited with {code}"

    def close(self):
        if self.proc is not None and self.proc.is_alive():
            try:
                self.conn.send(None)
            except (BrokenPipeError, OSError):
                pass
            self.proc.join(2)
        self._kill()


# --------------------------------------------------------------------------- reduce
def _signature(outcome: str, detail: str) -> str:
    """What must stay the same while reducing: outcome and the message without locations."""
    d = re.sub(r"^\S+:\d+:\d+: error: ", "", detail)
    d = re.sub(r"\d+", "N", d)
    return outcome + ":" + d[:80]


def reduce_input(runner: Runner, data, filename: str, outcome: str, detail: str,
                 budget: int = 150):
    """Remove lines (halves, then quarters, ... then single lines) while the failure keeps its
    signature; at most ``budget`` compiles. Returns the reduced text (or bytes)."""
    want = _signature(outcome, detail)
    is_bytes = isinstance(data, bytes)
    lines = (data.split(b"\n") if is_bytes else data.split("\n"))
    join = (lambda ls: b"\n".join(ls)) if is_bytes else (lambda ls: "\n".join(ls))
    chunk = max(1, len(lines) // 2)
    tries = 0
    while chunk >= 1 and tries < budget:
        i = 0
        changed = False
        while i < len(lines) and tries < budget:
            cand = lines[:i] + lines[i + chunk:]
            tries += 1
            if cand and _signature(*runner.run(join(cand), filename)) == want:
                lines = cand
                changed = True
            else:
                i += chunk
        if not changed:
            chunk //= 2
    return join(lines)


# ------------------------------------------------------------------------------ run
@dataclass
class Result:
    index: int
    seed_file: str
    mutation: str
    outcome: str
    detail: str
    data: object


def run_fuzz(count: int, seed: int, *, files: Optional[List[Path]] = None, timeout: float = 20.0,
             mem_limit: int = 4 << 30, only: Optional[int] = None, out: Optional[Path] = None,
             reduce: bool = True, log=print) -> Dict[str, List[Result]]:
    """Run ``count`` seeded mutations; returns outcome → results (only failures keep data).

    ``files`` defaults to :func:`seed_files`. Sample ``i`` mutates
    ``files[rng.randrange(len(files))]`` with ``rng = random.Random(f"{seed}:{i}")``.
    """
    files = files if files is not None else seed_files()
    if not files:
        raise SystemExit(f"no seed files under {SHARED} ({', '.join(SEED_DIRS)})")
    texts = {}
    runner = Runner(timeout, mem_limit)
    results: Dict[str, List[Result]] = {o: [] for o in OUTCOMES}
    baseline_bad: Dict[str, str] = {}
    t0 = time.time()
    try:
        indices = [only] if only is not None else range(count)
        for n, i in enumerate(indices):
            rng = random.Random(f"{seed}:{i}")
            path = files[rng.randrange(len(files))]
            key = str(path)
            if key not in texts:
                texts[key] = path.read_text(encoding="utf-8")
                o, d = runner.run(texts[key], path.name)
                if o not in ("ok", "located"):
                    baseline_bad[key] = f"{o}: {d}"
                    log(f"note: unmutated {path} already fails ({o}: {d}); its mutations are skipped")
            if key in baseline_bad:
                continue
            data, what = mutate(texts[key], rng)
            outcome, detail = runner.run(data, path.name)
            keep = outcome in ("internal", "hang", "crash")
            results[outcome].append(Result(i, key, what, outcome, detail, data if keep else None))
            if keep:
                log(f"[{i}] {outcome.upper()} {path.relative_to(path.parents[2]) if len(path.parents) > 2 else path}"
                    f" ({what}): {detail}")
            if (n + 1) % 500 == 0:
                log(f"... {n + 1} inputs, {time.time() - t0:.0f} s")
        bad = results["internal"] + results["hang"] + results["crash"]
        if out is not None and bad:
            out.mkdir(parents=True, exist_ok=True)
            for r in bad:
                name = f"{r.outcome}-{seed}-{r.index}"
                raw = r.data if isinstance(r.data, bytes) else r.data.encode("utf-8")
                (out / f"{name}.mlir").write_bytes(raw)
                small = r.data
                if reduce and r.outcome == "internal":
                    small = reduce_input(runner, r.data, Path(r.seed_file).name, r.outcome, r.detail)
                (out / f"{name}.min.mlir").write_bytes(small if isinstance(small, bytes) else small.encode("utf-8"))
                (out / f"{name}.txt").write_text(
                    f"seed file: {r.seed_file}\nmutation: {r.mutation}\noutcome: {r.outcome}\n"
                    f"detail: {r.detail}\nreplay: python3 -m tests.fuzz.fuzz --seed {seed} --only {r.index}\n")
    finally:
        runner.close()
    results["baseline_failures"] = [Result(-1, k, "", "baseline", v, None) for k, v in baseline_bad.items()]
    return results


def summary(results: Dict[str, List[Result]], seed: int, elapsed: float) -> str:
    """Counts per outcome and the distinct internal-error sites."""
    total = sum(len(results[o]) for o in OUTCOMES)
    lines = [f"fuzz: seed {seed}, {total} mutations in {elapsed:.0f} s: "
             + ", ".join(f"{o} {len(results[o])}" for o in OUTCOMES)]
    sites: Dict[str, int] = {}
    for r in results["internal"] + results["hang"] + results["crash"]:
        k = _signature(r.outcome, r.detail)
        sites[k] = sites.get(k, 0) + 1
    for k, v in sorted(sites.items(), key=lambda kv: -kv[1]):
        lines.append(f"  {v:5d}  {k}")
    for r in results.get("baseline_failures", []):
        lines.append(f"  unmutated seed fails: {r.seed_file}: {r.detail}")
    return "\n".join(lines)


def main(argv=None) -> int:
    """``python3 -m tests.fuzz.fuzz --count N --seed S [--out DIR] [--only I]``."""
    ap = argparse.ArgumentParser(prog="python3 -m tests.fuzz.fuzz", description=__doc__.split("\n\n")[0])
    ap.add_argument("--count", type=int, default=1000, help="number of mutations (default 1000)")
    ap.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    ap.add_argument("--only", type=int, default=None, help="replay only sample I of the seed")
    ap.add_argument("--timeout", type=float, default=20.0, help="seconds per input (default 20)")
    ap.add_argument("--mem-limit-mb", type=int, default=4096, help="address-space limit of the worker")
    ap.add_argument("--max-size", type=int, default=None, help="skip seed files larger than this (bytes)")
    ap.add_argument("--shared", type=Path, default=SHARED, help="folder holding corpus/ and models/")
    ap.add_argument("--out", type=Path, default=REPO / "build" / "fuzz",
                    help="where reproducers of failures are written (default build/fuzz)")
    ap.add_argument("--no-reduce", action="store_true", help="do not reduce reproducers")
    a = ap.parse_args(argv)
    t0 = time.time()
    res = run_fuzz(a.count, a.seed, files=seed_files(a.shared, a.max_size), timeout=a.timeout,
                   mem_limit=a.mem_limit_mb << 20, only=a.only, out=a.out, reduce=not a.no_reduce)
    print(summary(res, a.seed, time.time() - t0))
    bad = len(res["internal"]) + len(res["hang"]) + len(res["crash"])
    if bad:
        print(f"reproducers in {a.out}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
