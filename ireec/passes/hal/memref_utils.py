"""Strided memref layouts: ``memref<4x8xf32, strided<[16, 1], offset: 4>>``.

Only static strides and offsets are produced by ireec (all shapes are static).
"""
from __future__ import annotations

import re
from typing import List, Sequence, Tuple

from ...ir import types as T
from ...ir.attributes import OpaqueAttr

_STRIDED = re.compile(r"strided<\[([^\]]*)\](?:,\s*offset:\s*(-?\d+))?>")


def identity_strides(shape: Sequence[int]) -> List[int]:
    """Row-major strides in elements."""
    strides, acc = [], 1
    for d in reversed(shape):
        strides.append(acc)
        acc *= d
    return strides[::-1]


def strides_and_offset(t: T.MemRefType) -> Tuple[List[int], int]:
    """Strides (elements) and offset (elements) of a memref type."""
    if t.layout is None:
        return identity_strides(t.shape), 0
    m = _STRIDED.fullmatch(str(t.layout))
    if not m:
        raise ValueError(f"unsupported memref layout {t.layout}")
    strides = [int(s) for s in m.group(1).split(",")] if m.group(1).strip() else []
    return strides, int(m.group(2) or 0)


def strided_memref(shape, et, strides, offset) -> T.MemRefType:
    """``memref<shape x et, strided<strides, offset: offset>>`` (strides and offset in elements)."""
    if list(strides) == identity_strides(shape) and offset == 0:
        return T.MemRefType(tuple(shape), et)
    return T.MemRefType(tuple(shape), et, OpaqueAttr(
        f"strided<[{', '.join(str(s) for s in strides)}], offset: {offset}>"))


def memref_for(t: T.TensorType) -> T.MemRefType:
    """The identity-layout memref of a static tensor type."""
    return T.MemRefType(tuple(t.shape), t.element_type)
