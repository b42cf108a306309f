"""linalg named-op definitions: the tables of named structured ops and their indexing.

:data:`NAMED_SPECS` maps each contraction, convolution and pooling op (``matmul``,
``conv_2d_nhwc_hwcf``, ``pooling_nchw_max``...) to a :class:`NamedSpec` (loop dims,
operand dims, payload kind); :data:`ELEMENTWISE_UNARY` / :data:`ELEMENTWISE_BINARY`,
:data:`NAMED_OPS`, :data:`DST_STYLE_OPS` and :data:`STRUCTURED_OPS` name the op sets.
:func:`spec_maps` / :func:`spec_iterators` give a spec's indexing maps (strides and
dilations scale the window dims) and iterator kinds (:data:`PARALLEL`, :data:`REDUCTION`);
:func:`iterator_attr`, :func:`maps_attr` build the attributes of ``linalg.generic``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Tuple

from ...ir import types as T
from ...ir.affine import AffineBinary, AffineConst, AffineDim, AffineExpr, AffineMap
from ...ir.attributes import (AffineMapAttr, ArrayAttr, Attribute, DenseArrayAttr,
                              DenseElementsAttr, OpaqueAttr, StringAttr)


PARALLEL, REDUCTION = "parallel", "reduction"


# ============================================================== named op tables
@dataclass(frozen=True)
class NamedSpec:
    """A named op from upstream's OpDSL (``core_named_ops.py``) or ODS definitions.

    ``dims``: the loop dims in order. ``operands``: one index expression list per operand
    (inputs, then the output), dims separated by spaces; ``a+b`` is a window access
    ``a * stride + b * dilation`` taking the next stride/dilation; ``""`` is a scalar.
    ``body``: 'mac' (out + a*b), 'qmac' (out + (a-az)*(b-bz)), 'sum' (out + a), 'max',
    'min' (pooling reductions). ``unsigned``: casts and min/max are unsigned.
    """

    dims: Tuple[str, ...]
    operands: Tuple[str, ...]
    body: str = "mac"
    unsigned: bool = False

    @property
    def num_windows(self) -> int:
        """Number of strided window accesses (length of strides/dilations)."""
        return max(op.count("+") for op in self.operands)


def _s(dims: str, *operands: str, body: str = "mac", unsigned: bool = False) -> NamedSpec:
    return NamedSpec(tuple(dims.split()), operands, body, unsigned)


CONTRACTIONS = {
    "matmul": _s("m n k", "m k", "k n", "m n"),
    "matmul_unsigned": _s("m n k", "m k", "k n", "m n", unsigned=True),
    "matmul_transpose_a": _s("m n k", "k m", "k n", "m n"),
    "matmul_transpose_b": _s("m n k", "m k", "n k", "m n"),
    "quantized_matmul": _s("m n k", "m k", "k n", "", "", "m n", body="qmac"),
    "batch_matmul": _s("b m n k", "b m k", "b k n", "b m n"),
    "batch_matmul_transpose_a": _s("b m n k", "b k m", "b k n", "b m n"),
    "batch_matmul_transpose_b": _s("b m n k", "b m k", "b n k", "b m n"),
    "quantized_batch_matmul": _s("b m n k", "b m k", "b k n", "", "", "b m n", body="qmac"),
    "batch_reduce_matmul": _s("b m n k", "b m k", "b k n", "m n"),
    "matvec": _s("m n", "m n", "n", "m"),
    "vecmat": _s("n m", "m", "m n", "n"),
    "batch_matvec": _s("b m k", "b m k", "b k", "b m"),
    "batch_vecmat": _s("b n k", "b k", "b k n", "b n"),
    "dot": _s("m", "m", "m", ""),
    "mmt4d": _s("m n k m0 n0 k0", "m k m0 k0", "n k n0 k0", "m n m0 n0"),
    "batch_mmt4d": _s("b m n k m0 n0 k0", "b m k m0 k0", "b n k n0 k0", "b m n m0 n0"),
}

CONVOLUTIONS = {
    "conv_1d": _s("ow kw", "ow+kw", "kw", "ow"),
    "conv_2d": _s("oh ow kh kw", "oh+kh ow+kw", "kh kw", "oh ow"),
    "conv_3d": _s("od oh ow kd kh kw", "od+kd oh+kh ow+kw", "kd kh kw", "od oh ow"),
    "conv_1d_nwc_wcf": _s("n ow f kw c", "n ow+kw c", "kw c f", "n ow f"),
    "conv_1d_ncw_fcw": _s("n f ow c kw", "n c ow+kw", "f c kw", "n f ow"),
    "conv_2d_nhwc_hwcf": _s("n oh ow f kh kw c", "n oh+kh ow+kw c", "kh kw c f", "n oh ow f"),
    "conv_2d_nhwc_fhwc": _s("n oh ow f kh kw c", "n oh+kh ow+kw c", "f kh kw c", "n oh ow f"),
    "conv_2d_nhwc_hwcf_q": _s("n oh ow f kh kw c", "n oh+kh ow+kw c", "kh kw c f", "", "",
                              "n oh ow f", body="qmac"),
    "conv_2d_nhwc_fhwc_q": _s("n oh ow f kh kw c", "n oh+kh ow+kw c", "f kh kw c", "", "",
                              "n oh ow f", body="qmac"),
    "conv_2d_nchw_fchw": _s("n f oh ow c kh kw", "n c oh+kh ow+kw", "f c kh kw", "n f oh ow"),
    "conv_2d_nchw_fchw_q": _s("n f oh ow c kh kw", "n c oh+kh ow+kw", "f c kh kw", "", "",
                              "n f oh ow", body="qmac"),
    "conv_2d_ngchw_fgchw": _s("n g fg oh ow c kh kw", "n g c oh+kh ow+kw", "g fg c kh kw",
                              "n g fg oh ow"),
    "conv_2d_ngchw_gfchw": _s("n g fg oh ow c kh kw", "n g c oh+kh ow+kw", "g fg c kh kw",
                              "n g fg oh ow"),
    "conv_2d_ngchw_gfchw_q": _s("n g fg oh ow c kh kw", "n g c oh+kh ow+kw", "g fg c kh kw",
                                "", "", "n g fg oh ow", body="qmac"),
    "conv_2d_nhwgc_gfhwc": _s("n oh ow g fg kh kw c", "n oh+kh ow+kw g c", "g fg kh kw c",
                              "n oh ow g fg"),
    "conv_2d_nhwgc_gfhwc_q": _s("n oh ow g fg kh kw c", "n oh+kh ow+kw g c", "g fg kh kw c",
                                "", "", "n oh ow g fg", body="qmac"),
    "conv_3d_ndhwc_dhwcf": _s("n od oh ow f kd kh kw c", "n od+kd oh+kh ow+kw c",
                              "kd kh kw c f", "n od oh ow f"),
    "conv_3d_ndhwc_dhwcf_q": _s("n od oh ow f kd kh kw c", "n od+kd oh+kh ow+kw c",
                                "kd kh kw c f", "", "", "n od oh ow f", body="qmac"),
    "conv_3d_ncdhw_fcdhw": _s("n od oh ow f kd kh kw c", "n c od+kd oh+kh ow+kw",
                              "f c kd kh kw", "n f od oh ow"),
    "depthwise_conv_1d_nwc_wc": _s("n ow ic kw", "n ow+kw ic", "kw ic", "n ow ic"),
    "depthwise_conv_1d_ncw_cw": _s("n ow ic kw", "n ic ow+kw", "ic kw", "n ic ow"),
    "depthwise_conv_1d_nwc_wcm": _s("n ow ic cm kw", "n ow+kw ic", "kw ic cm", "n ow ic cm"),
    "depthwise_conv_2d_nhwc_hwc": _s("n oh ow ic kh kw", "n oh+kh ow+kw ic", "kh kw ic",
                                     "n oh ow ic"),
    "depthwise_conv_2d_nchw_chw": _s("n oh ow ic kh kw", "n ic oh+kh ow+kw", "ic kh kw",
                                     "n ic oh ow"),
    "depthwise_conv_2d_nhwc_hwc_q": _s("n oh ow ic kh kw", "n oh+kh ow+kw ic", "kh kw ic", "",
                                       "", "n oh ow ic", body="qmac"),
    "depthwise_conv_2d_nhwc_hwcm": _s("n oh ow ic cm kh kw", "n oh+kh ow+kw ic", "kh kw ic cm",
                                      "n oh ow ic cm"),
    "depthwise_conv_2d_nhwc_hwcm_q": _s("n oh ow ic cm kh kw", "n oh+kh ow+kw ic",
                                        "kh kw ic cm", "", "", "n oh ow ic cm", body="qmac"),
    "depthwise_conv_3d_ndhwc_dhwc": _s("n od oh ow kd kh kw ic", "n od+kd oh+kh ow+kw ic",
                                       "kd kh kw ic", "n od oh ow ic"),
    "depthwise_conv_3d_ncdhw_cdhw": _s("n od oh ow kd kh kw ic", "n ic od+kd oh+kh ow+kw",
                                       "ic kd kh kw", "n ic od oh ow"),
    "depthwise_conv_3d_ndhwc_dhwcm": _s("n od oh ow cm kd kh kw ic", "n od+kd oh+kh ow+kw ic",
                                        "kd kh kw ic cm", "n od oh ow ic cm"),
}


def _pooling_specs() -> Dict[str, NamedSpec]:
    layouts = {  # layout: (dims, input, window, output)
        "nhwc": ("n oh ow c kh kw", "n oh+kh ow+kw c", "kh kw", "n oh ow c"),
        "nchw": ("n c oh ow kh kw", "n c oh+kh ow+kw", "kh kw", "n c oh ow"),
        "nwc": ("n ow c kw", "n ow+kw c", "kw", "n ow c"),
        "ncw": ("n c ow kw", "n c ow+kw", "kw", "n c ow"),
        "ndhwc": ("n od oh ow c kd kh kw", "n od+kd oh+kh ow+kw c", "kd kh kw", "n od oh ow c"),
    }
    variants = {  # op name suffix: (body, unsigned, layouts that have it)
        "sum": ("sum", False, ("nhwc", "nchw", "nwc", "ncw", "ndhwc")),
        "max": ("max", False, ("nhwc", "nchw", "nwc", "ncw", "ndhwc")),
        "max_unsigned": ("max", True, ("nhwc", "nwc")),
        "min": ("min", False, ("nhwc", "nwc", "ndhwc")),
        "min_unsigned": ("min", True, ("nhwc", "nwc")),
    }
    out = {}
    for suffix, (body, unsigned, lays) in variants.items():
        for lay in lays:
            dims, i, k, o = layouts[lay]
            out[f"pooling_{lay}_{suffix}"] = _s(dims, i, k, o, body=body, unsigned=unsigned)
    return out


POOLINGS = _pooling_specs()
NAMED_SPECS: Dict[str, NamedSpec] = {**CONTRACTIONS, **CONVOLUTIONS, **POOLINGS}

# Ops that carry an explicit ``indexing_maps`` attribute (ODS-defined upstream).
MAPS_ATTR_OPS = ("matmul", "batch_matmul", "batch_reduce_matmul")

# Rank-polymorphic elementwise named ops: name → OpDSL function.
ELEMENTWISE_UNARY = ("exp", "log", "abs", "ceil", "floor", "negf", "reciprocal", "round",
                     "sqrt", "rsqrt", "square", "tanh", "erf")
ELEMENTWISE_BINARY = {"add": "add", "sub": "sub", "mul": "mul", "div": "div",
                      "div_unsigned": "div_unsigned", "max": "max_signed", "min": "min_signed",
                      "powf": "powf"}
ELEMENTWISE = ELEMENTWISE_UNARY + tuple(ELEMENTWISE_BINARY) + ("select",)

# Named ops parsed by the common "ins(..) outs(..) -> types" parser with a built region.
NAMED_OPS = tuple(NAMED_SPECS) + ELEMENTWISE + ("fill", "copy")
DST_STYLE_OPS = ("transpose", "broadcast", "reduce", "map")
STRUCTURED_OPS = frozenset(f"linalg.{n}" for n in NAMED_OPS + DST_STYLE_OPS + ("generic",))


# =================================================================== attributes
def iterator_attr(kind: str) -> OpaqueAttr:
    """``#linalg.iterator_type<parallel>`` (kind 'parallel' | 'reduction')."""
    return OpaqueAttr(f"#linalg.iterator_type<{kind}>")


