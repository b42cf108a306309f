"""Code-generation targets: one :class:`~ireec.targets.base.Target` class per target, and the
registry every command, the build, ``ireec check``, the passes and the templates read.

``register_target(cls)`` adds a target (also usable as a class decorator); ``get_target(name)``
returns a new instance for a target name or an IREE backend spelling (``llvm-cpu`` → ``c``);
``target_names()`` lists the registered names in registration order. Adding a target is one
module calling :func:`register_target` plus, when it renders templates, one template folder.
"""
from __future__ import annotations

from typing import Dict, List, Type

from ..ir.diagnostics import CompileError
from .base import Target

__all__ = ["Target", "CTarget", "OpenMPTarget", "CUDATarget", "register_target", "unregister_target",
           "target_names", "target_choices", "iree_backends", "get_target"]

_REGISTRY: Dict[str, Type[Target]] = {}


def register_target(cls: Type[Target]) -> Type[Target]:
    """Add target class ``cls`` under ``cls.name`` (replacing one of the same name); returns
    ``cls``. Raises ValueError for a class without a name."""
    if not getattr(cls, "name", ""):
        raise ValueError(f"target class {cls.__name__} has no name")
    _REGISTRY[cls.name] = cls
    return cls


def unregister_target(name: str) -> None:
    """Remove the target registered as ``name`` (no error when there is none)."""
    _REGISTRY.pop(name, None)


def target_names() -> List[str]:
    """Names of the registered targets, in registration order (``c``, ``openmp``, ``cuda``...)."""
    return list(_REGISTRY)


def iree_backends() -> Dict[str, str]:
    """{``--iree-hal-target-backends`` spelling: target name} of the registered targets."""
    return {b: cls.name for cls in _REGISTRY.values() for b in cls.iree_backends}


def target_choices() -> List[str]:
    """Every spelling ``--target`` accepts: the target names, then IREE backend spellings
    that are not also target names."""
    names = target_names()
    return names + [b for b in iree_backends() if b not in names]


def get_target(name) -> Target:
    """A new target object for ``name`` (a target name or an IREE backend spelling; a Target
    object is returned as it is). CompileError for an unknown name."""
    if isinstance(name, Target):
        return name
    cls = _REGISTRY.get(name)
    if cls is None and name in iree_backends():
        cls = _REGISTRY[iree_backends()[name]]
    if cls is None:
        raise CompileError(f"unknown target '{name}' (known: {', '.join(target_names())})")
    return cls()


from .c import CTarget, OpenMPTarget  # noqa: E402,F401  (registers c, openmp)
from .cuda import CUDATarget  # noqa: E402,F401  (registers cuda)
