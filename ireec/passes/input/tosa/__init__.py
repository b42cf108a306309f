"""Patterns of the TOSA → linalg conversion.

Each module defines ``PATTERNS: dict[str, Callable[[Operation, Builder], list[Value] | None]]``;
a pattern returns the values replacing the op's results, or None when it replaced or erased
the op itself. Families: :mod:`.elementwise` (tosa-to-linalg / tosa-to-arith),
:mod:`.data_movement` (tosa-to-tensor and the data-movement part of tosa-to-linalg),
:mod:`.reduce`, :mod:`.matmul_conv` (tosa-to-linalg-named), :mod:`.control_flow`
(tosa-to-scf), :mod:`.spatial` (conv3d, transpose_conv2d, resize, fft2d, rfft2d,
scatter).
"""
from __future__ import annotations

from typing import Callable, Dict

from . import control_flow, data_movement, elementwise, matmul_conv, reduce, spatial

PATTERNS: Dict[str, Callable] = {}
for _m in (elementwise, data_movement, reduce, matmul_conv, control_flow, spatial):
    PATTERNS.update(_m.PATTERNS)
