"""Code-generation targets: one :class:`~ireec.targets.base.Target` class per target, and the
registry every command, the build, ``ireec check``, the passes and the templates read (it
lives in :mod:`ireec.targets.base`, which the passes import alone; re-exported here).

``register_target(cls)`` adds a target (also usable as a class decorator); ``get_target(name)``
returns a new instance for a target name or an IREE backend spelling (``llvm-cpu`` → ``c``);
``target_names()`` lists the registered names in registration order. Adding a target is one
module calling :func:`register_target` plus, when it renders templates, one template folder.
"""
from __future__ import annotations

from .base import (Target, get_target, iree_backends, register_target, target_choices,  # noqa: F401
                   target_names, unregister_target)
from .c import CTarget, OpenMPTarget  # noqa: E402,F401  (registers c, openmp)
from .cuda import CUDATarget  # noqa: E402,F401  (registers cuda)

__all__ = ["Target", "CTarget", "OpenMPTarget", "CUDATarget", "register_target", "unregister_target",
           "target_names", "target_choices", "iree_backends", "get_target"]
