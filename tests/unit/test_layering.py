"""Layering: the IR core (``ireec.ir``) and the parser (``ireec.frontend``) never import the
dialects (``ireec.dialects``); dialects register into :mod:`ireec.ir.registry` and the
package entry loads them."""
from __future__ import annotations

import ast
from pathlib import Path
from typing import Iterator, List, Tuple

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "ireec"
LAYERS = ("ir", "frontend")
FORBIDDEN = "ireec.dialects"


def imported_modules(source: str, package: Tuple[str, ...]) -> Iterator[Tuple[int, str]]:
    """(line, absolute module name) of every import in ``source``, a module of ``package``
    (e.g. ``("ireec", "ir")``), nested ones (inside functions) included; relative imports
    are resolved against ``package``, and ``from M import n`` also yields ``M.n``."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = list(package[: len(package) - node.level + 1])
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            yield node.lineno, mod
            for alias in node.names:
                yield node.lineno, f"{mod}.{alias.name}"


def _package_of(path: Path) -> Tuple[str, ...]:
    return tuple(path.relative_to(PACKAGE.parent).parts[:-1])


def _modules() -> List[Path]:
    return sorted(p for layer in LAYERS for p in (PACKAGE / layer).rglob("*.py"))


def test_layers_have_modules():
    assert len(_modules()) >= 5, "the ir/ and frontend/ packages were not found"


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_dialect_imports(path):
    found = imported_modules(path.read_text(encoding="utf-8"), _package_of(path))
    bad = [f"{path.name}:{line}: imports {mod}" for line, mod in found
           if mod == FORBIDDEN or mod.startswith(FORBIDDEN + ".")]
    assert not bad, "ireec/ir and ireec/frontend must not import ireec.dialects:\n" + "\n".join(bad)


def test_checker_sees_relative_and_nested_imports():
    """``from ..dialects.registry import x`` at the top and ``from .. import dialects``
    inside a function, in a module of ireec/ir, are both seen as imports of ireec.dialects."""
    src = "from ..dialects.registry import OPS\ndef f():\n    from .. import dialects\n"
    found = [m for _line, m in imported_modules(src, ("ireec", "ir"))]
    assert "ireec.dialects.registry" in found and "ireec.dialects" in found
    assert [m for _l, m in imported_modules("import ireec.dialects.arith\n", ("ireec", "ir"))] == [
        "ireec.dialects.arith"]
