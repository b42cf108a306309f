"""stablehlo dialect: every op JAX / torch-mlir / IREE's tests print, pretty and generic.

Syntax source: StableHLO's ``StablehloOps.td`` assembly formats and its custom
printers (``AssemblyFormat.cpp``), and the spec https://openxla.org/stablehlo/spec.

Representation rule: an op parsed from its pretty form is the op upstream's generic form
gives: same attribute names and kinds (``broadcast_dimensions = array<i64: ...>``,
``comparison_direction = #stablehlo<comparison_direction GT>``...). Dialect attributes
(``#stablehlo.dot<...>``, ``#stablehlo.conv<...>``, ``#stablehlo.gather<...>``,
``#stablehlo.scatter<...>``, enums) are :class:`OpaqueAttr` whose text is upstream's
canonical spelling, whatever spelling the input used (``#stablehlo.conv<raw ...>``,
trailing commas, line breaks). Use the accessors of :mod:`.attributes`
(:func:`dot_dimension_numbers`, :func:`conv_dimension_numbers`, ...) to read them.

Traits: ``elementwise`` on per-element ops, ``pure`` on side-effect-free ops,
``terminator`` on ``stablehlo.return``; ``broadcasting`` on the elementwise ops whose
operands may be rank-0 against ranked ones (``select``'s predicate, ``clamp``'s bounds).

Modules: :mod:`.attributes` (dialect attributes: canonical spelling, builders, accessors),
:mod:`.asm` (assembly-format helpers shared with chlo), :mod:`.asm_shape`,
:mod:`.asm_regions`, :mod:`.asm_dot_conv`, :mod:`.asm_misc` (op parsers and printers),
:mod:`.verifiers` and :mod:`.verify_gather_scatter` (spec constraints), :mod:`.ops` (the
registration of every op and verifier, done on import of this package).
"""
from __future__ import annotations

from .asm import (_generic_fallback, _typed_value_type, fmt_list, fn_type_str,  # noqa: F401
                  parse_dims_keyword, parse_fn_type, parse_int_list, parse_operands_fn,
                  parse_same_type, parse_same_type_tail, print_fn_type, print_operands_fn,
                  print_same_type, print_same_type_tail, safe_printer)
from .attributes import (CONV_FIELDS, DOT_FIELDS, GATHER_FIELDS, SCATTER_FIELDS,  # noqa: F401
                         _attr_hook, _tidy, bool_attr, canonical_attr, comparison_direction,
                         comparison_type, conv_attr, conv_dimension_numbers, conv_window,
                         dot_attr, dot_dimension_numbers, enum_attr, enum_value, fft_type,
                         gather_attr, gather_dimension_numbers, i64_array, i64_list, int_attr,
                         precision_config, rng_algorithm, rng_distribution, scatter_attr,
                         scatter_dimension_numbers, sorted_attrs)
from .ops import BINARY_ELEMENTWISE, EW, PURE, UNARY_ELEMENTWISE  # noqa: F401
from .verify_gather_scatter import verify_gather, verify_scatter  # noqa: F401

__all__ = [
    "dot_dimension_numbers", "conv_dimension_numbers", "gather_dimension_numbers",
    "scatter_dimension_numbers", "comparison_direction", "comparison_type", "conv_window",
    "precision_config", "fft_type", "rng_distribution", "rng_algorithm", "i64_list",
    "enum_value", "enum_attr", "dot_attr", "conv_attr", "gather_attr", "scatter_attr",
    "canonical_attr", "int_attr", "bool_attr", "verify_gather", "verify_scatter",
]
