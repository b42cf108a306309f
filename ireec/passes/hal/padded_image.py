"""A fused ``tensor.pad`` as bufferization leaves it in a kernel, recognized again.

:mod:`.bufferize` writes a pad fused into its convolution's kernel as a stack array, fills of
its borders with the padding value and a copy of the source into its interior
(:func:`.bufferize.pad_fills`). The lowerings that read the source instead
(:mod:`.convert_conv_to_im2col`'s packing, :mod:`.cpu_lower_to_ukernels`'s padded depthwise
call) find that form with :func:`padded_image` and erase it once nothing reads the array.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import List, Optional

from ...dialects import linalg as L
from ...ir import types as T
from ...ir.core import Operation, Value
from .memref_utils import generic_maps


@dataclass
class PaddedImage:
    """A fused ``tensor.pad`` as bufferization leaves it in a kernel: a stack array filled
    with the padding value along its borders (generics on subviews) and the source copied
    into its interior (one generic). ``src`` the source memref, ``low`` the interior's offset
    per dim, ``shape`` the source's shape, ``padded`` per dim whether it is padded,
    ``value`` the padding value, ``ops`` what to erase once nothing reads the array
    (generics, subviews, then the array)."""

    src: Value
    low: List[int]
    shape: List[int]
    padded: List[bool]
    value: Value
    ops: List[Operation]


def _copy_or_fill(g: Operation) -> Optional[str]:
    """``"copy"`` for a generic that yields its one memref input unchanged through identity
    maps, ``"fill"`` for one that yields its one scalar input, else None."""
    if g.name != "linalg.generic" or len(g.operands) != 2:
        return None
    body = list(L.payload(g).ops)
    if len(body) != 1 or body[0].name != "linalg.yield" or body[0].operands[0] is not L.payload(g).args[0]:
        return None
    src = g.operands[0]
    if isinstance(src.type, T.MemRefType):
        return "copy" if all(m.is_identity() for m in generic_maps(g)) else None
    return "fill"


def padded_image(x: Value, conv: Operation) -> Optional[PaddedImage]:
    """The :class:`PaddedImage` that memref ``x`` (the image of convolution ``conv``) is, when
    ``x`` is a stack array read only by ``conv`` and written only through subviews by border
    fills of one constant and one copy of a static source of the interior's shape (a pad
    whose tile is the whole padded tensor along its source's dims), else None."""
    alloc = x.owner
    if not isinstance(alloc, Operation) or alloc.name != "memref.alloca" or not x.type.has_static_shape:
        return None
    ops: List[Operation] = []
    views: List[Operation] = []
    copy = None
    value = None
    for user, _ in x.uses:
        if user is conv:
            continue
        if user.name != "memref.subview" or len(user.results[0].uses) != 1:
            return None
        g, k = next(iter(user.results[0].uses))
        kind = _copy_or_fill(g) if k == 1 else None
        if kind is None:
            return None
        if kind == "copy":
            if copy is not None:
                return None
            copy = (g, user)
        else:
            cst = g.operands[0].owner
            if not isinstance(cst, Operation) or cst.name != "arith.constant":
                return None
            if value is not None and value.owner.attributes["value"] != cst.attributes["value"]:
                return None
            value = g.operands[0]
        ops.append(g)
        views.append(user)
    if copy is None or value is None:
        return None
    g, view = copy
    src = g.operands[0]
    offsets = view.attributes.get("static_offsets")
    sizes = view.attributes.get("static_sizes")
    strides = view.attributes.get("static_strides")
    if offsets is None or sizes is None or not src.type.has_static_shape:
        return None
    low, shape = list(offsets.value), list(src.type.shape)
    if list(sizes.value) != shape or (strides is not None and any(v != 1 for v in strides.value)):
        return None
    if any(v < 0 for v in low):  # a dynamic offset (MLIR's kDynamic) among them
        return None
    padded = [lo > 0 or n != full for lo, n, full in zip(low, shape, x.type.shape)]
    if value.type != x.type.element_type:
        return None
    return PaddedImage(src, low, shape, padded, value, ops + views + [alloc])
