"""Which padded images a depthwise convolution's micro-kernel reads unpadded.

A zero ``tensor.pad`` of the image of a channels-last depthwise convolution that the CPU
targets compute with ``ireec_uk_dwconv`` (:func:`.ukernels.match_dwconv`) is never
materialized: ``ireec_uk_dwconv_padded`` (runtime_c/ireec_ukernel_dwconv.h) reads the pad's
source in place and skips the taps that fall in the padding, as IREE folds a pad into its
consumer (``FusePadWithConsumer``) and XNNPACK reads padding through its indirection buffer.
The same conditions decide it in the three places that must agree:

* :mod:`..flow.form_dispatch_regions` fuses such a pad into the convolution's dispatch
  whatever the size of the padded image (it restates them on the named op, the flow phase
  knowing no micro-kernels: :func:`..flow.form_dispatch_regions.dwconv_image`);
* :mod:`.select_lowering_strategy` leaves the pad out of the distribution and of the stack
  budget, so the output rows are distributed as without the pad (:func:`folds_tensor_pad`);
* :mod:`.cpu_lower_to_ukernels` calls ``ireec_uk_dwconv_padded`` on the pad's source and
  erases the stack array bufferization gave it (:func:`geometry`).

The conditions: the padding value is a float zero; the image's innermost dim is the
convolution's channel dim (channels-last: the kernel's border pixels are runs of whole
channel vectors; an image with channels apart keeps a padded copy, which its small-image
path repacks anyway); every padded dim is one that an output row or column reads through the
window (``s * y + d * ty``), each of them moved by exactly one output dim and one window dim.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import List, Optional, Sequence

from ...dialects import linalg as L
from ...ir.core import Operation, Value
from . import ukernels as UK


@dataclass
class PaddedGeometry:
    """The image dims and window of a padded depthwise convolution: ``jy`` / ``jx`` the image
    dims the output rows / columns read (``jy`` None for a 1-d convolution), ``sy, dy`` /
    ``sx, dx`` the output dim's and the window dim's coefficients in them (stride, dilation)."""

    jy: Optional[int]
    jx: int
    sy: int
    dy: int
    sx: int
    dx: int


def is_zero_constant(v: Value) -> bool:
    """Whether ``v`` is an ``arith.constant`` float zero (either sign)."""
    owner = v.owner
    if not isinstance(owner, Operation) or owner.name != "arith.constant":
        return False
    value = getattr(owner.attributes.get("value"), "value", None)
    return isinstance(value, float) and value == 0.0


def geometry(match: UK.DwconvMatch, image_map, image_shape: Sequence[int],
             padded: Sequence[bool]) -> Optional[PaddedGeometry]:
    """The :class:`PaddedGeometry` of depthwise convolution ``match`` whose image (indexing
    map ``image_map``, ``image_shape``) is padded along the dims where ``padded`` is true, or
    None where the module docstring's layout conditions fail."""
    coeffs = UK._linear_indices(image_map, image_shape)
    if coeffs is None or not coeffs:
        return None
    if coeffs[-1] != {match.c: 1}:
        return None  # channels apart: the padded copy stays

    def dim_of(out_dim: Optional[int], tap: Optional[int]):
        if out_dim is None:
            return None, 1, 1
        js = [j for j, c in enumerate(coeffs) if out_dim in c]
        if len(js) != 1:
            return -1, 0, 0
        c = coeffs[js[0]]
        if any(d not in (out_dim, tap) for d in c):
            return -1, 0, 0
        return js[0], c[out_dim], c.get(tap, 1) if tap is not None else 1

    jy, sy, dy = dim_of(match.y, match.ty)
    jx, sx, dx = dim_of(match.x, match.tx)
    if jy == -1 or jx is None or jx == -1 or jy == jx:
        return None
    if any(p and j not in (jy, jx) for j, p in enumerate(padded)):
        return None
    return PaddedGeometry(jy, jx, sy, dy, sx, dx)


def folds_tensor_pad(root: Operation, match: Optional[UK.DwconvMatch], pad: Operation) -> bool:
    """Whether static ``tensor.pad`` ``pad``, used only as the image of ``root`` (a
    depthwise convolution on tensors the micro-kernel computes: ``match``), is read unpadded
    (module docstring)."""
    if match is None or pad.name != "tensor.pad" or len(pad.results[0].uses) != 1:
        return False
    image = L.inputs(root)[match.image]
    if image is not pad.results[0]:
        return False
    if not is_zero_constant(pad.body.terminator.operands[0]):
        return False
    low, high = pad.attributes.get("static_low"), pad.attributes.get("static_high")
    if low is None or high is None:
        return False
    padded: List[bool] = [bool(lo or hi) for lo, hi in zip(low.value, high.value)]
    image_map = L.indexing_maps(root)[match.image]
    return geometry(match, image_map, image.type.shape, padded) is not None
