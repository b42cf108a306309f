"""stablehlo dialect attributes: canonical spelling, builders and accessors.

``#stablehlo.dot<...>``, ``#stablehlo.conv<...>``, ``#stablehlo.gather<...>``,
``#stablehlo.scatter<...>`` and enums are :class:`OpaqueAttr` whose text is upstream's
canonical spelling (printStruct, printConvolutionDimensions), whatever spelling the input
used. Builders (:func:`dot_attr`, :func:`conv_attr`, :func:`enum_attr`, ...) make them;
accessors (:func:`dot_dimension_numbers`, :func:`conv_dimension_numbers`,
:func:`conv_window`, ...) decode them into Python data; both raise ``ValueError`` on text
that is not the named attribute.
"""
from __future__ import annotations

import re
from typing import Dict, List, Optional, Sequence

from ...frontend.parser import register_dialect_attr_parser
from ...ir import types as T
from ...ir.attributes import (ArrayAttr, Attribute, BoolAttr, DenseArrayAttr, DenseElementsAttr,
                              IntegerAttr, OpaqueAttr)
from ...ir.core import Operation
from ...ir.diagnostics import CompileError


_TOK = re.compile(r"\s*(->|[A-Za-z_][A-Za-z0-9_.]*|-?[0-9]+|\?|[\[\],=<>():{}])")


def _tokenize(s: str) -> List[str]:
    out, pos = [], 0
    s = s.rstrip()
    while pos < len(s):
        m = _TOK.match(s, pos)
        if not m:
            raise ValueError(f"unexpected text {s[pos:pos + 10]!r}")
        out.append(m.group(1))
        pos = m.end()
    return out


class _Toks:
    def __init__(self, s: str):
        self.t = _tokenize(s)
        self.i = 0

    def peek(self, k: int = 0) -> Optional[str]:
        j = self.i + k
        return self.t[j] if j < len(self.t) else None

    def next(self) -> str:
        if self.i >= len(self.t):
            raise ValueError("unexpected end of attribute")
        tok = self.t[self.i]
        self.i += 1
        return tok

    def expect(self, s: str) -> None:
        tok = self.next()
        if tok != s:
            raise ValueError(f"expected '{s}', found '{tok}'")

    def accept(self, s: str) -> bool:
        if self.peek() == s:
            self.i += 1
            return True
        return False

    def int_list(self) -> List[int]:
        self.expect("[")
        vals: List[int] = []
        if self.accept("]"):
            return vals
        while True:
            vals.append(int(self.next()))
            if self.accept("]"):
                return vals
            self.expect(",")
            if self.accept("]"):  # trailing comma
                return vals


def _parse_struct(body: str) -> Dict[str, object]:
    """``key = [1, 2], other = 3,`` (the inside of ``<...>``) → dict."""
    tk = _Toks(body)
    out: Dict[str, object] = {}
    while tk.peek() is not None:
        key = tk.next()
        tk.expect("=")
        out[key] = tk.int_list() if tk.peek() == "[" else int(tk.next())
        if not tk.accept(","):
            break
    if tk.peek() is not None:
        raise ValueError(f"unexpected '{tk.peek()}'")
    return out


def _struct_text(mnemonic: str, fields: Sequence[str], vals: Dict[str, object],
                 dialect: str = "stablehlo") -> str:
    """Upstream's printStruct: empty lists and zero integers are left out."""
    parts = []
    for f in fields:
        v = vals.get(f)
        if isinstance(v, list):
            if v:
                parts.append(f"{f} = [{', '.join(str(x) for x in v)}]")
        elif v:
            parts.append(f"{f} = {v}")
    return f"#{dialect}.{mnemonic}<{', '.join(parts)}>"


DOT_FIELDS = ("lhs_batching_dimensions", "rhs_batching_dimensions",
              "lhs_contracting_dimensions", "rhs_contracting_dimensions")
GATHER_FIELDS = ("offset_dims", "collapsed_slice_dims", "operand_batching_dims",
                 "start_indices_batching_dims", "start_index_map", "index_vector_dim")
SCATTER_FIELDS = ("update_window_dims", "inserted_window_dims", "input_batching_dims",
                  "scatter_indices_batching_dims", "scatter_dims_to_operand_dims",
                  "index_vector_dim")
CONV_FIELDS = ("input_batch_dimension", "input_feature_dimension", "input_spatial_dimensions",
               "kernel_input_feature_dimension", "kernel_output_feature_dimension",
               "kernel_spatial_dimensions", "output_batch_dimension",
               "output_feature_dimension", "output_spatial_dimensions")
_STRUCTS = {"dot": DOT_FIELDS, "gather": GATHER_FIELDS, "scatter": SCATTER_FIELDS}


