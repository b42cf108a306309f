"""Module globals in one form: ``util.global``, with immutable ones folded into constants.

Mirrors IREE's ML program import (``ml_program.global`` / ``global_load`` / ``global_store``
become ``util.global`` / ``util.global.load`` / ``util.global.store``) and util's
``iree-util-fold-globals``: a global nobody stores to is a constant, so its loads (direct, or
through ``util.global.address`` + ``util.global.load.indirect``) become ``arith.constant``
ops of its initial value, and the global goes. ``#util.byte_pattern<N>`` initial values fill
every byte with N (IREE's placeholder for weights, e.g. in mnist_fake_weights). Mutable globals
stay as module state for the stream phase. TOSA's ``variable`` / ``variable_read`` /
``variable_write`` are imported the same way (mutable globals; MLIR's ``tosa-to-mlprogram``).
"""
from __future__ import annotations

import re
from typing import Dict

import numpy as np

from ...ir import types as T
from ...ir.attributes import DenseElementsAttr, StringAttr, TypeAttr, UnitAttr
from ...ir.core import Builder, Operation
from ...ir.diagnostics import CompileError
from ..pass_base import Pass, PassContext, register_pass


def initial_value(g: Operation):
    """The initial value of util.global ``g`` as an attribute an arith.constant can hold."""
    v = g.attributes.get("initial_value")
    t = g.attributes["type"].value
    if v is None:
        if not isinstance(t, T.TensorType):
            raise CompileError("a global without an initial value is not supported", g.loc)
        try:  # a lazily held splat of zeros: no memory for the elements
            zeros = np.broadcast_to(np.zeros((), dtype=T.numpy_dtype(t.element_type)), t.shape)
        except ValueError:
            raise CompileError(f"global of type {t} is too large to be held", g.loc) from None
        return DenseElementsAttr(zeros, t)
    m = re.fullmatch(r"#util\.byte_pattern<(-?\d+)>", getattr(v, "text", "") or "")
    if m:
        n = t.num_elements * T.storage_bytes(t.element_type)
        try:
            raw = np.full(n, int(m.group(1)) & 0xFF, dtype=np.uint8)
            return DenseElementsAttr(raw.view(T.numpy_dtype(t.element_type)).reshape(t.shape), t)
        except (ValueError, MemoryError, OverflowError):
            raise CompileError(f"global of type {t} is too large to be held", g.loc) from None
    return v


def _tosa_variable(op: Operation) -> None:
    """``tosa.variable`` → mutable ``util.global`` (MLIR's ``tosa-to-mlprogram`` makes it a
    mutable ``ml_program.global``). TOSA 1.0's generic form gives the element type and
    ``var_shape``; the custom form a typed initial value."""
    a = op.attributes
    t = a["type"].value
    if not isinstance(t, T.TensorType) and "var_shape" in a:
        shape = tuple(int(x) for x in (a["var_shape"].int_list() if hasattr(a["var_shape"], "int_list")
                                      else a["var_shape"].values))
        t = T.TensorType(shape, t)
    attrs = {"sym_name": a["sym_name"], "type": TypeAttr(t), "is_mutable": UnitAttr(),
             "sym_visibility": StringAttr("private")}
    init = a.get("initial_value")
    if init is not None:
        if isinstance(init, DenseElementsAttr) and init.type != t:
            init = DenseElementsAttr(init.array.reshape(t.shape), t)
        attrs["initial_value"] = init
    Builder.before(op).create("util.global", [], [], attrs)
    op.erase()


def _tosa_variable_read(op: Operation) -> None:
    ld = Builder.before(op).create("util.global.load", [], [op.results[0].type], {"global": op.attributes["name"]})
    op.replace_with([ld.result])


def _tosa_variable_write(op: Operation) -> None:
    Builder.before(op).create("util.global.store", list(op.operands), [], {"global": op.attributes["name"]})
    op.erase()


# TOSA's stateful variables become util globals like ml_program's.
_TOSA_VARIABLES = {"tosa.variable": _tosa_variable, "tosa.variable_read": _tosa_variable_read,
                   "tosa.variable_write": _tosa_variable_write}


@register_pass
class ConvertGlobalsPass(Pass):
    name = "iree-util-fold-globals"

    def run(self, module: Operation, ctx: PassContext) -> None:
        self._import_ml_program(module)
        globals_: Dict[str, Operation] = {op.attributes["sym_name"].value: op
                                          for op in module.body.ops if op.name == "util.global"}
        stored = {op.attributes["global"].root for op in module.walk() if op.name == "util.global.store"}
        values: Dict[str, object] = {}  # each folded global's value, built once
        for op in list(module.walk()):
            if op.name == "util.global.address":
                for u in list(op.results[0].users):
                    if u.name != "util.global.load.indirect":
                        raise CompileError(f"'{u.name}' of a global's address is not supported", u.loc)
                    ld = Builder.before(u).create("util.global.load", [], [u.results[0].type],
                                                  {"global": op.attributes["global"]})
                    u.replace_with([ld.result])
                op.erase()
        for op in list(module.walk()):
            if op.name == "util.global.load":
                name = op.attributes["global"].root
                g = globals_.get(name)
                if g is None:
                    raise CompileError(f"unknown global @{name}", op.loc)
                if name not in stored and "is_mutable" not in g.attributes:
                    if name not in values:
                        values[name] = initial_value(g)
                    c = Builder.before(op).create("arith.constant", [], [op.results[0].type],
                                                  {"value": values[name]})
                    op.replace_with([c.result])
        for name, g in globals_.items():
            if name not in stored and "is_mutable" not in g.attributes:
                g.erase()
            else:
                g.attributes["initial_value"] = initial_value(g)

    @staticmethod
    def _import_ml_program(module: Operation) -> None:
        for op in list(module.walk()):
            if op.name in _TOSA_VARIABLES:
                _TOSA_VARIABLES[op.name](op)
            elif op.name == "ml_program.global":
                attrs = {"sym_name": op.attributes["sym_name"], "type": op.attributes["type"]}
                if "sym_visibility" in op.attributes:
                    attrs["sym_visibility"] = op.attributes["sym_visibility"]
                if "is_mutable" in op.attributes:
                    attrs["is_mutable"] = UnitAttr()
                if "value" in op.attributes:
                    attrs["initial_value"] = op.attributes["value"]
                Builder.before(op).create("util.global", [], [], attrs)
                op.erase()
            elif op.name == "ml_program.global_load":
                ld = Builder.before(op).create("util.global.load", [], [op.results[0].type],
                                               {"global": op.attributes["global"]})
                op.replace_with([ld.result])
            elif op.name == "ml_program.global_store":
                Builder.before(op).create("util.global.store", list(op.operands), [],
                                          {"global": op.attributes["global"]})
                op.erase()

