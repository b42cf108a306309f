"""The op registry: for each op name, its custom parse/print, verifier and traits.

Dialect modules call :func:`register` at import; :func:`load_all_dialects` imports them.
An op without a registered parser is still read and written in MLIR's generic form.

Traits used by passes: ``terminator``, ``isolated`` (IsolatedFromAbove: a fresh SSA name
scope), ``pure`` (no side effects: CSE/DCE may touch it), ``symbol_table``, ``elementwise``
(applies per element; may become the body of a ``linalg.generic``).
"""
from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Callable, Dict, FrozenSet, Optional


@dataclass
class OpDef:
    name: str
    parse: Optional[Callable] = None  # (parser, name, loc) -> Operation
    print: Optional[Callable] = None  # (printer, op) -> None; writes after "name "
    verify: Optional[Callable] = None  # (op) -> None; raises CompileError
    traits: FrozenSet[str] = field(default_factory=frozenset)


OPS: Dict[str, OpDef] = {}


def register(name: str, parse=None, print=None, verify=None, traits=()) -> OpDef:
    """Register op ``name`` with its custom-syntax ``parse(p, name, loc)`` / ``print(pr, op)``
    (None: generic form), an optional ``verify(op)`` and its traits."""
    d = OPS.get(name)
    if d is None:
        d = OPS[name] = OpDef(name)
    if parse is not None:
        d.parse = parse
    if print is not None:
        d.print = print
    if verify is not None:
        d.verify = verify
    if traits:
        d.traits = frozenset(set(d.traits) | set(traits))
    return d


def op_def(name: str) -> Optional[OpDef]:
    """The registration of op ``name``, or None."""
    return OPS.get(name)


def has_trait(op_or_name, trait: str) -> bool:
    """Whether ``op``'s registration carries ``trait`` (e.g. 'terminator', 'pure')."""
    name = op_or_name if isinstance(op_or_name, str) else op_or_name.name
    d = OPS.get(name)
    return d is not None and trait in d.traits


_LOADED = False
_LOAD_LOCK = threading.RLock()
_LOADING = threading.local()


def load_all_dialects() -> None:
    """Import every dialect module once so their ops are registered (thread-safe: a
    caller returns only once every dialect is registered)."""
    global _LOADED
    if _LOADED:
        return
    with _LOAD_LOCK:
        if _LOADED or getattr(_LOADING, "active", False):
            return  # done, or a dialect module of this very import asks again
        _LOADING.active = True
        import importlib
        import pkgutil

        import ireec.dialects as pkg

        for m in sorted(pkgutil.iter_modules(pkg.__path__), key=lambda m: m.name):
            if m.name != "registry":
                importlib.import_module(f"ireec.dialects.{m.name}")
        _LOADED = True
        _LOADING.active = False