def dot_attr(lhs_batch=(), rhs_batch=(), lhs_contract=(), rhs_contract=()) -> OpaqueAttr:
    """``#stablehlo.dot<...>`` in canonical spelling."""
    return OpaqueAttr(_struct_text("dot", DOT_FIELDS, {
        "lhs_batching_dimensions": list(lhs_batch), "rhs_batching_dimensions": list(rhs_batch),
        "lhs_contracting_dimensions": list(lhs_contract),
        "rhs_contracting_dimensions": list(rhs_contract)}))


def gather_attr(**fields) -> OpaqueAttr:
    return OpaqueAttr(_struct_text("gather", GATHER_FIELDS, fields))


def scatter_attr(**fields) -> OpaqueAttr:
    return OpaqueAttr(_struct_text("scatter", SCATTER_FIELDS, fields))


def _conv_dims_text(d: Dict[str, object]) -> str:
    """``[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]`` (printConvolutionDimensions)."""

    def one(spatial, named):
        n = len(spatial) + len(named)
        dims: List[str] = ["?"] * n
        for pos, ch in named:
            if not 0 <= pos < n:
                raise ValueError("invalid non-spatial dimension")
            dims[pos] = ch
        for i, pos in enumerate(spatial):
            if not 0 <= pos < n:
                raise ValueError("invalid spatial dimension")
            dims[pos] = str(i)
        return "[" + ", ".join(dims) + "]"

    return (one(d["input_spatial_dimensions"], [(d["input_batch_dimension"], "b"),
                                                 (d["input_feature_dimension"], "f")])
            + "x"
            + one(d["kernel_spatial_dimensions"], [(d["kernel_input_feature_dimension"], "i"),
                                                    (d["kernel_output_feature_dimension"], "o")])
            + "->"
            + one(d["output_spatial_dimensions"], [(d["output_batch_dimension"], "b"),
                                                    (d["output_feature_dimension"], "f")]))


def conv_attr(d: Dict[str, object]) -> OpaqueAttr:
    """``#stablehlo.conv<...>`` from a dict with the keys of :data:`CONV_FIELDS`."""
    full = {k: d.get(k, [] if k.endswith("dimensions") and "spatial" in k else 0)
            for k in CONV_FIELDS}
    return OpaqueAttr(f"#stablehlo.conv<{_conv_dims_text(full)}>")


def _parse_conv_compact(tk: _Toks) -> Dict[str, object]:
    def one(allowed):
        tk.expect("[")
        spatial: Dict[int, int] = {}
        named: Dict[str, int] = {}
        idx = 0
        while True:
            tok = tk.next()
            if re.fullmatch(r"[0-9]+", tok):
                if int(tok) in spatial:
                    raise ValueError(f"duplicate spatial dimension {tok}")
                spatial[int(tok)] = idx
            elif tok in allowed and tok not in named:
                named[tok] = idx
            else:
                raise ValueError(f"unexpected dimension '{tok}'")
            idx += 1
            if tk.accept("]"):
                break
            tk.expect(",")
        missing = [a for a in allowed if a not in named]
        if missing:
            raise ValueError(f"dimensions {', '.join(missing)} not specified")
        n = max(spatial) + 1 if spatial else 0
        if sorted(spatial) != list(range(n)):
            raise ValueError("spatial dimensions are not 0..n-1")
        return [spatial[i] for i in range(n)], named

    ins, inn = one(("b", "f"))
    tk.expect("x")
    ks, kn = one(("i", "o"))
    tk.expect("->")
    outs, on = one(("b", "f"))
    return {"input_batch_dimension": inn["b"], "input_feature_dimension": inn["f"],
            "input_spatial_dimensions": ins, "kernel_input_feature_dimension": kn["i"],
            "kernel_output_feature_dimension": kn["o"], "kernel_spatial_dimensions": ks,
            "output_batch_dimension": on["b"], "output_feature_dimension": on["f"],
            "output_spatial_dimensions": outs}


def _tidy(text: str) -> str:
    """Generic canonical spelling of a dialect attribute: no space inside brackets,
    no trailing commas, ``, `` between items, `` = `` around '='."""
    if '"' in text:
        return text
    text = re.sub(r"\s*,\s*(?=[>\]\)])", "", text)
    text = re.sub(r"([<\[\(])\s+", r"\1", text)
    text = re.sub(r"\s+([>\]\)])", r"\1", text)
    text = re.sub(r"\s*,\s*", ", ", text)
    text = re.sub(r"\s*=\s*", " = ", text)
    return text


