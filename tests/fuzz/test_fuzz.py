"""A bounded sample of the mutation fuzzer (``tests/fuzz/fuzz.py``) and unit tests of the
error classes it found: every mutated input either compiles or fails with a located error;
none ends in an internal error, a hang or a crash. The long run is ``make fuzz``."""
from __future__ import annotations

import random
import time

import pytest

from ireec.compiler import compile_source
from ireec.frontend.parser import parse_source
from ireec.ir.attributes import DenseElementsAttr
from ireec.ir.diagnostics import CompileError, decode_source
from ireec.ir.verifier import verify

from . import fuzz
SHARED = fuzz.SHARED

SAMPLE = 400  # mutations; a few seconds
SMALL_SEEDS = 60_000  # bytes: the sample mutates the small seed files only, to stay fast


def test_fuzz_sample_has_no_internal_errors_or_hangs():
    files = fuzz.seed_files(SHARED, SMALL_SEEDS)
    if not files:
        pytest.skip(f"no seed files: {SHARED} (corpus/ and models/) is not present")
    res = fuzz.run_fuzz(SAMPLE, 7, files=files, timeout=20.0, out=None, reduce=False,
                        log=lambda *_: None)
    bad = res["internal"] + res["hang"] + res["crash"]
    assert len(res["located"]) > SAMPLE // 4  # the mutations do reach the error paths
    assert not bad, "\n".join(f"[{r.index}] {r.outcome} {r.seed_file} ({r.mutation}): {r.detail}"
                              for r in bad)


def test_mutations_are_deterministic():
    text = "func.func @f(%a: tensor<4xi32>) -> tensor<4xi32> {\n" \
           "  %c = arith.constant dense<[1, 2, 3, 4]> : tensor<4xi32>\n" \
           "  return %a : tensor<4xi32>\n}\n"
    a = [fuzz.mutate(text, random.Random(f"3:{i}")) for i in range(50)]
    b = [fuzz.mutate(text, random.Random(f"3:{i}")) for i in range(50)]
    assert a == b


def _located(src: str, needle: str, line: int):
    with pytest.raises(CompileError) as ei:
        compile_source(src, "t.mlir")
    e = ei.value
    assert e.loc.file == "t.mlir" and e.loc.line == line, e.render()
    assert needle in e.message, e.render()
    assert "internal error" not in e.message


FUNC = "func.func @f() -> tensor<{t}> {{\n  %c = arith.constant {v} : tensor<{t}>\n  return %c : tensor<{t}>\n}}\n"


@pytest.mark.parametrize("value,type_,needle", [
    ('dense<"0x0102030405">', "2xi32", "not a multiple"),
    ("dense<[1.5, 2.0]>", "2xi32", "floating point literal"),
    ("dense<[(1.0, 2.0), 3]>", "2xi32", "complex literal"),
    ("dense<[300, 1]>", "2xi8", "out of range"),
    ("dense<[1, 2, 3]>", "2xi32", "needs 2"),
])
def test_dense_literals_that_do_not_fit_are_located(value, type_, needle):
    _located(FUNC.format(t=type_, v=value + " "), needle, 2)


@pytest.mark.parametrize("arr,needle", [("nan", "floating point"), ("1e400", "floating point"),
                                         ("1.5", "floating point"),
                                         ("99999999999999999999", "out of range")])
def test_bad_i64_array_elements_are_located(arr, needle):
    src = ("func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {\n"
           f"  %r = stablehlo.transpose %a, dims = [0] {{x = array<i64: {arr}>}} : (tensor<4xf32>) -> tensor<4xf32>\n"
           "  return %r : tensor<4xf32>\n}\n")
    _located(src, needle, 2)


def test_huge_splat_parses_instantly_and_stays_a_splat():
    t = "65536x256x256xf32"
    t0 = time.time()
    m = parse_source(FUNC.format(t=t, v="dense<1.0>"), "t.mlir")
    assert time.time() - t0 < 1.0
    c = next(op for op in m.walk() if op.name == "arith.constant")
    attr = c.attributes["value"]
    assert isinstance(attr, DenseElementsAttr) and attr.is_splat
    assert attr.array.nbytes >= 1 << 34 and attr.array.base.nbytes <= 8  # a view of one element
    out = compile_source(FUNC.format(t=t, v="dense<1.0>"), "t.mlir")  # kept as a fill
    assert any("fill" in text for text in out.files.values())


def test_missing_required_attribute_is_located():
    src = ("func.func @f(%a: tensor<2x3xf32>) -> tensor<3x2xf32> {\n"
           '  %r = "stablehlo.transpose"(%a) {permutaton = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>\n'
           "  return %r : tensor<3x2xf32>\n}\n")
    _located(src, "requires attribute 'permutation'", 2)


@pytest.mark.parametrize("body,needle,line", [
    ("  %b = arith.addf %a2, %a : tensor<4xf32>\n  %a2 = arith.addf %a, %a : tensor<4xf32>\n"
     "  return %b : tensor<4xf32>\n", "does not dominate this use", 2),
    ("  %b = arith.addf %b, %a : tensor<4xf32>\n  return %b : tensor<4xf32>\n",
     "does not dominate this use", 2),
])
def test_use_before_definition_is_located(body, needle, line):
    _located("func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {\n" + body + "}\n", needle, line)


