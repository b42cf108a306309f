"""tests/op_coverage.md against the specs and the lowering tables.

* Every op of the StableHLO spec (openxla/stablehlo ``docs/spec.md``, plus the dialect's
  ops outside the spec), of the TOSA 1.0 spec (plus the MLIR dialect's extra ops) and of
  CHLO has exactly one row.
* A row says ``supported`` exactly when a lowering exists for the op: the StableHLO /
  TOSA conversion tables, the CHLO legalization table, or the ops other input passes take
  care of (composite: inliner; TOSA variables: the globals import; dynamic ops with
  constant shape operands: stablehlo-canonicalize-dynamism; tosa.const_shape / tosa.yield:
  consumed by their users).
* The linalg section lists every quantized named op of upstream's OpDSL and
  ``linalg.matmul`` (on i8 operands with an i32 accumulator); ``supported`` there means the op
  is in the table of named ops (``ireec/dialects/linalg/named.py``), and every quantized op of
  that table (zero-point payload) has a row.
* A ``supported`` row names a test ``path::function`` that exists (a Python test function, or
  ``tests/e2e/checks/FILE.mlir::@function``, a function of a check file); an ``unsupported``
  row gives a reason.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
COVERAGE = ROOT / "tests" / "op_coverage.md"

# docs/spec.md of openxla/stablehlo (its "### op" sections), plus ops the dialect keeps
# outside the spec (deprecated or internal to StablehloOps.td).
STABLEHLO_SPEC = """
abs add after_all all_gather all_reduce all_to_all and async_done async_start atan2
batch_norm_grad batch_norm_inference batch_norm_training bitcast_convert broadcast_in_dim case
cbrt ceil cholesky clamp collective_broadcast collective_permute collective_reduce compare
complex composite concatenate constant convert convolution cosine count_leading_zeros
custom_call divide dot_general dynamic_broadcast_in_dim dynamic_conv dynamic_gather
dynamic_iota dynamic_pad dynamic_reshape dynamic_slice dynamic_update_slice exponential
exponential_minus_one fft floor gather get_dimension_size get_tuple_element if imag infeed
iota is_finite log log_plus_one logistic map maximum minimum multiply negate not
optimization_barrier or outfeed pad partition_id popcnt power real recv reduce
reduce_precision reduce_scatter reduce_window remainder replica_id reshape reverse rng
rng_bit_generator round_nearest_afz round_nearest_even rsqrt scatter select
select_and_scatter send shift_left shift_right_arithmetic shift_right_logical sign sine slice
sort sqrt subtract tan tanh transpose triangular_solve tuple uniform_dequantize
uniform_quantize while xor
""".split()
STABLEHLO_DIALECT_ONLY = """
broadcast create_token cross-replica-sum dot einsum real_dynamic_slice set_dimension_size
torch_index_select unary_einsum
""".split()

# TOSA 1.0.0 specification, section 2 (operators), plus the MLIR dialect's own ops
# (shape constants, region terminator, the pre-1.0 fully_connected).
TOSA_SPEC = """
argmax avg_pool2d conv2d conv3d depthwise_conv2d fft2d matmul max_pool2d rfft2d
transpose_conv2d clamp erf sigmoid tanh add arithmetic_right_shift bitwise_and bitwise_or
bitwise_xor intdiv logical_and logical_left_shift logical_right_shift logical_or logical_xor
maximum minimum mul pow sub table abs bitwise_not ceil clz cos exp floor log logical_not
negate reciprocal rsqrt sin select equal greater greater_equal reduce_all reduce_any
reduce_max reduce_min reduce_product reduce_sum concat pad reshape reverse slice tile
transpose gather scatter resize cast rescale const identity custom cond_if while_loop
variable variable_write variable_read
""".split()
TOSA_DIALECT_ONLY = "const_shape yield fully_connected reduce_prod".split()

# ChloOps.td (stablehlo/dialect).
CHLO_OPS = """
_asin_acos_kernel acos acosh asin asinh atan atanh bessel_i1e broadcast_add broadcast_and
broadcast_atan2 broadcast_compare broadcast_complex broadcast_divide broadcast_maximum
broadcast_minimum broadcast_multiply broadcast_next_after broadcast_or broadcast_polygamma
broadcast_power broadcast_remainder broadcast_select broadcast_shift_left
broadcast_shift_right_arithmetic broadcast_shift_right_logical broadcast_subtract
broadcast_xor broadcast_zeta conj constant constant_like cosh digamma erf erf_inv erfc
is_inf is_neg_inf is_pos_inf lgamma mulhi next_after polygamma ragged_dot scan sinh square
tan top_k zeta
""".split()

# Quantized named ops of upstream's OpDSL (mlir/python/mlir/dialects/linalg/opdsl/ops/
# core_named_ops.py: the ops with zero-point operands), and linalg.matmul, listed for its i8
# operands with an i32 accumulator.
LINALG_QUANTIZED = """
quantized_matmul quantized_batch_matmul conv_2d_nhwc_hwcf_q conv_2d_nhwc_fhwc_q
conv_2d_nchw_fchw_q conv_2d_ngchw_gfchw_q conv_2d_nhwgc_gfhwc_q conv_3d_ndhwc_dhwcf_q
depthwise_conv_2d_nhwc_hwc_q depthwise_conv_2d_nhwc_hwcm_q matmul
""".split()

_ROW = re.compile(r"^\|\s*`?([a-z_0-9.-]+)`?\s*\|\s*(supported|unsupported)\s*\|\s*(.*?)\s*\|\s*$")


def _rows():
    rows = {}
    dup = []
    for line in COVERAGE.read_text().splitlines():
        m = _ROW.match(line)
        if m:
            name = m.group(1)
            if name in rows:
                dup.append(name)
            rows[name] = (m.group(2), m.group(3))
    return rows, dup


def _lowered() -> set:
    from ireec.passes.input.convert_globals import _TOSA_VARIABLES
    from ireec.passes.input.stablehlo_canonicalize_dynamism import PATTERNS as DYNAMISM
    from ireec.passes.input.inline import _CALLEE
    from ireec.passes.input.legalize_chlo import PATTERNS as CHLO
    from ireec.passes.input.stablehlo import PATTERNS as SHLO
    from ireec.passes.input.tosa import PATTERNS as TOSA

    handled_elsewhere = {n for n in _CALLEE if n.startswith("stablehlo.")}
    handled_elsewhere |= {"tosa.const_shape", "tosa.yield"} | set(_TOSA_VARIABLES) | set(DYNAMISM)
    return set(SHLO) | set(TOSA) | set(CHLO) | handled_elsewhere | _linalg_named()


def _linalg_named() -> set:
    """The listed linalg ops the table of named ops has, and every quantized op of it."""
    from ireec.dialects.linalg import NAMED_SPECS

    listed = {n for n in LINALG_QUANTIZED if n in NAMED_SPECS}
    quantized = {n for n, spec in NAMED_SPECS.items() if spec.body == "qmac"}
    return {f"linalg.{n}" for n in listed | quantized}


def test_every_spec_op_listed_once():
    rows, dup = _rows()
    assert not dup, f"ops listed twice: {dup}"
    expected = ({f"stablehlo.{n}" for n in STABLEHLO_SPEC + STABLEHLO_DIALECT_ONLY}
                | {f"tosa.{n}" for n in TOSA_SPEC + TOSA_DIALECT_ONLY} | {f"chlo.{n}" for n in CHLO_OPS}
                | {f"linalg.{n}" for n in LINALG_QUANTIZED})
    missing = sorted(expected - set(rows))
    assert not missing, f"ops of the specs missing from {COVERAGE.name}: {missing}"


def test_status_matches_lowering_tables():
    rows, _ = _rows()
    lowered = _lowered()
    unlisted = sorted(n for n in lowered if n not in rows)
    assert not unlisted, f"ops with a lowering but no row in {COVERAGE.name}: {unlisted}"
    wrong = sorted(n for n, (st, _) in rows.items() if (st == "supported") != (n in lowered))
    assert not wrong, ("rows whose status disagrees with the lowering tables (supported must mean "
                       f"a lowering exists): {wrong}")


def test_rows_name_a_test_or_a_reason():
    rows, _ = _rows()
    bad = []
    for name, (st, note) in rows.items():
        if st == "unsupported":
            if len(note) < 10:
                bad.append((name, "no reason"))
            continue
        refs = re.findall(r"(tests/[\w/]+\.py)::(\w+)", note)
        checks = re.findall(r"(tests/e2e/checks/[\w/]+\.mlir)::@(\w+)", note)
        if not refs and not checks:
            bad.append((name, "no test named"))
        for path, fn in refs:
            p = ROOT / path
            if not p.exists() or not re.search(rf"^def {fn}\(", p.read_text(), re.M):
                bad.append((name, f"{path}::{fn} does not exist"))
        for path, fn in checks:
            p = ROOT / path
            if not p.exists() or not re.search(rf"^func\.func @{fn}\(", p.read_text(), re.M):
                bad.append((name, f"{path}::@{fn} does not exist"))
    assert not bad, bad


@pytest.mark.parametrize("dialect", ["stablehlo", "tosa", "chlo", "linalg"])
def test_summary_counts(dialect):
    """The per-dialect summary line states the current counts."""
    rows, _ = _rows()
    sup = sum(1 for n, (st, _) in rows.items() if n.startswith(dialect + ".") and st == "supported")
    tot = sum(1 for n in rows if n.startswith(dialect + "."))
    text = COVERAGE.read_text()
    assert f"**{dialect}: {sup} of {tot} ops supported.**" in text