def canonical_attr(dialect: str, name: str, text: str) -> str:
    """Canonical text of a ``#stablehlo...`` / ``#chlo...`` attribute (``text`` as written)."""
    mnemonic = name.split(".", 1)[1] if "." in name else ""
    lt = text.find("<")
    body = text[lt + 1: text.rfind(">")] if lt >= 0 else ""
    if mnemonic in _STRUCTS:
        fields = _parse_struct(body)
        bad = [k for k in fields if k not in _STRUCTS[mnemonic]]
        if bad:
            raise ValueError(f"unexpected field '{bad[0]}', expected one of: "
                             + ", ".join(_STRUCTS[mnemonic]))
        return _struct_text(mnemonic, _STRUCTS[mnemonic], fields, dialect)
    if mnemonic == "conv":
        tk = _Toks(body)
        if tk.accept("raw"):
            d = _parse_struct(body.strip()[3:])
            bad = [k for k in d if k not in CONV_FIELDS]
            if bad:
                raise ValueError(f"unexpected field '{bad[0]}'")
            d = {k: d.get(k, [] if "spatial" in k else 0) for k in CONV_FIELDS}
        else:
            d = _parse_conv_compact(tk)
            if tk.peek() is not None:
                raise ValueError(f"unexpected '{tk.peek()}'")
        return f"#{dialect}.conv<{_conv_dims_text(d)}>"
    if mnemonic == "" and lt >= 0:
        # Enum: #stablehlo<comparison_direction GT>
        parts = body.split()
        if len(parts) == 2:
            return f"#{dialect}<{parts[0]} {parts[1]}>"
    return _tidy(text)


def _attr_hook(dialect):
    def hook(p, name, text, loc):
        try:
            return OpaqueAttr(canonical_attr(dialect, name, text))
        except (ValueError, KeyError, IndexError) as e:
            raise CompileError(f"invalid #{name} attribute: {e}", loc) from None
    return hook


register_dialect_attr_parser("stablehlo", _attr_hook("stablehlo"))


def enum_attr(kind: str, value: str, dialect: str = "stablehlo") -> OpaqueAttr:
    """``#stablehlo<kind VALUE>``."""
    return OpaqueAttr(f"#{dialect}<{kind} {value}>")


def enum_value(attr) -> Optional[str]:
    """``GT`` from ``#stablehlo<comparison_direction GT>`` (None if not an enum attribute)."""
    if not isinstance(attr, OpaqueAttr):
        return None
    m = re.fullmatch(r"#\w+<\s*\w+\s+(\w+)\s*>", attr.text)
    return m.group(1) if m else None


def sorted_attrs(attrs: Dict[str, Attribute]) -> Dict[str, Attribute]:
    """MLIR keeps an op's attributes in a sorted dictionary; so do we for parsed pretty ops."""
    return dict(sorted(attrs.items()))


def i64_array(vals) -> DenseArrayAttr:
    return DenseArrayAttr(T.i64, tuple(int(v) for v in vals))


def i64_list(attr) -> List[int]:
    """Python ints of an ``array<i64: ...>``, ``dense<...> : tensor<Nxi64>`` or ``[...]``."""
    if attr is None:
        return []
    if isinstance(attr, DenseArrayAttr):
        return [int(v) for v in attr.value]
    if isinstance(attr, DenseElementsAttr):
        return attr.int_list()
    if isinstance(attr, ArrayAttr):
        return [int(a.value) for a in attr.value]
    if isinstance(attr, IntegerAttr):
        return [int(attr.value)]
    raise CompileError(f"expected an integer list attribute, got '{attr}'")


# =====================================================================================
# Accessors: decode dialect attributes into Python data
# =====================================================================================

def _get(op_or_attr, name):
    if isinstance(op_or_attr, Operation):
        return op_or_attr.attributes[name]  # absent: a located "requires attribute" error
    return op_or_attr


def _struct_of(attr, mnemonic, fields) -> Dict[str, object]:
    text = attr.text if isinstance(attr, OpaqueAttr) else str(attr)
    m = re.fullmatch(r"#\w+\.(\w+)<(.*)>", text, re.S)
    if not m or m.group(1) != mnemonic:
        raise ValueError(f"not a #stablehlo.{mnemonic} attribute: {text}")
    d = _parse_struct(m.group(2))
    return {f: d.get(f, 0 if f == "index_vector_dim" else []) for f in fields}


def dot_dimension_numbers(op_or_attr) -> Dict[str, List[int]]:
    """``{'lhs_batching_dimensions': [...], 'rhs_batching_dimensions': [...],
    'lhs_contracting_dimensions': [...], 'rhs_contracting_dimensions': [...]}``."""
    return _struct_of(_get(op_or_attr, "dot_dimension_numbers"), "dot", DOT_FIELDS)


