"""Pass infrastructure: a pass is a small class with a ``name`` and ``run(module, ctx)``.

``PassContext`` carries the options of one compilation (target, module name) and the
report the passes fill in (FLOP estimates, memory plan records). Passes register by name for
the pipeline table. Passes see targets only through :mod:`ireec.targets.base` (the Target
interface and its registry).
"""
from __future__ import annotations

import abc
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Callable, Dict, Iterator, List, Optional, Type

from ..ir.core import Operation
from ..ir.diagnostics import CompileError, Location
from ..targets.base import Target, get_target


def _default_target() -> Target:
    return get_target("c")


@dataclass
class PassContext:
    """Options and results shared by the passes of one compilation.

    ``target``: the :class:`ireec.targets.base.Target` object the compiler resolved (a
    target name given here, as unit tests do, is looked up in the registry of
    ``targets.base``; compare targets by ``.name`` or their capability attributes).
    ``module_name``: C identifier prefix of the output.
    ``options``: the target options of the command line (``workspace``, ``max_*_bytes``...);
    ``report``: facts passes record for the compile report (memory plan records per
    function, FLOP estimates per dispatch); what the C needs travels in the IR.
    """

    target: Target = field(default_factory=_default_target)
    module_name: str = "module"
    source_name: str = "<input>"
    options: Dict[str, object] = field(default_factory=dict)
    report: Dict[str, object] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not isinstance(self.target, Target):
            self.target = get_target(self.target)

    @property
    def max_stack_bytes(self) -> Optional[int]:
        """``--max-stack-bytes`` (bytes a call of a public function may take on the stack), or
        None when there is no budget."""
        limit = self.options.get("max_stack_bytes")
        return None if limit is None else int(limit)


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


def _known(loc: Optional[Location]) -> bool:
    return loc is not None and loc.line > 0


def op_being_processed(tb, root: Optional[Operation] = None) -> Optional[Operation]:
    """The operation a failing pass was working on, read from the traceback ``tb``.

    The innermost frame holding an :class:`Operation` with a source location wins (a local
    named ``op`` first, then the others in the frame's order); ``root`` (the module) is the
    last resort. Costs nothing until an error happens: no pass needs to record what it visits.
    """
    frames = []
    while tb is not None:
        frames.append(tb.tb_frame)
        tb = tb.tb_next
    for frame in reversed(frames):
        items = list(frame.f_locals.items())
        items.sort(key=lambda kv: kv[0] != "op")
        for _name, v in items:
            if isinstance(v, Operation) and v is not root and _known(v.loc):
                return v
    return root


def _fallback_location(module: Optional[Operation]) -> Optional[Location]:
    if module is None:
        return None
    if _known(module.loc):
        return module.loc
    for op in module.walk():
        if _known(op.loc):
            return op.loc
    return None


@contextmanager
def located_internal_errors(stage: str, module: Optional[Operation] = None) -> Iterator[None]:
    """Turn what escapes ``stage`` (e.g. ``pass 'iree-flow-form-dispatch-regions'``) into a
    located :class:`CompileError`.

    An unexpected exception becomes ``internal error in STAGE while processing 'OP': Type:
    msg`` at the location of the op being processed (see :func:`op_being_processed`), or of
    the module; the original exception is kept as ``__cause__`` (the CLI prints its traceback
    with ``IREEC_DEBUG=1``). A CompileError raised without a location gets that location.
    """
    try:
        yield
    except CompileError as e:
        if _known(e.loc):
            raise
        op = op_being_processed(e.__traceback__, module)
        loc = op.loc if op is not None and _known(op.loc) else _fallback_location(module)
        if loc is None:
            raise
        raise CompileError(e.message, loc, e.notes) from e
    except (KeyboardInterrupt, SystemExit, GeneratorExit):
        raise
    except BaseException as e:  # noqa: BLE001 - a bug of ireec, reported where it happened
        op = op_being_processed(e.__traceback__, module)
        where = f" while processing '{op.name}'" if op is not None else ""
        loc = op.loc if op is not None and _known(op.loc) else _fallback_location(module)
        msg = str(e) if not isinstance(e, KeyError) else repr(e.args[0]) if e.args else ""
        raise CompileError(f"internal error in {stage}{where}: {type(e).__name__}: {msg}",
                           loc) from e