def iterator_name(a: Attribute) -> str:
    """'parallel' | 'reduction' from an iterator_types element (opaque attr or string)."""
    if isinstance(a, StringAttr):
        return a.value
    text = str(a)
    return text[text.index("<") + 1: text.rindex(">")].strip() if "<" in text else text


def maps_attr(maps: Sequence[AffineMap]) -> ArrayAttr:
    """ArrayAttr of AffineMapAttr (the ``indexing_maps`` attribute)."""
    return ArrayAttr(tuple(AffineMapAttr(m) for m in maps))


def element_type(t: T.Type) -> T.Type:
    """Element type of a shaped type; a scalar type itself."""
    return t.element_type if isinstance(t, T.ShapedType) else t


def int_list(a: Optional[Attribute], n: int, default: int = 1) -> List[int]:
    """Values of a ``strides``/``dilations`` attribute (dense elements or array)."""
    if a is None:
        return [default] * n
    if isinstance(a, DenseElementsAttr):
        vals = a.int_list()
    elif isinstance(a, (DenseArrayAttr, ArrayAttr)):
        vals = [int(getattr(x, "value", x)) for x in a.value]
    else:
        raise ValueError(f"expected an integer list attribute, got {a}")
    return vals


# ============================================================ indexing of named ops
def _scaled(e: AffineExpr, c: int) -> AffineExpr:
    return e if c == 1 else AffineBinary("*", e, AffineConst(c))


