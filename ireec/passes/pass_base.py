"""Pass infrastructure: a pass is a small class with a ``name`` and ``run(module, ctx)``.

``PassContext`` carries the options of one compilation (target, module name) and the
report the passes fill in (arena sizes...). Passes register by name for the pipeline table.
"""
from __future__ import annotations

import abc
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional, Type

from ..ir.core import Operation


@dataclass
class PassContext:
    """Options and results shared by the passes of one compilation.

    ``target``: 'c' | 'openmp' | 'cuda'. ``module_name``: C identifier prefix of the output.
    ``report``: free-form facts passes record (e.g. ``arena_bytes`` per function).
    """

    target: str = "c"
    module_name: str = "module"
    source_name: str = "<input>"
    options: Dict[str, object] = field(default_factory=dict)
    report: Dict[str, object] = field(default_factory=dict)


class Pass(abc.ABC):
    """Base class. Subclasses set ``name`` (the iree-opt style flag, e.g.
    ``iree-flow-outline-dispatch-regions``) and implement :meth:`run`."""

    name: str = ""

    @abc.abstractmethod
    def run(self, module: Operation, ctx: PassContext) -> None:
        """Transform ``module`` in place; raise CompileError on unsupported input."""


PASSES: Dict[str, Type[Pass]] = {}


def register_pass(cls: Type[Pass]) -> Type[Pass]:
    """Class decorator adding a pass to the registry under ``cls.name``."""
    if not cls.name:
        raise ValueError(f"pass {cls.__name__} has no name")
    PASSES[cls.name] = cls
    return cls


def walk_ops(module: Operation, name: Optional[str] = None) -> List[Operation]:
    """All ops nested in ``module`` (pre-order), optionally only those named ``name``."""
    return [op for op in module.walk() if name is None or op.name == name]


def functions(module: Operation) -> List[Operation]:
    """The ``func.func`` ops directly inside ``module``."""
    return [op for op in module.body.ops if op.name == "func.func"]


def defined_functions(module: Operation) -> List[Operation]:
    """The ``func.func`` ops directly inside ``module`` that have a body."""
    return [f for f in functions(module) if f.regions and f.regions[0].blocks]


def apply_to_functions(module: Operation, fn: Callable[[Operation], None]) -> None:
    """Call ``fn`` on every ``func.func`` of ``module`` that has a body."""
    for f in defined_functions(module):
        fn(f)


def is_attached(op: Operation, root: Operation) -> bool:
    """Whether ``op`` is still nested in ``root`` (False once an ancestor was erased)."""
    p = op
    while p is not root:
        if p.parent is None:
            return False
        p = p.parent_op
        if p is None:
            return False
    return True
