"""The op registry as the dialect modules see it (it lives in :mod:`ireec.ir.registry`),
and :func:`load_all_dialects`, which imports every dialect module once so their ops are
registered.

Dialect modules call :func:`register` at import; the package entry (``ireec/__init__.py``)
installs :func:`load_all_dialects` as the IR's dialect loader.
"""
from __future__ import annotations

import threading

from ..ir.registry import (OPS, OpDef, has_trait, load_dialects, op_def, register,
                           register_dialect_attr_parser)

__all__ = ["OPS", "OpDef", "has_trait", "load_dialects", "op_def", "register",
           "register_dialect_attr_parser", "load_all_dialects"]

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
        try:
            import importlib
            import pkgutil

            import ireec.dialects as pkg

            for m in sorted(pkgutil.iter_modules(pkg.__path__), key=lambda m: m.name):
                if m.name != "registry":
                    importlib.import_module(f"ireec.dialects.{m.name}")
            _LOADED = True
        finally:
            _LOADING.active = False