def spec_maps(spec: NamedSpec, strides: Sequence[int] = (), dilations: Sequence[int] = ()
              ) -> List[AffineMap]:
    """Indexing maps of a NamedSpec for given strides/dilations (default 1)."""
    pos = {d: i for i, d in enumerate(spec.dims)}
    nwin = spec.num_windows
    strides = list(strides) or [1] * nwin
    dilations = list(dilations) or [1] * nwin
    maps = []
    for operand in spec.operands:
        exprs, w = [], 0
        for tok in operand.split():
            if "+" in tok:
                out_dim, win_dim = tok.split("+")
                exprs.append(AffineBinary("+", _scaled(AffineDim(pos[out_dim]), strides[w]),
                                          _scaled(AffineDim(pos[win_dim]), dilations[w])))
                w += 1
            else:
                exprs.append(AffineDim(pos[tok]))
        maps.append(AffineMap(len(spec.dims), 0, tuple(exprs)))
    return maps


def spec_iterators(spec: NamedSpec) -> List[str]:
    """'parallel' for dims indexing the output, 'reduction' for the others."""
    out_dims = set(spec.operands[-1].split())
    return [PARALLEL if d in out_dims else REDUCTION for d in spec.dims]


def _identity_or_scalar(t: T.Type, n: int) -> AffineMap:
    if isinstance(t, T.ShapedType) and t.rank == n:
        return AffineMap.identity(n)
    return AffineMap(n, 0, ())


def _short(op_or_name) -> str:
    name = op_or_name if isinstance(op_or_name, str) else op_or_name.name
    return name[len("linalg."):] if name.startswith("linalg.") else name


def default_maps(short_name: str) -> List[AffineMap]:
    """Upstream's default ``indexing_maps`` of matmul-like ODS ops."""
    return spec_maps(NAMED_SPECS[short_name])
