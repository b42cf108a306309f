"""Patterns of the StableHLO → linalg conversion, one module per op family.

Each module defines ``PATTERNS: dict[str, Callable[[Operation, Builder], list[Value] | None]]``;
a pattern returns the values replacing the op's results (``None`` when it replaced or erased
the op itself).
"""
from __future__ import annotations

from typing import Callable, Dict

from . import (complex_ops, control_flow, data_movement, decompositions, dot_conv, elementwise,
               gather_scatter, quantization, random, reduce, select_and_scatter, sort)

PATTERNS: Dict[str, Callable] = {}
for _m in (elementwise, dot_conv, reduce, data_movement, gather_scatter, sort, control_flow,
           complex_ops, random, decompositions, select_and_scatter, quantization):
    PATTERNS.update(_m.PATTERNS)
