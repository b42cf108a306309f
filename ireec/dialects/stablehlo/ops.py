"""stablehlo op registration: every op with its parser, printer and traits, then the verifiers.

Traits: ``elementwise`` on per-element ops, ``pure`` on side-effect-free ops,
``terminator`` on ``stablehlo.return``; ``broadcasting`` on the elementwise ops whose
operands may be rank-0 against ranked ones (``select``'s predicate, ``clamp``'s bounds).
"""
from __future__ import annotations

from ...ir import verifier as V
from ..registry import register
from ..syntax import parse_terminator, print_terminator
from .asm import (parse_operands_fn, parse_same_type, print_operands_fn, print_same_type,
                  safe_printer)
from .asm_dot_conv import (_parse_convolution, _parse_dot, _parse_dot_general,
                           _print_convolution_checked, _print_dot, _print_dot_general_checked)
from .asm_misc import (_make_einsum, _make_enum_kw_op, _parse_after_all, _parse_cholesky,
                       _parse_composite, _parse_custom_call, _parse_fft, _parse_get_tuple_element,
                       _parse_opt_barrier, _parse_reduce_precision, _parse_tuple, _print_cholesky,
                       _print_composite, _print_custom_call, _print_fft, _print_get_tuple_element,
                       _print_opt_barrier, _print_reduce_precision, _print_tuple)
from .asm_regions import _parse_reduce, _parse_while, _print_reduce_checked, _print_while_checked
from .asm_shape import (_make_dims_op, _make_int_op, _parse_compare, _parse_complex,
                        _parse_constant, _parse_dynamic_iota, _parse_dynamic_slice, _parse_iota,
                        _parse_pad, _parse_select, _parse_slice, _parse_type_only, _print_compare,
                        _print_complex, _print_constant, _print_dynamic_iota, _print_dynamic_slice,
                        _print_iota, _print_pad, _print_select, _print_slice_checked,
                        _print_type_only)
from .verifiers import (_verify_broadcast_in_dim, _verify_clamp, _verify_compare,
                        _verify_concatenate, _verify_constant, _verify_dimension_attr,
                        _verify_dimension_numbers, _verify_dims_list, _verify_dot,
                        _verify_dot_general, _verify_dynamic_slice, _verify_dynamic_update_slice,
                        _verify_elementwise, _verify_iota, _verify_pad, _verify_reduce,
                        _verify_reduce_window, _verify_reshape, _verify_select, _verify_slice,
                        _verify_transpose)
from .verify_gather_scatter import verify_gather, verify_scatter


UNARY_ELEMENTWISE = (
    "abs", "cbrt", "ceil", "convert", "count_leading_zeros", "cosine", "exponential",
    "exponential_minus_one", "floor", "imag", "log", "log_plus_one", "logistic", "not",
    "negate", "popcnt", "real", "round_nearest_afz", "round_nearest_even", "rsqrt", "sign",
    "sine", "sqrt", "tan", "tanh", "uniform_quantize", "uniform_dequantize")
BINARY_ELEMENTWISE = (
    "add", "atan2", "divide", "maximum", "minimum", "multiply", "power", "remainder",
    "shift_left", "shift_right_arithmetic", "shift_right_logical", "subtract", "and", "or",
    "xor")

PURE = ("pure",)
EW = ("pure", "elementwise")


def _reg(op, parse=None, print_=None, traits=PURE):
    register(f"stablehlo.{op}", parse, safe_printer(print_), traits=traits)


for _op in UNARY_ELEMENTWISE + BINARY_ELEMENTWISE:
    _reg(_op, parse_same_type, print_same_type, EW)

_reg("constant", _parse_constant, _print_constant)
_reg("iota", _parse_iota, _print_iota)
_reg("dynamic_iota", _parse_dynamic_iota, _print_dynamic_iota)
_reg("create_token", _parse_type_only, _print_type_only)
_reg("replica_id", _parse_type_only, _print_type_only)
_reg("partition_id", _parse_type_only, _print_type_only)
_reg("after_all", _parse_after_all, print_same_type)
_reg("compare", _parse_compare, _print_compare, EW)
_reg("complex", _parse_complex, _print_complex, EW)
# select's predicate and clamp's min/max may be rank-0 against a ranked operand.
_reg("select", _parse_select, _print_select, EW + ("broadcasting",))
_reg("clamp", parse_same_type, print_same_type, EW + ("broadcasting",))
_reg("is_finite", parse_operands_fn, print_operands_fn, EW)
for _op in ("dynamic_update_slice", "bitcast_convert", "reshape", "dynamic_reshape",
            "real_dynamic_slice", "dynamic_pad"):
    _reg(_op, parse_operands_fn, print_operands_fn)
