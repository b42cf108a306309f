"""parse → print → parse → print is a fixed point on every corpus and model file.

Files in ``../shared/corpus/iree_e2e`` and ``../shared/models``. The printed text must also
survive a trip through the generic form (``Printer(generic=True)``).

``tests/unit/roundtrip_status.md`` holds one row per file (its path under ../shared): ``pass``,
or ``fail`` with the text its failure message contains and the reason. A file with no row, a
``pass`` file that fails, a ``fail`` file that fails otherwise and a ``fail`` file that now
passes all fail their test, so the table stays honest; ``python3 -m tests.unit.test_roundtrip``
prints the rows of the files that have none (``--all``: of every file), from today's results.
"""
import difflib
import re
import sys
from pathlib import Path
from typing import Dict, List, Optional, Tuple

import pytest

from ireec.frontend.parser import parse_source
from ireec.ir.printer import print_module

SHARED = Path(__file__).parents[2].parent / "shared"
ROOTS = [SHARED / "corpus" / "iree_e2e", SHARED / "models"]
FILES = sorted(p for r in ROOTS if r.is_dir() for p in r.rglob("*.mlir"))
MY_DIALECTS = ("arith", "math", "tensor", "linalg", "scf", "cf", "memref")
STATUS_FILE = Path(__file__).resolve().parent / "roundtrip_status.md"
_ROW = re.compile(r"^\|\s*`([^`]+)`\s*\|\s*(pass|fail)\s*\|\s*(.*?)\s*\|\s*(.*?)\s*\|$")


def rel(path: Path) -> str:
    """``path`` relative to ../shared, with forward slashes (the status table's key)."""
    return path.relative_to(SHARED).as_posix()


def read_status(path: Path = STATUS_FILE) -> Dict[str, Tuple[str, str, str]]:
    """{file under ../shared: (status, error text, reason)} from the status table; the error
    text is the cell without its backquotes."""
    out: Dict[str, Tuple[str, str, str]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        m = _ROW.match(line.strip())
        if m:
            out[m.group(1)] = (m.group(2), m.group(3).strip("`"), m.group(4))
    return out


def _first_diff(a: str, b: str) -> str:
    for line in difflib.unified_diff(a.splitlines(), b.splitlines(), lineterm="", n=0):
        if line.startswith("-") and not line.startswith("---"):
            return line[1:].strip()
    return ""


def roundtrip_failure(path: Path) -> Optional[str]:
    """None when print(parse(x)) is a fixed point, in the pretty and the generic form;
    else a one-line message: the error (its type and first line) or the first differing
    line."""
    try:
        module = parse_source(path.read_text(encoding="utf-8"), str(path))
        first = print_module(module)
        second = print_module(parse_source(first, f"{path.name}.printed"))
        generic = print_module(module, generic=True)
        again = print_module(parse_source(generic, f"{path.name}.generic"))
    except Exception as e:  # noqa: BLE001 - any error is this file's outcome
        return f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
    if first != second:
        return f"not a fixed point: {_first_diff(first, second)}"
    if first != again:
        return f"the generic form is not a fixed point: {_first_diff(first, again)}"
    return None


def _ids():
    return [rel(p) for p in FILES] or ["no-shared"]


@pytest.mark.parametrize("path", FILES or [None], ids=_ids())
def test_print_parse_is_fixed_point(path):
    if path is None:
        pytest.skip("../shared not present")
    row = read_status().get(rel(path))
    failure = roundtrip_failure(path)
    assert row is not None, (f"{rel(path)} has no row in {STATUS_FILE.name}; add:\n"
                             f"{status_row(path, failure)}")
    status, error, reason = row
    if status == "pass":
        assert failure is None, f"{rel(path)} is pass in {STATUS_FILE.name} but fails: {failure}"
        return
    assert reason.strip(), f"the fail row of {rel(path)} in {STATUS_FILE.name} gives no reason"
    assert failure is not None, (f"{rel(path)} is fail in {STATUS_FILE.name} ({reason}) but "
                                 f"now passes: make its row pass")
    assert error in failure, (f"{rel(path)} is expected to fail with '{error}' "
                              f"({STATUS_FILE.name}), but fails otherwise: {failure}")
    pytest.xfail(reason)


def status_row(path: Path, failure: Optional[str]) -> str:
    """The status table row of ``path`` for its outcome today. A ``fail`` row's reason cell
    is empty: whoever adds the row writes why (the test refuses a fail row without one)."""
    if failure is None:
        return f"| `{rel(path)}` | pass | | |"
    error = re.split(r"[|`]", failure)[0].strip()  # a table cell holds neither
    return f"| `{rel(path)}` | fail | `{error}` | |"


def main(argv: List[str]) -> int:
    """Print the rows of the files with no row in the status table (``--all``: every file)."""
    rows = read_status() if STATUS_FILE.exists() and "--all" not in argv else {}
    for path in FILES:
        if rel(path) not in rows:
            print(status_row(path, roundtrip_failure(path)))
    return 0


LINALG_MODELS = sorted(p for p in (SHARED / "models").rglob("*.linalg.mlir")) if SHARED.is_dir() else []


@pytest.mark.parametrize("path", LINALG_MODELS or [None],
                         ids=[p.name for p in LINALG_MODELS] or ["no-shared"])
def test_linalg_model_generic_form_is_accepted(path):
    """The printed linalg model, printed again in generic form, parses to the same IR, and
    that generic text names every op in quotes (no pretty syntax left)."""
    if path is None:
        pytest.skip("../shared not present")
    module = parse_source(path.read_text(), str(path))
    pretty = print_module(module)
    generic = print_module(parse_source(pretty, "pretty"), generic=True)
    assert "linalg.generic {" not in generic and '"linalg.generic"(' in generic
    assert re.search(r'^\s*(%\S+ = )?[a-z]+\.', generic, re.M) is None
    assert print_module(parse_source(generic, "generic")) == pretty


def test_models_are_fully_parsed_by_these_dialects():
    """The torch-mlir linalg models use only arith/math/tensor/linalg/func: none is skipped."""
    if not LINALG_MODELS:
        pytest.skip("../shared not present")
    for path in LINALG_MODELS:
        module = parse_source(path.read_text(), str(path))
        names = {op.name.split(".")[0] for op in module.walk()}
        assert names <= set(MY_DIALECTS) | {"builtin", "func"}, (path.name, names)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
