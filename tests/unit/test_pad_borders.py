"""A pad writes every element of its result once: the border slabs of ``_pad_borders``
and the source's copy partition the result (checked by counting writes with numpy)."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from ireec.passes.hal.bufferize import WHOLE_FILL_ROW, _pad_borders, pad_fills


@pytest.mark.parametrize("low,high,src", [
    ([0, 0, 1, 1], [0, 0, 1, 1], [1, 3, 4, 5]),
    ([0, 1, 0], [0, 0, 1], [2, 3, 3]),
    ([2, 0], [0, 3], [1, 4]),
    ([1, 2, 3], [3, 2, 1], [2, 1, 2]),
    ([0, 0], [0, 0], [3, 3]),
    ([1], [0], [0]),
])
def test_borders_and_copy_cover_each_element_once(low, high, src):
    dst = [lo + s + hi for lo, s, hi in zip(low, src, high)]
    count = np.zeros(dst, np.int32)
    for offsets, sizes in _pad_borders(low, src, dst):
        count[tuple(slice(o, o + n) for o, n in zip(offsets, sizes))] += 1
    count[tuple(slice(lo, lo + s) for lo, s in zip(low, src))] += 1
    assert (count == 1).all()
    # Fills only touch the border: the interior is the copy's.
    for offsets, sizes in _pad_borders(low, src, dst):
        for idx in itertools.product(*(range(o, o + n) for o, n in zip(offsets, sizes))):
            assert any(not (lo <= i < lo + s) for i, lo, s in zip(idx, low, src))


@pytest.mark.parametrize("low,high,src,whole", [
    ([0, 0, 1, 1], [0, 0, 1, 1], [1, 48, 2, 2], True),     # short padded rows: one fill
    ([0, 1, 0], [0, 1, 0], [2, 3, 3], False),              # rows not padded: the border
    ([0, 3], [0, 3], [2, WHOLE_FILL_ROW], False),          # long rows: the border
    ([0, 0, 0, 0], [0, 0, 0, 1], [1, 4, 5, 7], True),      # padded after only
])
def test_short_padded_rows_are_filled_whole_then_copied(low, high, src, whole):
    """With its innermost dim padded and short, a pad fills its whole result and the copy
    overwrites the interior: every element is still written, the border only by the fill."""
    dst = [lo + s + hi for lo, s, hi in zip(low, src, high)]
    fills = pad_fills(low, src, dst)
    assert (fills == [([0] * len(dst), dst)]) == whole
    if not whole:
        assert fills == _pad_borders(low, src, dst)
    value = np.full(dst, -1, np.int32)
    for offsets, sizes in fills:
        value[tuple(slice(o, o + n) for o, n in zip(offsets, sizes))] = 0
    value[tuple(slice(lo, lo + s) for lo, s in zip(low, src))] = 1
    expected = np.zeros(dst, np.int32)
    expected[tuple(slice(lo, lo + s) for lo, s in zip(low, src))] = 1
    assert (value == expected).all()
