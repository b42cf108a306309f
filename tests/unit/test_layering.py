"""Layering of ``ireec/``: every import goes down the layer order, and no modules import each
other in a circle.

The order, lowest first (a module may import its own layer and the layers below it)::

    ir, frontend  <-  dialects  <-  emitc  <-  passes  <-  targets  <-  compiler
                  <-  runtime, tools  <-  cli  <-  __main__

One exception: ``passes`` may import ``ireec.targets.base`` (the pass-context types a target
hands its passes), and no other module of ``targets``.

Imports are read from the source (``ast``), nested ones (inside functions) included, as
``../shared/tools/layering.py`` reads them. An import names one module of ``ireec/``: ``import
a.b`` and ``from a.b import name`` name ``a.b``; ``from a import b`` names ``a.b`` where that is
a module (a submodule imported by name), else ``a``. The parent packages Python runs first are
not counted (importing ``ireec.targets.base`` is not an import of ``ireec.targets``).

The package entry (``ireec/__init__.py``, the module ``ireec``) stands outside the order: Python
runs it before any module of ``ireec/``, so importing a name from it (``__version__``) adds no
dependency, and its own imports (the public API) are lazy. Its imports still count for circles.
"""
from __future__ import annotations

import ast
from pathlib import Path
from typing import Dict, Iterator, List, Set, Tuple

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "ireec"

#: First name under ``ireec.`` → layer; a module may import only modules of its layer or lower.
LAYER: Dict[str, int] = {
    "ir": 0, "frontend": 0,
    "dialects": 1,
    "emitc": 2,
    "passes": 3,
    "targets": 4,
    "compiler": 5,
    "runtime": 6, "tools": 6,
    "cli": 7,
    "__main__": 8,
}
#: The package entry (``ireec/__init__.py``): it may import anything and anything may import it.
ENTRY = "ireec"
#: (importing layer, imported module) pairs allowed against the order.
ALLOWED_UPWARD = {("passes", "ireec.targets.base")}


def _from_module(node: ast.ImportFrom, package: Tuple[str, ...]) -> str:
    """The absolute module ``from M import ...`` names, ``M`` resolved against ``package``."""
    if not node.level:
        return node.module or ""
    base = list(package[: len(package) - node.level + 1])
    return ".".join(base + ([node.module] if node.module else []))


def imported_modules(source: str, package: Tuple[str, ...]) -> Iterator[Tuple[int, str]]:
    """(line, absolute module name) of every import in ``source``, a module of ``package``
    (e.g. ``("ireec", "ir")``), nested ones (inside functions) included; relative imports
    are resolved against ``package``, and ``from M import n`` also yields ``M.n``."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            mod = _from_module(node, package)
            yield node.lineno, mod
            for alias in node.names:
                yield node.lineno, f"{mod}.{alias.name}"


def module_files() -> Dict[str, Path]:
    """Module name → file, for every module of ``ireec/`` (a package is its ``__init__``)."""
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _package_of(name: str, path: Path) -> Tuple[str, ...]:
    parts = tuple(name.split("."))
    return parts if path.name == "__init__.py" else parts[:-1]


def imports_of(source: str, package: Tuple[str, ...], modules: Set[str]) -> Set[Tuple[int, str]]:
    """(line, module of ``modules``) of each import in ``source``, as the module docstring
    says: ``from a import b`` is ``a.b`` where that is a module, else ``a``; names outside
    ``modules`` fall back to their longest prefix in ``modules``; imports of nothing in
    ``modules`` (the standard library, numpy) are left out."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            targets = [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            mod = _from_module(node, package)
            targets = [(node.lineno, f"{mod}.{a.name}" if f"{mod}.{a.name}" in modules else mod)
                       for a in node.names]
        else:
            continue
        for line, name in targets:
            while name not in modules and "." in name:
                name = name.rsplit(".", 1)[0]
            if name in modules:
                found.add((line, name))
    return found


def import_graph() -> Dict[str, Set[Tuple[int, str]]]:
    """Module → (line, imported module of ireec/) pairs, imports of itself left out."""
    files = module_files()
    graph = {}
    for name, path in files.items():
        found = imports_of(path.read_text(encoding="utf-8"), _package_of(name, path), set(files))
        graph[name] = {(line, m) for line, m in found if m != name}
    return graph


def layer_of(module: str) -> Tuple[str, int]:
    """(layer name, rank) of a module of ireec/ other than the package entry."""
    parts = module.split(".")
    if parts[1] not in LAYER:
        raise AssertionError(f"{module}: ireec/{parts[1]} is in no layer; add it to LAYER")
    return parts[1], LAYER[parts[1]]


def layer_violations(graph: Dict[str, Set[Tuple[int, str]]]) -> List[str]:
    """'importer:line -> imported' for each import of a higher layer, sorted."""
    bad = []
    for mod, imports in graph.items():
        if mod == ENTRY:
            continue
        name, rank = layer_of(mod)
        for line, target in imports:
            if target == ENTRY:
                continue
            tname, trank = layer_of(target)
            if trank > rank and (name, target) not in ALLOWED_UPWARD:
                bad.append(f"{mod}:{line} ({name}) -> {target} ({tname})")
    return sorted(bad)