def gather_dimension_numbers(op_or_attr) -> Dict[str, object]:
    """Keys: offset_dims, collapsed_slice_dims, operand_batching_dims,
    start_indices_batching_dims, start_index_map (lists), index_vector_dim (int)."""
    return _struct_of(_get(op_or_attr, "dimension_numbers"), "gather", GATHER_FIELDS)


def scatter_dimension_numbers(op_or_attr) -> Dict[str, object]:
    """Keys: update_window_dims, inserted_window_dims, input_batching_dims,
    scatter_indices_batching_dims, scatter_dims_to_operand_dims (lists), index_vector_dim."""
    return _struct_of(_get(op_or_attr, "scatter_dimension_numbers"), "scatter", SCATTER_FIELDS)


def conv_dimension_numbers(op_or_attr) -> Dict[str, object]:
    """Keys of :data:`CONV_FIELDS`: ``input_batch_dimension`` (int), ``input_feature_dimension``,
    ``input_spatial_dimensions`` (list), ``kernel_input_feature_dimension``,
    ``kernel_output_feature_dimension``, ``kernel_spatial_dimensions``,
    ``output_batch_dimension``, ``output_feature_dimension``, ``output_spatial_dimensions``."""
    attr = _get(op_or_attr, "dimension_numbers")
    text = attr.text if isinstance(attr, OpaqueAttr) else str(attr)
    m = re.fullmatch(r"#\w+\.conv<(.*)>", text, re.S)
    if not m:
        raise ValueError(f"not a #stablehlo.conv attribute: {text}")
    body = m.group(1).strip()
    if body.startswith("raw"):
        d = _parse_struct(body[3:])
        return {k: d.get(k, [] if "spatial" in k else 0) for k in CONV_FIELDS}
    return _parse_conv_compact(_Toks(body))


def conv_window(op) -> Dict[str, object]:
    """A convolution's window with upstream's defaults filled in: ``window_strides``,
    ``padding`` (list of (low, high)), ``lhs_dilation``, ``rhs_dilation`` (lists of ints),
    ``window_reversal`` (list of bools), ``feature_group_count``, ``batch_group_count``."""
    n = len(conv_dimension_numbers(op)["input_spatial_dimensions"])
    a = op.attributes
    pad = i64_list(a.get("padding")) if "padding" in a else [0] * (2 * n)
    rev = [bool(v) for v in a["window_reversal"].value] if "window_reversal" in a else [False] * n
    return {
        "window_strides": i64_list(a["window_strides"]) if "window_strides" in a else [1] * n,
        "padding": [(pad[2 * i], pad[2 * i + 1]) for i in range(len(pad) // 2)],
        "lhs_dilation": i64_list(a["lhs_dilation"]) if "lhs_dilation" in a else [1] * n,
        "rhs_dilation": i64_list(a["rhs_dilation"]) if "rhs_dilation" in a else [1] * n,
        "window_reversal": rev,
        "feature_group_count": int(a["feature_group_count"].value) if "feature_group_count" in a else 1,
        "batch_group_count": int(a["batch_group_count"].value) if "batch_group_count" in a else 1,
    }


def comparison_direction(op_or_attr) -> str:
    """``'EQ'|'NE'|'GE'|'GT'|'LE'|'LT'`` of a (stablehlo or chlo) compare."""
    v = enum_value(_get(op_or_attr, "comparison_direction"))
    if v is None:
        raise ValueError("not a comparison_direction attribute")
    return v


def comparison_type(op_or_attr) -> Optional[str]:
    """``'FLOAT'|'TOTALORDER'|'SIGNED'|'UNSIGNED'|'NOTYPE'`` or None when absent."""
    if isinstance(op_or_attr, Operation):
        a = op_or_attr.attributes.get("compare_type")
        return enum_value(a) if a is not None else None
    return enum_value(op_or_attr)


def precision_config(op) -> List[str]:
    a = op.attributes.get("precision_config")
    return [enum_value(x) for x in a.value] if isinstance(a, ArrayAttr) else []


def fft_type(op) -> str:
    return enum_value(op.attributes["fft_type"])


def rng_distribution(op) -> str:
    return enum_value(op.attributes["rng_distribution"])


def rng_algorithm(op) -> str:
    return enum_value(op.attributes["rng_algorithm"])


def int_attr(op, name: str, default: Optional[int] = None) -> Optional[int]:
    a = op.attributes.get(name)
    if a is None:
        return default
    return int(a.value)


def bool_attr(op, name: str, default: bool = False) -> bool:
    a = op.attributes.get(name)
    if a is None:
        return default
    if isinstance(a, (BoolAttr, IntegerAttr)):
        return bool(a.value)
    return default
