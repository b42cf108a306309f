"""linalg dialect: structured ops on tensors and memrefs, plus helpers passes use.

Pretty syntax as mlir-opt prints it (https://mlir.llvm.org/docs/Dialects/Linalg/; printing
and parsing follow LinalgOps.cpp upstream):

    %0 = linalg.generic {indexing_maps = [...], iterator_types = ["parallel", "reduction"]}
           ins(%a : tensor<4x8xf32>) outs(%b : tensor<4xf32>) attrs =  {extra} {
         ^bb0(%in: f32, %out: f32):
           ...
           linalg.yield %v : f32
         } -> tensor<4xf32>
    %1 = linalg.matmul {attr} ins(%a, %b : ...) outs(%c : ...) -> tensor<4x4xf32>
    %2 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = ...} ins(..) outs(..) -> ..
    %3 = linalg.transpose ins(%a : ..) outs(%b : ..) permutation = [1, 0] 
    %4 = linalg.broadcast ins(%a : ..) outs(%b : ..) dimensions = [0, 2] 
    %5 = linalg.reduce { arith.addf } ins(%a : ..) outs(%b : ..) dimensions = [1] 
    %6 = linalg.map { math.exp } ins(%a : ..) outs(%b : ..)
    linalg.softmax dimension(1) ins(..) outs(..) -> ..;  linalg.pack / linalg.unpack;
    linalg.index 0 : index;  linalg.yield %v : f32

(transpose / broadcast / reduce print a trailing space after ``[...]``, as upstream does.)

IR form, equal to parsing ``mlir-opt --mlir-print-op-generic`` output:
- generic: ``indexing_maps`` = ArrayAttr of AffineMapAttr, ``iterator_types`` = ArrayAttr of
  OpaqueAttr ``#linalg.iterator_type<parallel|reduction>``, ``operandSegmentSizes``.
- named ops (matmul, conv, pooling, fill, copy, elementwise ...): ``operandSegmentSizes`` and
  a payload region built as upstream's region builders do (matmul: ``mulf`` then
  ``addf %out, %mul``; casts to the output element type where types differ). matmul,
  batch_matmul and batch_reduce_matmul also carry ``indexing_maps`` (printed only when not
  the default).
- transpose / broadcast / reduce / map carry ``permutation`` / ``dimensions`` and their
  region but no ``operandSegmentSizes`` (upstream parses them without it).

Helpers for passes: :func:`is_linalg_structured`, :func:`inputs`, :func:`outputs`,
:func:`indexing_maps`, :func:`iterator_types`, :func:`loop_ranges`, :func:`build_generic`.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Dict, List, Optional, Sequence, Tuple, Union

from ..ir import types as T
from ..ir import verifier as V
from ..ir.affine import AffineBinary, AffineConst, AffineDim, AffineExpr, AffineMap
from ..ir.attributes import (AffineMapAttr, ArrayAttr, Attribute, DenseArrayAttr,
                             DenseElementsAttr, IntegerAttr, OpaqueAttr, StringAttr)
from ..ir.core import Block, Builder, Operation, Region, Value
from ..ir.diagnostics import CompileError
from .arith import ScalarBuilder
from .registry import register
from .syntax import parse_terminator, print_terminator
from .tensor import (dynamic_index_list_str, i64_array, parse_dynamic_index_list,
                     segment_sizes, split_segments)

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
    "conv_2d_nchw_fchw": _s("n f oh ow c kh kw", "n c oh+kh ow+kw", "f c kh kw", "n f oh ow"),
    "conv_2d_ngchw_fgchw": _s("n g fg oh ow c kh kw", "n g c oh+kh ow+kw", "g fg c kh kw",
                              "n g fg oh ow"),
    "conv_3d_ndhwc_dhwcf": _s("n od oh ow f kd kh kw c", "n od+kd oh+kh ow+kw c",
                              "kd kh kw c f", "n od oh ow f"),
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


# ==================================================================== op helpers
def is_linalg_structured(op: Operation) -> bool:
    """True for linalg.generic and the named structured ops (LinalgOp interface)."""
    return op.name in STRUCTURED_OPS


def is_named_structured(op: Operation) -> bool:
    """A structured op other than linalg.generic (what generalization rewrites)."""
    return op.name in STRUCTURED_OPS and op.name != "linalg.generic"


def _num_inputs(op: Operation) -> int:
    seg = op.attributes.get("operandSegmentSizes")
    if seg is not None:
        return seg.value[0]
    if op.name == "linalg.reduce":
        return len(op.operands) // 2
    return len(op.operands) - 1


def inputs(op: Operation) -> List[Value]:
    """The ``ins(...)`` operands of a structured op."""
    return list(op.operands[: _num_inputs(op)])


def outputs(op: Operation) -> List[Value]:
    """The ``outs(...)`` (init) operands of a structured op."""
    return list(op.operands[_num_inputs(op):])


def payload(op: Operation) -> Block:
    """The body block of a structured op (named ops have one too)."""
    return op.regions[0].blocks[0]


def indexing_maps(op: Operation) -> List[AffineMap]:
    """One AffineMap per operand (inputs then outputs), from the loop dims to the operand's
    indices. Named ops use their upstream definitions (with strides/dilations)."""
    maps = op.attributes.get("indexing_maps")
    if maps is not None:
        if not isinstance(maps, ArrayAttr) or not all(isinstance(m, AffineMapAttr) for m in maps):
            raise CompileError(f"'{op.name}' op attribute 'indexing_maps' must be an array of "
                               "affine maps", op.loc)
        return [m.value for m in maps]
    short = _short(op)
    ins, outs = inputs(op), outputs(op)
    if short in NAMED_SPECS:
        spec = NAMED_SPECS[short]
        n = spec.num_windows
        return spec_maps(spec, int_list(op.attributes.get("strides"), n),
                         int_list(op.attributes.get("dilations"), n))
    if short in ELEMENTWISE or short in ("fill", "copy", "map"):
        rank = outs[0].type.rank
        return [_identity_or_scalar(v.type, rank) for v in ins + outs]
    if short == "transpose":
        perm = list(op.attributes["permutation"].value)
        inverse = [perm.index(i) for i in range(len(perm))]
        return [AffineMap.from_dims(len(perm), inverse), AffineMap.identity(len(perm))]
    if short == "broadcast":
        rank = outs[0].type.rank
        dims = set(op.attributes["dimensions"].value)
        kept = [d for d in range(rank) if d not in dims]
        return [AffineMap.from_dims(rank, kept), AffineMap.identity(rank)]
    if short == "reduce":
        rank = ins[0].type.rank
        dims = set(op.attributes["dimensions"].value)
        kept = [d for d in range(rank) if d not in dims]
        return ([AffineMap.identity(rank)] * len(ins)
                + [AffineMap.from_dims(rank, kept)] * len(outs))
    if short == "generic":
        op.attributes["indexing_maps"]  # absent: a located "requires attribute" error
    raise CompileError(f"'{op.name}' is not a structured linalg op", op.loc)


def iterator_types(op: Operation) -> List[str]:
    """'parallel' / 'reduction' per loop dim."""
    its = op.attributes.get("iterator_types")
    if its is not None:
        return [iterator_name(a) for a in its]
    short = _short(op)
    if short in NAMED_SPECS:
        return spec_iterators(NAMED_SPECS[short])
    if short == "reduce":
        dims = set(op.attributes["dimensions"].value)
        return [REDUCTION if d in dims else PARALLEL for d in range(inputs(op)[0].type.rank)]
    return [PARALLEL] * indexing_maps(op)[0].num_dims


def loop_ranges(op: Operation) -> List[Optional[int]]:
    """Static size of each loop dim, read from operand shapes through the maps where an
    index is a plain dim (None where no static shape gives it)."""
    maps = indexing_maps(op)
    ranges: List[Optional[int]] = [None] * (maps[0].num_dims if maps else 0)
    for v, m in zip(op.operands, maps):
        shape = getattr(v.type, "shape", None)
        if not shape:
            continue
        for i, e in enumerate(m.results):
            if isinstance(e, AffineDim) and ranges[e.pos] is None and shape[i] is not None:
                ranges[e.pos] = shape[i]
    return ranges


def is_pure_broadcast(op: Operation) -> bool:
    """A ``linalg.broadcast``, or a ``linalg.generic`` that only broadcasts: all loops
    parallel, the payload a bare ``linalg.yield``, an input map dropping dims or reading a unit
    dim at 0 (IREE's broadcast-like ops: cheaper recomputed in a consumer than stored
    expanded)."""
    if op.name == "linalg.broadcast":
        return True
    if op.name != "linalg.generic":
        return False
    if any(it != PARALLEL for it in iterator_types(op)) or payload(op).ops[0].name != "linalg.yield":
        return False
    maps = indexing_maps(op)[:len(inputs(op))]
    return any(m.is_projected_permutation() and (m.num_dims != len(m.results) or not all(
        isinstance(e, AffineDim) for e in m.results)) for m in maps)


def tensor_results(values: Sequence[Value]) -> List[T.Type]:
    """Result types of a destination-style op: its ranked-tensor inits."""
    return [v.type for v in values if isinstance(v.type, T.TensorType) and v.type.shape is not None]


BodyFn = Callable[[ScalarBuilder, List[Value]], Sequence[Value]]


def build_generic(ins: Sequence[Value], outs: Sequence[Value], maps: Sequence[AffineMap],
                  iterators: Sequence[str], body: Union[Region, BodyFn],
                  result_types: Optional[Sequence[T.Type]] = None,
                  attrs: Optional[Dict[str, Attribute]] = None, loc=None,
                  builder: Optional[Builder] = None) -> Operation:
    """A new ``linalg.generic`` over ``ins``/``outs`` with one map per operand and one
    iterator kind ('parallel' | 'reduction') per loop dim.

    ``body`` is a Region to adopt, or ``fn(sb, args) -> yielded values`` where ``args`` are
    the block arguments (element types of ``ins`` then ``outs``) and ``sb`` a ScalarBuilder
    appending to the block; ``linalg.yield`` is added after it. ``result_types`` defaults to
    the ranked-tensor ``outs``. With ``builder`` the op is inserted at its insertion point;
    otherwise it is returned unattached.
    """
    a = {"indexing_maps": maps_attr(maps),
         "iterator_types": ArrayAttr(tuple(iterator_attr(k) for k in iterators))}
    a.update(attrs or {})
    a["operandSegmentSizes"] = segment_sizes(len(ins), len(outs))
    if loc is None and builder is not None:
        loc = builder.loc
    if isinstance(body, Region):
        region = body
    else:
        block = Block([element_type(v.type) for v in list(ins) + list(outs)])
        sb = ScalarBuilder(block, loc)
        sb.yield_(body(sb, list(block.args)))
        region = Region([block])
    if result_types is None:
        result_types = tensor_results(outs)
    op = Operation("linalg.generic", list(ins) + list(outs), list(result_types), a,
                   regions=[region], loc=loc)
    return builder.insert(op) if builder is not None else op


make_generic = build_generic  # the name used in the design notes


# =============================================================== payload builders
def _cast_attr_unsigned(attrs: Dict[str, Attribute]) -> bool:
    c = attrs.get("cast")
    return c is not None and "cast_unsigned" in str(c)


def _build_named_body(short: str, sb: ScalarBuilder, args: List[Value],
                      attrs: Dict[str, Attribute]) -> List[Value]:
    """Scalar payload of named op ``short`` (upstream region builders)."""
    out = args[-1]
    u = out.type
    if short in NAMED_SPECS:
        spec = NAMED_SPECS[short]
        unsigned = spec.unsigned or _cast_attr_unsigned(attrs)
        if spec.body == "mac":
            a = sb.cast(args[0], u, unsigned)
            b = sb.cast(args[1], u, unsigned)
            return [sb.binary("add", out, sb.binary("mul", a, b))]
        if spec.body == "qmac":
            lhs = sb.binary("sub", sb.cast(args[0], u), sb.cast(args[2], u))
            rhs = sb.binary("sub", sb.cast(args[1], u), sb.cast(args[3], u))
            return [sb.binary("add", out, sb.binary("mul", lhs, rhs))]
        value = sb.cast(args[0], u, unsigned)
        if spec.body == "sum":
            return [sb.binary("add", out, value)]
        fn = f"{spec.body}_{'unsigned' if unsigned else 'signed'}"
        return [sb.binary(fn, out, value)]
    if short in ("fill", "copy"):
        return [sb.cast(args[0], u, _cast_attr_unsigned(attrs))]
    if short in ELEMENTWISE_UNARY:
        return [sb.unary(short, args[0])]
    if short in ELEMENTWISE_BINARY:
        return [sb.binary(ELEMENTWISE_BINARY[short], args[0], args[1])]
    if short == "select":
        return [sb.select(args[0], args[1], args[2])]
    raise ValueError(f"no payload builder for linalg.{short}")


def build_named_region(short: str, in_types: Sequence[T.Type], out_types: Sequence[T.Type],
                       attrs: Dict[str, Attribute], loc=None) -> Region:
    """The region upstream attaches to named op ``linalg.<short>`` for these operand types."""
    block = Block([element_type(t) for t in list(in_types) + list(out_types)])
    sb = ScalarBuilder(block, loc)
    sb.yield_(_build_named_body(short, sb, list(block.args), attrs))
    return Region([block])


def identity_region(types: Sequence[T.Type]) -> Region:
    """Block with one argument per operand element type, yielding the first (transpose,
    broadcast, copy-like ops)."""
    block = Block([element_type(t) for t in types])
    block.append(Operation("linalg.yield", [block.args[0]]))
    return Region([block])


# ======================================================================= syntax
def _parse_ins_outs(p):
    """``ins(%a, %b : t1, t2)? outs(%c : t3)?`` → (input values, output values)."""
    groups = []
    for kw in ("ins", "outs"):
        vals = []
        if p.try_keyword(kw):
            p.expect("(")
            refs = p.parse_operand_list()
            types = p.parse_colon_type_list() if refs else []
            p.expect(")")
            vals = p.resolve_list(refs, types)
        groups.append(vals)
    return groups[0], groups[1]


def _ins_outs_str(pr, ins: Sequence[Value], outs: Sequence[Value]) -> str:
    s = ""
    for kw, vals in (("ins", ins), ("outs", outs)):
        if vals:
            s += (f" {kw}(" + ", ".join(pr.name_of(v) for v in vals) + " : "
                  + ", ".join(str(v.type) for v in vals) + ")")
    return s


def _parse_arrow_types(p) -> List[T.Type]:
    if not p.try_punct("->"):
        return []
    return p.parse_type_list_parens() if p.peek("(") else [p.parse_type()]


def _arrow_types_str(types: Sequence[T.Type]) -> str:
    if not types:
        return ""
    if len(types) == 1 and not isinstance(types[0], T.FunctionType):
        return f" -> {types[0]}"
    return " -> (" + ", ".join(str(t) for t in types) + ")"


def _parse_int_array(p) -> DenseArrayAttr:
    """``[1, 0]`` (a DenseI64ArrayAttr in custom syntax)."""
    vals = []
    p.expect("[")
    if not p.try_punct("]"):
        while True:
            vals.append(p.parse_integer())
            if not p.try_punct(","):
                break
        p.expect("]")
    return i64_array(vals)


def _int_array_str(a: DenseArrayAttr) -> str:
    return "[" + ", ".join(str(int(v)) for v in a.value) + "]"


# ------------------------------------------------------------------- generic
GENERIC_TRAIT_ATTRS = ("doc", "indexing_maps", "iterator_types", "library_call")


def _parse_generic(p, name, loc):
    attrs = p.parse_attr_dict()
    its = attrs.get("iterator_types")
    if isinstance(its, ArrayAttr):
        attrs["iterator_types"] = ArrayAttr(tuple(
            iterator_attr(a.value) if isinstance(a, StringAttr) else a for a in its))
    attrs.update(p.parse_optional_attr_dict())
    ins, outs = _parse_ins_outs(p)
    if p.try_keyword("attrs"):
        p.expect("=")
        attrs.update(p.parse_optional_attr_dict())
    region = p.parse_region()
    result_types = _parse_arrow_types(p)
    attrs["operandSegmentSizes"] = segment_sizes(len(ins), len(outs))
    return Operation(name, ins + outs, result_types, attrs, regions=[region], loc=loc)


def _print_generic(pr, op):
    a = op.attributes
    trait = []
    for k in sorted(GENERIC_TRAIT_ATTRS):
        if k not in a:
            continue
        v = a[k]
        if k == "iterator_types":
            trait.append(k + " = [" + ", ".join(f'"{iterator_name(x)}"' for x in v) + "]")
        else:
            trait.append(f"{k} = {v}")
    if trait:
        pr.write(" {" + ", ".join(trait) + "}")
    ins, outs = inputs(op), outputs(op)
    pr.write(_ins_outs_str(pr, ins, outs))
    elided = GENERIC_TRAIT_ATTRS + ("operandSegmentSizes",)
    if any(k not in elided for k in a):
        pr.write(" attrs = ")
        pr.print_attr_dict(a, elided=elided)
    if op.regions and op.regions[0].blocks:
        pr.write(" ")
        pr.print_region(op.regions[0])
    pr.write(_arrow_types_str(op.result_types))


# ---------------------------------------------------------------- named ops
_NAMED_ELIDED = ("operandSegmentSizes", "linalg.memoized_indexing_maps")


def _parse_named(p, name, loc):
    short = _short(name)
    attrs: Dict[str, Attribute] = {}
    if short in MAPS_ATTR_OPS and p.try_keyword("indexing_maps"):
        p.expect("=")
        attrs["indexing_maps"] = p.parse_attribute()
    attrs.update(p.parse_optional_attr_dict())
    ins, outs = _parse_ins_outs(p)
    attrs.update(p.parse_optional_attr_dict())
    result_types = _parse_arrow_types(p)
    if short in MAPS_ATTR_OPS and "indexing_maps" not in attrs:
        attrs["indexing_maps"] = maps_attr(default_maps(short))
    attrs["operandSegmentSizes"] = segment_sizes(len(ins), len(outs))
    try:
        region = build_named_region(short, [v.type for v in ins], [v.type for v in outs], attrs,
                                    loc)
    except (ValueError, IndexError, KeyError) as e:
        raise p.error(f"cannot build the body of linalg.{short}: {e}", loc) from None
    return Operation(name, ins + outs, result_types, attrs, regions=[region], loc=loc)


def _print_named(pr, op):
    short = _short(op)
    elided = _NAMED_ELIDED
    if short in MAPS_ATTR_OPS:
        elided = elided + ("indexing_maps",)
        maps = op.attributes.get("indexing_maps")
        if maps is not None and maps != maps_attr(default_maps(short)):
            pr.write(f" indexing_maps = {maps}")
    pr.print_attr_dict(op.attributes, elided=elided)
    pr.write(_ins_outs_str(pr, inputs(op), outputs(op)))
    pr.write(_arrow_types_str(op.result_types))


# ------------------------------------------------------- transpose / broadcast
def _parse_dst_style(p):
    """``{attrs}? ins(..) outs(..)``; results are the ranked-tensor inits."""
    attrs = p.parse_optional_attr_dict()
    ins, outs = _parse_ins_outs(p)
    return attrs, ins, outs, tensor_results(outs)


def _make_identity_op(attr_name: str):
    def parse(p, name, loc):
        attrs, ins, outs, rts = _parse_dst_style(p)
        p.expect_keyword(attr_name)
        p.expect("=")
        attrs[attr_name] = _parse_int_array(p)
        attrs.update(p.parse_optional_attr_dict())
        region = identity_region([v.type for v in ins + outs])
        return Operation(name, ins + outs, rts, attrs, regions=[region], loc=loc)

    def print_(pr, op):
        pr.write(_ins_outs_str(pr, inputs(op), outputs(op)))
        pr.write(f" {attr_name} = {_int_array_str(op.attributes[attr_name])} ")
        pr.print_attr_dict(op.attributes, elided=(attr_name,))

    return parse, print_


# -------------------------------------------------------------- map / reduce
def _parse_short_form(p):
    """``{ op.name {attrs}? }`` before ins/outs; returns (name, attrs) or None."""
    if not p.try_punct("{"):
        return None
    loc = p.loc()
    opname = p.parse_bare_id("payload operation name")
    if "." not in opname:
        raise p.error("expected a dialect-qualified payload op name", loc)
    attrs = p.parse_optional_attr_dict()
    p.expect("}")
    return opname, attrs


def _payload_region(ins, outs, opname, attrs, init_first: bool, loc) -> Region:
    """Body of the short form: one payload op on all block args, then linalg.yield."""
    args_from = list(ins) + (list(outs) if init_first else [])
    block = Block([element_type(v.type) for v in args_from])
    args = list(block.args)
    if init_first:  # reduce: payload(init, inputs...)
        args = [args[-1]] + args[:-1]
    pay = block.append(Operation(opname, args, [element_type(outs[-1].type)], attrs, loc=loc))
    block.append(Operation("linalg.yield", list(pay.results), loc=loc))
    return Region([block])


def _parse_long_form_region(p) -> Region:
    """``(%a: f32, %b: f32) { ... }``."""
    p.expect("(")
    entry = []
    if not p.try_punct(")"):
        while True:
            ref = p.parse_operand()
            p.expect(":")
            entry.append((ref, p.parse_type()))
            p.parse_optional_attr_dict()
            if not p.try_punct(","):
                break
        p.expect(")")
    return p.parse_region(entry_args=entry)


def find_payload_op(block: Block, result_type: T.Type, init_first: bool = False
                    ) -> Optional[Operation]:
    """The single payload op of a map/reduce body eligible for the short form, else None.

    Upstream ``findPayloadOp``; additionally the yield must return the payload's only
    result, of the init element type, and the payload must have no regions, so that the
    short form parses back to the same body (see :func:`_payload_region`).
    """
    if len(block.ops) != 2:
        return None
    pay, yld = block.ops
    args = list(block.args)
    if not pay.operands or len(pay.operands) != len(args) or pay.regions:
        return None
    expected = [args[-1]] + args[:-1] if init_first else args
    if list(pay.operands) != expected or list(yld.operands) != list(pay.results):
        return None
    if len(pay.results) != 1 or pay.results[0].type != result_type:
        return None
    return pay


def _print_short_form(pr, pay: Operation) -> None:
    """`` { arith.addf {attrs} }`` (a ``fastmath<none>`` attribute is left out)."""
    attrs = {k: v for k, v in pay.attributes.items()
             if not (k == "fastmath" and str(v) == "#arith.fastmath<none>")}
    pr.write(f" {{ {pay.name}")
    pr.print_attr_dict(attrs)
    pr.write(" }")


def _long_form_region(pr, region: Region) -> None:
    block = region.blocks[0]
    pr.name_block_args(block)
    pr.indent += 1
    pr.newline()
    pr.write("(" + ", ".join(f"{pr.name_of(a)}: {a.type}" for a in block.args) + ") ")
    pr.print_region(region, print_entry_block_args=False)
    pr.indent -= 1


def _parse_map(p, name, loc):
    short = _parse_short_form(p)
    attrs, ins, outs, rts = _parse_dst_style(p)
    if short is not None:
        region = _payload_region(ins, outs, short[0], short[1], False, loc)
    else:
        region = _parse_long_form_region(p)
    return Operation(name, ins + outs, rts, attrs, regions=[region], loc=loc)


def _print_map(pr, op):
    pay = find_payload_op(payload(op), element_type(outputs(op)[0].type))
    if pay is not None:
        _print_short_form(pr, pay)
    pr.write(_ins_outs_str(pr, inputs(op), outputs(op)))
    pr.print_attr_dict(op.attributes)
    if pay is None:
        _long_form_region(pr, op.regions[0])


def _parse_reduce(p, name, loc):
    short = _parse_short_form(p)
    attrs, ins, outs, rts = _parse_dst_style(p)
    p.expect_keyword("dimensions")
    p.expect("=")
    attrs["dimensions"] = _parse_int_array(p)
    attrs.update(p.parse_optional_attr_dict())
    if short is not None:
        region = _payload_region(ins, outs, short[0], short[1], True, loc)
    else:
        region = _parse_long_form_region(p)
    return Operation(name, ins + outs, rts, attrs, regions=[region], loc=loc)


def _print_reduce(pr, op):
    pay = find_payload_op(payload(op), element_type(outputs(op)[-1].type), init_first=True)
    if pay is not None:
        _print_short_form(pr, pay)
    pr.write(_ins_outs_str(pr, inputs(op), outputs(op)))
    pr.write(f" dimensions = {_int_array_str(op.attributes['dimensions'])} ")
    pr.print_attr_dict(op.attributes, elided=("dimensions",))
    if pay is None:
        _long_form_region(pr, op.regions[0])


# ----------------------------------------------------------------- softmax
def _parse_softmax(p, name, loc):
    attrs = p.parse_optional_attr_dict()
    p.expect_keyword("dimension")
    p.expect("(")
    attrs["dimension"] = IntegerAttr(p.parse_integer(), T.i64)
    p.expect(")")
    ins, outs = _parse_ins_outs(p)
    return Operation(name, ins + outs, _parse_arrow_types(p), attrs, loc=loc)


def _print_softmax(pr, op):
    pr.print_attr_dict(op.attributes, elided=("dimension",))
    pr.write(f" dimension({op.attributes['dimension'].value})")
    pr.write(_ins_outs_str(pr, op.operands[:1], op.operands[1:]))
    pr.write(_arrow_types_str(op.result_types))


# ------------------------------------------------------------ pack / unpack
def _parse_pack(p, name, loc):
    """``%src padding_value(%p : t)? outer_dims_perm = [..]? inner_dims_pos = [..]
    inner_tiles = [..] into %dest attr-dict : t -> t2`` (padding only for pack)."""
    is_pack = name.endswith(".pack")
    src = p.parse_operand()
    attrs: Dict[str, Attribute] = {}
    pad = None
    if is_pack and p.try_keyword("padding_value"):
        p.expect("(")
        ref = p.parse_operand()
        p.expect(":")
        pad = p.resolve(ref, p.parse_type())
        p.expect(")")
    if p.try_keyword("outer_dims_perm"):
        p.expect("=")
        attrs["outer_dims_perm"] = _parse_int_array(p)
    p.expect_keyword("inner_dims_pos")
    p.expect("=")
    attrs["inner_dims_pos"] = _parse_int_array(p)
    p.expect_keyword("inner_tiles")
    p.expect("=")
    static, refs = parse_dynamic_index_list(p)
    attrs["static_inner_tiles"] = i64_array(static)
    p.expect_keyword("into")
    dest = p.parse_operand()
    attrs.update(p.parse_optional_attr_dict())
    p.expect(":")
    st = p.parse_type()
    p.expect("->")
    dt = p.parse_type()
    tiles = p.resolve_list(refs, [T.index] * len(refs))
    operands = [p.resolve(src, st), p.resolve(dest, dt)] + ([pad] if pad is not None else []) + tiles
    if is_pack:
        attrs["operandSegmentSizes"] = segment_sizes(1, 1, 1 if pad is not None else 0, len(tiles))
    return Operation(name, operands, tensor_results(operands[1:2]), attrs, loc=loc)


def _print_pack(pr, op):
    a = op.attributes
    if "operandSegmentSizes" in a:
        _, _, pad, tiles = split_segments(op)
    else:
        pad, tiles = [], op.operands[2:]
    pr.write(" " + pr.name_of(op.operands[0]))
    if pad:
        pr.write(f" padding_value({pr.name_of(pad[0])} : {pad[0].type})")
    if "outer_dims_perm" in a:
        pr.write(f" outer_dims_perm = {_int_array_str(a['outer_dims_perm'])}")
    pr.write(f" inner_dims_pos = {_int_array_str(a['inner_dims_pos'])}")
    pr.write(" inner_tiles = " + dynamic_index_list_str(pr, a["static_inner_tiles"].value, tiles))
    pr.write(f" into {pr.name_of(op.operands[1])}")
    pr.print_attr_dict(a, elided=("outer_dims_perm", "inner_dims_pos", "static_inner_tiles",
                                  "operandSegmentSizes"))
    pr.write(f" : {op.operands[0].type} -> {op.operands[1].type}")


# --------------------------------------------------------------- index / yield
def _parse_index(p, name, loc):
    dim = p.parse_integer()
    attrs = p.parse_optional_attr_dict()
    p.expect(":")
    t = p.parse_type()
    return Operation(name, [], [t], {"dim": IntegerAttr(dim, T.i64), **attrs}, loc=loc)


def _print_index(pr, op):
    pr.write(f" {op.attributes['dim'].value}")
    pr.print_attr_dict(op.attributes, elided=("dim",))
    pr.write(f" : {op.results[0].type}")


# ================================================================ registration
# Structured ops are not registered "pure": on memrefs they write their outputs.
# ------------------------------------------------------------------ verifiers
# Ops whose loops come from an i64 array attribute.
_DIMS_ATTR = {"transpose": "permutation", "broadcast": "dimensions", "reduce": "dimensions"}


def _verify_structured(op: Operation) -> None:
    """LinalgOp interface checks (upstream ``verifyStructuredOpInterface``): one indexing
    map per operand, each over all loops and with as many results as the operand's rank;
    loop sizes read through the maps agree between operands (a matmul's inner dims);
    tensor results typed as their inits. For linalg.generic/reduce/map also the payload:
    block arguments and ``linalg.yield`` operands typed as the operands' elements."""
    seg = op.attributes.get("operandSegmentSizes")
    if seg is not None and (not isinstance(seg, DenseArrayAttr) or sum(seg.value) != len(op.operands)):
        raise V.op_error(op, "operand count does not match its 'operandSegmentSizes'")
    if len(op.operands) < 1:
        raise V.op_error(op, "expected at least one init operand")
    maps_attr = op.attributes.get("indexing_maps")
    if maps_attr is not None and (not isinstance(maps_attr, ArrayAttr) or not all(
            isinstance(m, AffineMapAttr) for m in maps_attr)):
        raise V.op_error(op, "attribute 'indexing_maps' failed to satisfy constraint: array of "
                             "affine maps")
    its_attr = op.attributes.get("iterator_types")
    if op.name == "linalg.generic" and (maps_attr is None or its_attr is None):
        raise V.op_error(op, f"requires attribute '{'indexing_maps' if maps_attr is None else 'iterator_types'}'")
    dims_attr = _DIMS_ATTR.get(_short(op))
    if dims_attr is not None and not isinstance(op.attributes.get(dims_attr), DenseArrayAttr):
        raise V.op_error(op, f"requires attribute '{dims_attr}'")
    ins, outs = inputs(op), outputs(op)
    if op.name == "linalg.transpose":
        perm = list(op.attributes["permutation"].value)
        if sorted(perm) != list(range(len(perm))):
            raise V.op_error(op, "permutation is not valid")
    for v in ins + outs:
        if isinstance(v.type, T.ShapedType) and v.type.shape is None:
            return  # unranked: nothing to check statically
    try:
        maps = indexing_maps(op)
        its = iterator_types(op)
    except (ValueError, IndexError, KeyError, AttributeError, TypeError):
        raise V.op_error(op, "has malformed indexing maps or iterator types") from None
    if len(maps) != len(op.operands):
        raise V.op_error(op, f"expected the number of indexing_map ({len(maps)}) to be equal to "
                             f"the number of input/output operands ({len(op.operands)})")
    for i, (v, m) in enumerate(zip(op.operands, maps)):
        if m.num_dims != len(its):
            raise V.op_error(op, f"expected indexing_map #{i} to have {len(its)} dim(s) to match "
                                 f"the number of loops")
        rank = len(V.shape_of(v.type))
        if len(m.results) != rank:
            raise V.op_error(op, f"expected operand rank ({rank}) to match the result rank of "
                                 f"indexing_map #{i} ({len(m.results)})")
    sizes: List[Optional[int]] = [None] * len(its)
    # A distributed op after bufferization (``ireec.distribute``) describes every workgroup's
    # tile at once: its workgroup-local scratch buffers already have the tile's shape while
    # the bindings keep the full one, until convert-linalg-to-loops tiles it.
    distributed = "ireec.distribute" in op.attributes and any(
        isinstance(v.type, T.MemRefType) for v in op.operands)
    for i, (v, m) in enumerate(zip(op.operands, maps) if not distributed else ()):
        shape = V.shape_of(v.type)
        for j, e in enumerate(m.results):
            if not isinstance(e, AffineDim) or shape[j] is None or e.pos >= len(sizes):
                continue
            if sizes[e.pos] is None:
                sizes[e.pos] = shape[j]
            elif sizes[e.pos] != shape[j]:
                raise V.op_error(op, f"inferred input/output operand #{i} has shape's dimension "
                                     f"#{j} to be {sizes[e.pos]}, but found {shape[j]}")
    tensor_outs = [v for v in outs if isinstance(v.type, T.TensorType)]
    if len(op.results) != len(tensor_outs):
        raise V.op_error(op, f"expected {len(tensor_outs)} results (one per tensor init), but "
                             f"found {len(op.results)}")
    for k, (r, v) in enumerate(zip(op.results, tensor_outs)):
        if not V.compatible_types(r.type, v.type):
            raise V.op_error(op, f"expected type of init #{k} ({V.type_str(v.type)}) to match "
                                 f"the type of the corresponding result ({V.type_str(r.type)})")
    if op.name in ("linalg.generic", "linalg.reduce", "linalg.map") or (
            op.regions and op.regions[0].blocks):
        _verify_payload(op, ins, outs)


def _verify_pack(op: Operation) -> None:
    """``inner_dims_pos`` distinct dims of the unpacked tensor, one inner tile each;
    ``outer_dims_perm`` a permutation of them (upstream ``commonVerifierPackAndUnPackOp``)."""
    unpacked = op.operands[0] if op.name.endswith(".pack") else (op.operands[1] if len(op.operands) > 1 else None)
    shape = V.shape_of(unpacked.type) if unpacked is not None else None
    if shape is None:
        return
    rank = len(shape)
    pos = _int_list(op, "inner_dims_pos")
    if len(set(pos)) != len(pos) or any(not 0 <= d < rank for d in pos):
        raise V.op_error(op, f"invalid inner_dims_pos vector {pos} for a rank-{rank} tensor")
    tiles = _int_list(op, "static_inner_tiles")
    if len(tiles) != len(pos):
        raise V.op_error(op, "length of inner_dims_pos and inner_tiles must match")
    perm = _int_list(op, "outer_dims_perm", required=False)
    if perm and sorted(perm) != list(range(rank)):
        raise V.op_error(op, f"invalid outer_dims_perm vector {perm}")


def _int_list(op: Operation, name: str, required: bool = True) -> List[int]:
    a = op.attributes.get(name)
    if a is None:
        if required:
            raise V.op_error(op, f"requires attribute '{name}'")
        return []
    vals = getattr(a, "value", None)
    if not isinstance(vals, (list, tuple)) or not all(isinstance(x, int) for x in vals):
        raise V.op_error(op, f"attribute '{name}' failed to satisfy constraint: i64 dense array attribute")
    return list(vals)


def _verify_payload(op: Operation, ins: List[Value], outs: List[Value]) -> None:
    if len(op.regions) != 1 or len(op.regions[0].blocks) != 1:
        raise V.op_error(op, "expected a region with one block")
    block = op.regions[0].blocks[0]
    operands = ins if op.name == "linalg.map" else ins + outs
    if len(block.args) != len(operands):
        raise V.op_error(op, f"expected as many non-induction variable region arguments as the "
                             f"number of input/output operands ({len(operands)}), found "
                             f"{len(block.args)}")
    for i, (a, v) in enumerate(zip(block.args, operands)):
        if a.type != T.element_type(v.type) and a.type != v.type:
            raise V.op_error(op, f"expected type of bb argument #{i} ({V.type_str(a.type)}) to "
                                 f"match element or self type of the corresponding operand "
                                 f"({V.type_str(v.type)})")
    y = block.terminator
    if y is None or y.name != "linalg.yield":
        raise V.op_error(op, "expects regions to end with 'linalg.yield', found "
                             + (f"'{y.name}'" if y is not None else "an empty block"))
    if len(y.operands) != len(outs):
        raise V.op_error(y, f"expected number of yield values ({len(y.operands)}) to match the "
                            f"number of inits / outs operands of the enclosing LinalgOp "
                            f"({len(outs)})")
    for i, (yv, o) in enumerate(zip(y.operands, outs)):
        et = T.element_type(o.type)
        if yv.type != et and yv.type != o.type:
            raise V.op_error(y, f"type of yield operand {i + 1} ({V.type_str(yv.type)}) doesn't "
                                f"match the element type of the enclosing linalg.generic op "
                                f"({V.type_str(et)})")


register("linalg.generic", _parse_generic, _print_generic)
for _n in NAMED_OPS:
    register(f"linalg.{_n}", _parse_named, _print_named)
register("linalg.transpose", *_make_identity_op("permutation"))
register("linalg.broadcast", *_make_identity_op("dimensions"))
register("linalg.map", _parse_map, _print_map)
register("linalg.reduce", _parse_reduce, _print_reduce)
register("linalg.softmax", _parse_softmax, _print_softmax)
register("linalg.pack", _parse_pack, _print_pack)  # may write a memref: not "pure"
register("linalg.unpack", _parse_pack, _print_pack)
register("tensor.pack", _parse_pack, _print_pack, traits=("pure",))  # names before LLVM 21
register("tensor.unpack", _parse_pack, _print_pack, traits=("pure",))
register("linalg.index", _parse_index, _print_index, traits=("pure",))
register("linalg.yield", parse_terminator, print_terminator, traits=("terminator",))
V.register_verifiers({n: _verify_structured for n in sorted(STRUCTURED_OPS)})
V.register_verifiers({n: _verify_pack for n in ("linalg.pack", "linalg.unpack", "tensor.pack", "tensor.unpack")})