_reg("slice", _parse_slice, _print_slice_checked)
_reg("dynamic_slice", _parse_dynamic_slice, _print_dynamic_slice)
_reg("broadcast", *_make_dims_op("sizes", "broadcast_sizes", 1))
_reg("broadcast_in_dim", *_make_dims_op("dims", "broadcast_dimensions", 1))
_reg("dynamic_broadcast_in_dim", *_make_dims_op("dims", "broadcast_dimensions", 2))
_reg("transpose", *_make_dims_op("dims", "permutation", 1))
_reg("reverse", *_make_dims_op("dims", "dimensions", 1, same_type=True))
_reg("concatenate", *_make_int_op("dim", "dimension", 0, variadic=True))
_reg("get_dimension_size", *_make_int_op("dim", "dimension", 1))
_reg("set_dimension_size", *_make_int_op("dim", "dimension", 2))
_reg("pad", _parse_pad, _print_pad)
_reg("reduce", _parse_reduce, _print_reduce_checked)
_reg("while", _parse_while, _print_while_checked, traits=())
_reg("dot", _parse_dot, _print_dot)
_reg("dot_general", _parse_dot_general, _print_dot_general_checked)
_reg("convolution", _parse_convolution, _print_convolution_checked)
_reg("custom_call", _parse_custom_call, _print_custom_call, traits=())
_reg("fft", _parse_fft, _print_fft)
_reg("rng", *_make_enum_kw_op(3, "distribution", "rng_distribution", "rng_distribution"),
     traits=())
_reg("rng_bit_generator", *_make_enum_kw_op(1, "algorithm", "rng_algorithm", "rng_algorithm"))
_reg("return", parse_terminator, print_terminator, traits=("pure", "terminator"))
_reg("optimization_barrier", _parse_opt_barrier, _print_opt_barrier, traits=())
_reg("tuple", _parse_tuple, _print_tuple)
_reg("get_tuple_element", _parse_get_tuple_element, _print_get_tuple_element)
_reg("cholesky", _parse_cholesky, _print_cholesky)
_reg("reduce_precision", _parse_reduce_precision, _print_reduce_precision, EW)
_reg("einsum", *_make_einsum(2))
_reg("unary_einsum", *_make_einsum(1))
_reg("composite", _parse_composite, _print_composite, traits=())
# Ops whose only syntax is the generic form (as upstream prints them).
for _op in ("batch_norm_grad", "batch_norm_inference", "batch_norm_training", "gather",
            "dynamic_gather", "scatter", "sort", "reduce_window", "select_and_scatter", "map",
            "torch_index_select", "triangular_solve", "dynamic_conv"):
    _reg(_op)
for _op in ("if", "case", "all_gather", "all_reduce", "reduce_scatter", "all_to_all",
            "collective_permute", "collective_broadcast", "collective_reduce", "infeed",
            "outfeed", "send", "recv", "cross-replica-sum", "async_start", "async_done"):
    _reg(_op, traits=())


V.register_verifiers({
    **{f"stablehlo.{n}": _verify_elementwise for n in UNARY_ELEMENTWISE + BINARY_ELEMENTWISE},
    "stablehlo.gather": verify_gather,
    "stablehlo.dynamic_gather": verify_gather,
    "stablehlo.scatter": verify_scatter,
    "stablehlo.convolution": _verify_dimension_numbers("dimension_numbers", "conv"),
    "stablehlo.compare": _verify_compare,
    "stablehlo.select": _verify_select,
    "stablehlo.clamp": _verify_clamp,
    "stablehlo.dot_general": _verify_dot_general,
    "stablehlo.dot": _verify_dot,
    "stablehlo.broadcast_in_dim": _verify_broadcast_in_dim,
    "stablehlo.reshape": _verify_reshape,
    "stablehlo.transpose": _verify_transpose,
    "stablehlo.constant": _verify_constant,
    "stablehlo.concatenate": _verify_concatenate,
    "stablehlo.slice": _verify_slice,
    "stablehlo.pad": _verify_pad,
    "stablehlo.iota": _verify_iota,
    "stablehlo.reverse": _verify_dims_list("dimensions"),
    "stablehlo.reduce": _verify_reduce,
    "stablehlo.reduce_window": _verify_reduce_window,
    "stablehlo.dynamic_slice": _verify_dynamic_slice,
    "stablehlo.dynamic_update_slice": _verify_dynamic_update_slice,
    "stablehlo.get_dimension_size": _verify_dimension_attr("dimension"),
    "stablehlo.set_dimension_size": _verify_dimension_attr("dimension"),
    "stablehlo.sort": _verify_dimension_attr("dimension"),
})