def import_circles(graph: Dict[str, Set[Tuple[int, str]]]) -> List[List[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    edges = {m: sorted({t for _l, t in imps}) for m, imps in graph.items()}
    index: Dict[str, int] = {}
    low: Dict[str, int] = {}
    stack: List[str] = []
    on_stack: Set[str] = set()
    circles = []
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, 0)]
        while work:
            v, i = work.pop()
            if i == 0:
                index[v] = low[v] = len(index)
                stack.append(v)
                on_stack.add(v)
            succ = edges.get(v, [])
            if i < len(succ):
                work.append((v, i + 1))
                w = succ[i]
                if w not in index:
                    work.append((w, 0))
                elif w in on_stack:
                    low[v] = min(low[v], index[w])
                continue
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    circles.append(sorted(comp))
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[v])
    return sorted(circles)


def test_every_module_is_in_a_layer():
    files = module_files()
    assert len(files) >= 20, "the ireec/ package was not found"
    for name in files:
        if name != ENTRY:
            layer_of(name)


def test_imports_follow_the_layer_order():
    bad = layer_violations(import_graph())
    assert not bad, ("imports against the order ir/frontend <- dialects <- emitc <- passes <- "
                     "targets <- compiler <- runtime/tools <- cli (passes may import only "
                     "ireec.targets.base of targets):\n  " + "\n  ".join(bad))


def test_no_import_circles():
    circles = import_circles(import_graph())
    assert not circles, "modules of ireec/ importing each other in a circle:\n  " + "\n  ".join(
        " ".join(c) for c in circles)


def test_checker_sees_relative_and_nested_imports():
    """``from ..dialects.registry import x`` at the top and ``from .. import dialects``
    inside a function, in a module of ireec/ir, are both seen as imports of ireec.dialects."""
    src = "from ..dialects.registry import OPS\ndef f():\n    from .. import dialects\n"
    found = [m for _line, m in imported_modules(src, ("ireec", "ir"))]
    assert "ireec.dialects.registry" in found and "ireec.dialects" in found
    assert [m for _l, m in imported_modules("import ireec.dialects.arith\n", ("ireec", "ir"))] == [
        "ireec.dialects.arith"]


def test_checker_resolves_imports_to_modules():
    """``from a import b`` is the submodule ``a.b`` where there is one, else the package ``a``;
    unknown names fall back to their module; the standard library is left out."""
    modules = {"ireec", "ireec.targets", "ireec.targets.base", "ireec.passes",
               "ireec.passes.pass_base"}
    src = ("import os\nfrom ..targets import base\nfrom ..targets import CTarget\n"
           "def f():\n    from ireec.targets.base.x import y\n")
    assert imports_of(src, ("ireec", "passes"), modules) == {
        (2, "ireec.targets.base"), (3, "ireec.targets"), (5, "ireec.targets.base")}


def test_checker_finds_violations_and_circles():
    graph = {
        "ireec.ir.core": {(3, "ireec.dialects.arith")},
        "ireec.dialects.arith": {(1, "ireec.ir.core")},
        "ireec.passes.pass_base": {(7, "ireec.targets.base"), (8, "ireec.targets.c"), (9, "ireec")},
        "ireec": {(1, "ireec.passes.pass_base")},
        "ireec.targets.base": set(), "ireec.targets.c": set(),
    }
    assert layer_violations(graph) == [
        "ireec.ir.core:3 (ir) -> ireec.dialects.arith (dialects)",
        "ireec.passes.pass_base:8 (passes) -> ireec.targets.c (targets)"]
    assert import_circles(graph) == [["ireec", "ireec.passes.pass_base"],
                                     ["ireec.dialects.arith", "ireec.ir.core"]]


@pytest.mark.parametrize("layer", sorted(LAYER))
def test_layer_table_names_existing_parts(layer):
    assert (PACKAGE / layer).is_dir() or (PACKAGE / f"{layer}.py").is_file(), layer


#: Folders whose modules build or render C but must not read C text back: C is spelled (and,
#: where an analysis needs it, scanned) by the printer package ireec/emitc alone; these
#: work on typed IR (emitc ops, #emitc.access ranges, source_op names).
NO_C_TEXT_SCANNING = ("targets", "passes/vm")


@pytest.mark.parametrize("folder", NO_C_TEXT_SCANNING)
def test_no_regular_expressions_over_c_text_outside_the_printer(folder):
    offenders = []
    for path in sorted((PACKAGE / folder).rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module] if isinstance(node, ast.ImportFrom) and not node.level else [])
            if "re" in names or "regex" in names:
                offenders.append(f"{path.relative_to(PACKAGE)}:{node.lineno}")
    assert not offenders, ("modules that render or rewrite C read its text with regular expressions "
                           "(do it on the emitc IR, or in ireec/emitc): " + ", ".join(offenders))


def test_every_relative_import_names_a_module_of_the_package():
    """A relative import (nested ones included) names an existing module or package: moving a
    module one folder deeper must not leave an import inside a function pointing nowhere."""
    bad = []
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        package = parts[:-1]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level:
                base = package[: len(package) - node.level + 1]
                target = PACKAGE.parent.joinpath(*base, *(node.module.split(".") if node.module else []))
                if not (target.with_suffix(".py").is_file() or (target / "__init__.py").is_file()):
                    bad.append(f"{path.relative_to(PACKAGE)}:{node.lineno}: {'.' * node.level}{node.module or ''}")
    assert not bad, "relative imports of missing modules:\n" + "\n".join(bad)
