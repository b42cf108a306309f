"""The op and attribute registry: for each op name its custom parse/print, verifier and
traits; for each dialect its attribute parser hook.

The role of MLIR's ``MLIRContext`` dialect registry (``DialectRegistry``, each op's
``RegisteredOperationName``). ``ireec.ir`` and ``ireec.frontend`` read it and never import
the dialects: dialect modules (``ireec.dialects.*``) call :func:`register` and
:func:`register_dialect_attr_parser` at import, and the package entry (``ireec/__init__.py``)
installs the function importing them all with :func:`set_dialect_loader`;
:func:`load_dialects` (called by the parser, the printer and the verifier) runs it once.
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
    """The registration of one op: custom syntax, verifier and traits."""

    name: str
    parse: Optional[Callable] = None  # (parser, name, loc) -> Operation
    print: Optional[Callable] = None  # (printer, op) -> None; writes after "name "
    verify: Optional[Callable] = None  # (op) -> None; raises CompileError
    traits: FrozenSet[str] = field(default_factory=frozenset)


#: Op name → its registration.
OPS: Dict[str, OpDef] = {}

#: Dialect attribute hooks: dialect name -> fn(parser, name, text, loc) -> Attribute.
#: ``name`` is what follows '#' (``stablehlo.dot`` or ``stablehlo``), ``text`` the whole
#: attribute spelling with whitespace collapsed. A hook may normalize the text (e.g. to
#: upstream's canonical spelling) or consume a trailing ``: type``. Filled by dialect modules.
DIALECT_ATTR_PARSERS: Dict[str, Callable] = {}


def register(name: str, parse=None, print=None, verify=None, traits=()) -> OpDef:
    """Register op ``name`` with its custom-syntax ``parse(p, name, loc)`` / ``print(pr, op)``
    (None: generic form), an optional ``verify(op)`` and its traits. Registering again
    adds to the earlier registration (the traits are united)."""
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


def register_dialect_attr_parser(dialect: str, fn: Callable) -> None:
    """Parse ``#dialect...`` attributes with ``fn(parser, name, text, loc)`` (see
    :data:`DIALECT_ATTR_PARSERS`)."""
    DIALECT_ATTR_PARSERS[dialect] = fn


_LOADER: Optional[Callable[[], None]] = None
_LOADED = False
_LOAD_LOCK = threading.RLock()
_LOADING = threading.local()


def set_dialect_loader(fn: Callable[[], None]) -> None:
    """Install ``fn``, which imports every dialect module (so their ops register), for
    :func:`load_dialects` to run; the package entry installs it."""
    global _LOADER, _LOADED
    with _LOAD_LOCK:
        _LOADER = fn
        _LOADED = False


def load_dialects() -> None:
    """Run the installed dialect loader once (thread-safe: a caller returns only once every
    dialect is registered; a dialect module that parses IR while it is being imported does
    not start the loader again). Without a loader, only what is registered already is known."""
    global _LOADED
    if _LOADED:
        return
    with _LOAD_LOCK:
        if _LOADED or _LOADER is None or getattr(_LOADING, "active", False):
            return
        _LOADING.active = True
        try:
            _LOADER()
            _LOADED = True
        finally:
            _LOADING.active = False
