"""pyproject.toml lists its packages explicitly (templates/ and runtime_c/ ship through
package-dir), so every Python package under ireec/ must be in that list, or a non-editable
install would leave it out."""
from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_every_package_is_listed_in_pyproject():
    text = (REPO / "pyproject.toml").read_text()
    block = re.search(r"^packages = \[(.*?)\]", text, re.S | re.M).group(1)
    listed = set(re.findall(r'"([\w.]+)"', block))
    found = {".".join(p.parent.relative_to(REPO).parts) for p in (REPO / "ireec").rglob("__init__.py")}
    missing = sorted(found - listed)
    assert not missing, f"packages missing from pyproject.toml: {missing}"