@pytest.mark.parametrize("text,needle", [
    ('"x" = "a\\q"', "unknown escape"),
    ("cf.br ^", "expected block reference"),
    ("tensor<99999999999999999999xf32>", "too large"),
])
def test_malformed_tokens_are_located(text, needle):
    src = {"\"x\"": 'func.func @f() attributes {x = "a\\q"} {\n  return\n}\n',
           "cf.br": "func.func @f() {\n  cf.br ^\n}\n",
           "tensor": "func.func @f(%a: tensor<99999999999999999999xf32>) {\n  return\n}\n"}
    key = next(k for k in src if text.startswith(k))
    with pytest.raises(CompileError) as ei:
        compile_source(src[key], "t.mlir")
    assert ei.value.loc.line >= 1 and needle in ei.value.message, ei.value.render()


def test_invalid_utf8_is_located_at_the_first_bad_byte():
    with pytest.raises(CompileError) as ei:
        decode_source("func.func @f() {\n  // caf\u00e9 ".encode() + b"\xff\n}\n", "t.mlir")
    assert (ei.value.loc.line, ei.value.loc.col) == (2, 11)


def test_internal_errors_name_the_pass_and_the_op(monkeypatch):
    from ireec.passes.input import canonicalize

    def boom(self, module, ctx):
        for op in module.walk():
            if op.name == "arith.addf":
                raise RuntimeError("boom")

    monkeypatch.setattr(canonicalize.CanonicalizePass, "run", boom)
    src = ("func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {\n"
           "  %b = arith.addf %a, %a : tensor<4xf32>\n  return %b : tensor<4xf32>\n}\n")
    with pytest.raises(CompileError) as ei:
        compile_source(src, "t.mlir")
    e = ei.value
    assert (e.loc.line, e.loc.col) == (2, 8), e.render()
    assert e.message.startswith("internal error in pass 'canonicalize' while processing "
                                "'arith.addf': RuntimeError: boom")
    assert isinstance(e.__cause__, RuntimeError)


# --------------------------------------------- literal element types, gather/scatter shapes
def test_literals_of_every_element_type_are_located():
    """Every context where a literal is read against a type, with element types that have
    no integer width or no array form (complex, tuple, none, opaque, quantized, shaped,
    ``i3``): a located error naming the type or a compiled program. The whole class is
    parsed and verified; a fixed sample of it also goes through the compiler."""
    from .classes import literal_cases

    cases = list(literal_cases())
    assert len(cases) > 3000
    bad = []
    for name, src in cases:
        try:
            verify(parse_source(src, "t.mlir"))
        except CompileError as e:
            if e.loc.file != "t.mlir" or e.loc.line <= 0 or "internal error" in e.message:
                bad.append(f"{name}: {e.render()}")
        except Exception as e:  # noqa: BLE001 - what the test looks for
            bad.append(f"{name}: {type(e).__name__}: {e}")
    for name, src in random.Random(5).sample(cases, 250):
        outcome, detail = fuzz._classify(src, "t.mlir")
        if outcome not in ("ok", "located"):
            bad.append(f"{name}: {outcome} {detail}")
    assert not bad, "\n".join(bad[:20])


def test_gather_scatter_mutants_are_verified():
    """Gather and scatter ops of IREE's e2e tests and the spec, each with one dimension
    number, slice size, shape or type edited: rejected by the verifier with a located error
    (naming a spec constraint) or compiled, never an internal error in the lowering."""
    from .classes import gather_scatter_mutants, gather_scatter_seeds

    assert all(fuzz._classify(src, "t.mlir")[0] == "ok" for _, src in gather_scatter_seeds())
    counts = {}
    bad = []
    for name, src in gather_scatter_mutants(300, 11):
        outcome, detail = fuzz._classify(src, "t.mlir")
        counts[outcome] = counts.get(outcome, 0) + 1
        if outcome not in ("ok", "located"):
            bad.append(f"{name}: {outcome} {detail}")
    assert not bad, "\n".join(bad[:20])
    assert counts.get("located", 0) > 200


def test_dynamic_gather_with_constant_sizes_is_verified_after_it_becomes_a_gather():
    """A ``dynamic_gather`` whose slice sizes a constant gives is checked against them, and
    the lowering verifies the gather it becomes."""
    src = ("func.func @f(%x: tensor<2x6xf32>, %i: tensor<1x2xi64>) -> tensor<1x2x7xf32> {\n"
           "  %s = stablehlo.constant dense<[2, 7]> : tensor<2xi64>\n"
           '  %0 = "stablehlo.dynamic_gather"(%x, %i, %s) {dimension_numbers = #stablehlo.gather<'
           "offset_dims = [1, 2], start_index_map = [0, 1], index_vector_dim = 1>} "
           ": (tensor<2x6xf32>, tensor<1x2xi64>, tensor<2xi64>) -> tensor<1x2x7xf32>\n"
           "  return %0 : tensor<1x2x7xf32>\n}\n")
    _located(src, "slice size 7 of dimension 1 is not within [0, 6], the operand's size (C21)", 3)
