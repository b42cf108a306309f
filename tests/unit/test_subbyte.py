"""Sub-byte integers (i2, i4), packed bitcasts and arith.scaling_extf/truncf, compiled to C
and compared with numpy (two's complement arithmetic modulo 2^N) and ml_dtypes (f4E2M1FN)."""
import numpy as np
import pytest

import ireec
from ireec.emitc.ctypes import c_literal, ctype, subbyte_wrap
from ireec.ir import types as T
from ireec.ir.diagnostics import CompileError

N = 16
MAP = "affine_map<(d0) -> (d0)>"

# op -> numpy reference on Python ints in the sub-byte type's range (signed view a, b;
# unsigned view ua, ub); None operand pairs are excluded by the input generator.
BINOPS = {
    "addi": lambda a, b, ua, ub, w: a + b,
    "subi": lambda a, b, ua, ub, w: a - b,
    "muli": lambda a, b, ua, ub, w: a * b,
    "divsi": lambda a, b, ua, ub, w: int(a / b),
    "remsi": lambda a, b, ua, ub, w: a - int(a / b) * b,
    "divui": lambda a, b, ua, ub, w: ua // ub,
    "remui": lambda a, b, ua, ub, w: ua % ub,
    "shli": lambda a, b, ua, ub, w: ua << ub,
    "shrui": lambda a, b, ua, ub, w: ua >> ub,
    "shrsi": lambda a, b, ua, ub, w: a >> ub,
    "maxui": lambda a, b, ua, ub, w: max(ua, ub),
    "minsi": lambda a, b, ua, ub, w: min(a, b),
    "xori": lambda a, b, ua, ub, w: a ^ b,
    "ori": lambda a, b, ua, ub, w: a | b,
}
I2_OPS = ("addi", "muli", "shrui", "divui")


def _wrap(v: int, w: int) -> int:
    """v modulo 2^w, as a signed w-bit value."""
    v &= (1 << w) - 1
    return v - (1 << w) if v >> (w - 1) else v


def _binop_fn(op: str, w: int) -> str:
    return f"""
func.func @{op}_i{w}(%a: tensor<{N}xi8>, %b: tensor<{N}xi8>) -> tensor<{N}xi8> {{
  %e = tensor.empty() : tensor<{N}xi8>
  %r = linalg.generic {{indexing_maps = [{MAP}, {MAP}, {MAP}], iterator_types = ["parallel"]}}
      ins(%a, %b : tensor<{N}xi8>, tensor<{N}xi8>) outs(%e : tensor<{N}xi8>) {{
  ^bb0(%x: i8, %y: i8, %o: i8):
    %x4 = arith.trunci %x : i8 to i{w}
    %y4 = arith.trunci %y : i8 to i{w}
    %z = arith.{op} %x4, %y4 : i{w}
    %z8 = arith.extsi %z : i{w} to i8
    linalg.yield %z8 : i8
  }} -> tensor<{N}xi8>
  return %r : tensor<{N}xi8>
}}"""


SRC = "\n".join(_binop_fn(op, 4) for op in BINOPS) + "\n" + "\n".join(_binop_fn(op, 2) for op in I2_OPS) + f"""
func.func @casts_i4(%a: tensor<{N}xi8>) -> (tensor<{N}xi8>, tensor<{N}xf32>, tensor<{N}xf32>, tensor<{N}xi8>, tensor<{N}xi8>, tensor<{N}xi8>) {{
  %e8 = tensor.empty() : tensor<{N}xi8>
  %ef = tensor.empty() : tensor<{N}xf32>
  %r:6 = linalg.generic {{indexing_maps = [{MAP}, {MAP}, {MAP}, {MAP}, {MAP}, {MAP}, {MAP}], iterator_types = ["parallel"]}}
      ins(%a : tensor<{N}xi8>) outs(%e8, %ef, %ef, %e8, %e8, %e8 : tensor<{N}xi8>, tensor<{N}xf32>, tensor<{N}xf32>, tensor<{N}xi8>, tensor<{N}xi8>, tensor<{N}xi8>) {{
  ^bb0(%x: i8, %o0: i8, %o1: f32, %o2: f32, %o3: i8, %o4: i8, %o5: i8):
    %x4 = arith.trunci %x : i8 to i4
    %u = arith.extui %x4 : i4 to i8
    %sf = arith.sitofp %x4 : i4 to f32
    %uf = arith.uitofp %x4 : i4 to f32
    %c13 = arith.constant 13 : i4
    %lt = arith.cmpi ult, %x4, %c13 : i4
    %lt8 = arith.extui %lt : i1 to i8
    %s = arith.addi %x4, %c13 : i4
    %s8 = arith.extsi %s : i4 to i8
    %p = math.ctpop %x4 : i4
    %p8 = arith.extui %p : i4 to i8
    linalg.yield %u, %sf, %uf, %lt8, %s8, %p8 : i8, f32, f32, i8, i8, i8
  }} -> (tensor<{N}xi8>, tensor<{N}xf32>, tensor<{N}xf32>, tensor<{N}xi8>, tensor<{N}xi8>, tensor<{N}xi8>)
  return %r#0, %r#1, %r#2, %r#3, %r#4, %r#5 : tensor<{N}xi8>, tensor<{N}xf32>, tensor<{N}xf32>, tensor<{N}xi8>, tensor<{N}xi8>, tensor<{N}xi8>
}}

func.func @fp_to_subbyte(%a: tensor<{N}xf32>, %b: tensor<{N}xf32>) -> (tensor<{N}xi8>, tensor<{N}xi8>) {{
  %e8 = tensor.empty() : tensor<{N}xi8>
  %r:2 = linalg.generic {{indexing_maps = [{MAP}, {MAP}, {MAP}, {MAP}], iterator_types = ["parallel"]}}
      ins(%a, %b : tensor<{N}xf32>, tensor<{N}xf32>) outs(%e8, %e8 : tensor<{N}xi8>, tensor<{N}xi8>) {{
  ^bb0(%x: f32, %y: f32, %o0: i8, %o1: i8):
    %s = arith.fptosi %x : f32 to i4
    %s8 = arith.extsi %s : i4 to i8
    %u = arith.fptoui %y : f32 to i2
    %u8 = arith.extui %u : i2 to i8
    linalg.yield %s8, %u8 : i8, i8
  }} -> (tensor<{N}xi8>, tensor<{N}xi8>)
  return %r#0, %r#1 : tensor<{N}xi8>, tensor<{N}xi8>
}}

func.func @unpack_i4(%a: tensor<2x4xi8>) -> tensor<2x8xi8> {{
  %v = flow.tensor.bitcast %a : tensor<2x4xi8> -> tensor<2x8xi4>
  %r = arith.extsi %v : tensor<2x8xi4> to tensor<2x8xi8>
  return %r : tensor<2x8xi8>
}}

func.func @unpack_i2(%a: tensor<2xi16>) -> tensor<4x4xi8> {{
  %v = flow.tensor.bitcast %a : tensor<2xi16> -> tensor<4x4xi2>
  %r = arith.extui %v : tensor<4x4xi2> to tensor<4x4xi8>
  return %r : tensor<4x4xi8>
}}

func.func @pack_i4(%a: tensor<16xi8>) -> tensor<8xi8> {{
  %t = arith.trunci %a : tensor<16xi8> to tensor<16xi4>
  %r = flow.tensor.bitcast %t : tensor<16xi4> -> tensor<8xi8>
  return %r : tensor<8xi8>
}}

func.func @pack_i2(%a: tensor<2x16xi8>) -> tensor<2xi32> {{
  %t = arith.trunci %a : tensor<2x16xi8> to tensor<2x16xi2>
  %r = flow.tensor.bitcast %t : tensor<2x16xi2> -> tensor<2xi32>
  return %r : tensor<2xi32>
}}

func.func @unpack_f4(%a: tensor<8xi8>) -> tensor<16xf32> {{
  %v = flow.tensor.bitcast %a : tensor<8xi8> -> tensor<16xf4E2M1FN>
  %r = arith.extf %v : tensor<16xf4E2M1FN> to tensor<16xf32>
  return %r : tensor<16xf32>
}}

func.func @pack_f4(%a: tensor<16xf32>) -> tensor<8xi8> {{
  %t = arith.truncf %a : tensor<16xf32> to tensor<16xf4E2M1FN>
  %r = flow.tensor.bitcast %t : tensor<16xf4E2M1FN> -> tensor<8xi8>
  return %r : tensor<8xi8>
}}

func.func @i4_as_f4(%a: tensor<16xi8>) -> tensor<16xf32> {{
  %t = arith.trunci %a : tensor<16xi8> to tensor<16xi4>
  %v = flow.tensor.bitcast %t : tensor<16xi4> -> tensor<16xf4E2M1FN>
  %r = arith.extf %v : tensor<16xf4E2M1FN> to tensor<16xf32>
  return %r : tensor<16xf32>
}}

func.func @scaling(%x: tensor<{N}xf32>, %bits: tensor<{N}xi8>, %s: tensor<{N}xi8>) -> (tensor<{N}xf32>, tensor<{N}xf32>) {{
  %ef = tensor.empty() : tensor<{N}xf32>
  %r:2 = linalg.generic {{indexing_maps = [{MAP}, {MAP}, {MAP}, {MAP}, {MAP}], iterator_types = ["parallel"]}}
      ins(%x, %bits, %s : tensor<{N}xf32>, tensor<{N}xi8>, tensor<{N}xi8>) outs(%ef, %ef : tensor<{N}xf32>, tensor<{N}xf32>) {{
  ^bb0(%in: f32, %b: i8, %se: i8, %o0: f32, %o1: f32):
    %scale = arith.bitcast %se : i8 to f8E8M0FNU
    %t = arith.scaling_truncf %in, %scale : f32, f8E8M0FNU to f4E2M1FN
    %t32 = arith.extf %t : f4E2M1FN to f32
    %b4 = arith.trunci %b : i8 to i4
    %f4 = arith.bitcast %b4 : i4 to f4E2M1FN
    %u = arith.scaling_extf %f4, %scale : f4E2M1FN, f8E8M0FNU to f32
    linalg.yield %t32, %u : f32, f32
  }} -> (tensor<{N}xf32>, tensor<{N}xf32>)
  return %r#0, %r#1 : tensor<{N}xf32>, tensor<{N}xf32>
}}
"""


@pytest.fixture(scope="module")
def mod():
    return ireec.compile_source(SRC, source_name="subbyte_test.mlir")


def _operands(op: str, w: int, rng):
    """Random w-bit operand pairs (as i8 holding any byte: trunci keeps the low w bits)
    avoiding arith's poison cases (division by zero, signed overflow, shifts >= w)."""
    a = rng.integers(-128, 128, size=16 * N).astype(np.int8)
    b = rng.integers(-128, 128, size=16 * N).astype(np.int8)
    keep = []
    for x, y in zip(a, b):
        sa, sb = _wrap(int(x), w), _wrap(int(y), w)
        ub = sb & ((1 << w) - 1)
        if op in ("divsi", "remsi") and (sb == 0 or (sa == -(1 << (w - 1)) and sb == -1)):
            continue
        if op in ("divui", "remui") and ub == 0:
            continue
        if op.startswith("sh") and ub >= w:
            continue
        keep.append((x, y))
    keep = keep[:N]
    assert len(keep) == N
    return np.array([k[0] for k in keep], np.int8), np.array([k[1] for k in keep], np.int8)


@pytest.mark.parametrize("w,op", [(4, op) for op in BINOPS] + [(2, op) for op in I2_OPS])
def test_binary_wraps_modulo_2n(mod, w, op):
    rng = np.random.default_rng(w * 1000 + sum(map(ord, op)))
    a, b = _operands(op, w, rng)
    got = getattr(mod, f"{op}_i{w}")(a, b)
    m = (1 << w) - 1
    want = [_wrap(BINOPS[op](_wrap(int(x), w), _wrap(int(y), w), int(x) & m, int(y) & m, w), w)
            for x, y in zip(a, b)]
    np.testing.assert_array_equal(got, np.array(want, np.int8))


def test_casts_compare_constants_and_ctpop(mod):
    a = np.arange(-8, 8, dtype=np.int8) * 17  # every i4 value, with garbage high bits
    u, sf, uf, lt, s, p = mod.casts_i4(a)
    sv = np.array([_wrap(int(x), 4) for x in a])
    uv = np.array([int(x) & 15 for x in a])
    np.testing.assert_array_equal(u, uv)
    np.testing.assert_array_equal(sf, sv.astype(np.float32))
    np.testing.assert_array_equal(uf, uv.astype(np.float32))
    np.testing.assert_array_equal(lt, (uv < 13).astype(np.int8))
    np.testing.assert_array_equal(s, [_wrap(int(x) - 3, 4) for x in sv])  # 13 : i4 is -3
    np.testing.assert_array_equal(p, [bin(int(x)).count("1") for x in uv])


def test_fptosi_fptoui_to_subbyte(mod):
    x = np.linspace(-8, 7, N).astype(np.float32)
    y = np.array([0, 1, 2, 3] * (N // 4), np.float32) + 0.25
    s, u = mod.fp_to_subbyte(x, y)
    np.testing.assert_array_equal(s, np.trunc(x).astype(np.int8))
    np.testing.assert_array_equal(u, np.trunc(y).astype(np.int8))


def _nibbles(a: np.ndarray, w: int) -> np.ndarray:
    """IREE's packing reference: the w-bit fields of the little-endian byte stream of
    ``a``, lowest bits first, as unsigned values."""
    bits = np.unpackbits(np.ascontiguousarray(a).view(np.uint8), bitorder="little").reshape(-1, w)
    return (bits * (1 << np.arange(w))).sum(axis=1)


def test_unpack_packed_i4_and_i2(mod):
    rng = np.random.default_rng(1)
    a = rng.integers(-128, 128, size=(2, 4)).astype(np.int8)
    got = mod.unpack_i4(a)
    want = np.array([_wrap(int(v), 4) for v in _nibbles(a, 4)]).reshape(2, 8)
    np.testing.assert_array_equal(got, want)
    assert _nibbles(np.array([0x20], np.uint8), 4).tolist() == [0x0, 0x2]  # low nibble first
    b = np.array([0x1B2C, -0x5A6B], np.int16)
    np.testing.assert_array_equal(mod.unpack_i2(b), _nibbles(b, 2).reshape(4, 4))


def test_pack_i4_and_i2(mod):
    rng = np.random.default_rng(2)
    a = rng.integers(-128, 128, size=16).astype(np.int8)
    lo, hi = (a[0::2].astype(np.int64) & 15), (a[1::2].astype(np.int64) & 15)
    np.testing.assert_array_equal(mod.pack_i4(a), (lo | (hi << 4)).astype(np.uint8).view(np.int8))
    b = rng.integers(-128, 128, size=(2, 16)).astype(np.int8)
    fields = b.astype(np.int64) & 3
    want = (fields << (2 * np.arange(16))).sum(axis=1).astype(np.uint32).view(np.int32)
    np.testing.assert_array_equal(mod.pack_i2(b), want)


def test_f4e2m1fn_pack_unpack_match_ml_dtypes(mod):
    md = pytest.importorskip("ml_dtypes")
    codes = np.arange(16, dtype=np.uint8)
    values = codes.view(md.float4_e2m1fn).astype(np.float32)  # ml_dtypes: one code per byte
    packed = (codes[0::2] | (codes[1::2] << 4)).view(np.int8)
    np.testing.assert_array_equal(mod.unpack_f4(packed), values)
    x = np.array([0.3, -0.26, 1.25, 1.75, 2.5, 5.0, 7.0, -100.0, 0.0, -0.0, 3.0, -1.5,
                  0.75, 0.24, 4.5, -6.0], np.float32)
    q = x.astype(md.float4_e2m1fn).view(np.uint8) & 15
    np.testing.assert_array_equal(mod.pack_f4(x), (q[0::2] | (q[1::2] << 4)).view(np.int8))
    a = np.arange(16, dtype=np.int8) - 8  # i4 -> f4E2M1FN is a reinterpretation of the 4 bits
    np.testing.assert_array_equal(mod.i4_as_f4(a), (a.view(np.uint8) & 15).view(md.float4_e2m1fn).astype(np.float32))


def test_scaling_truncf_extf_match_mlir_definition(mod):
    md = pytest.importorskip("ml_dtypes")
    rng = np.random.default_rng(3)
    x = (rng.standard_normal(N) * 8).astype(np.float32)
    bits = rng.integers(0, 16, size=N).astype(np.int8)
    e = rng.integers(124, 131, size=N).astype(np.uint8)  # scales 2^-3 .. 2^3
    scale = np.ldexp(1.0, e.astype(np.int32) - 127).astype(np.float32)
    t, u = mod.scaling(x, bits, e.view(np.int8))
    np.testing.assert_array_equal(t, (x / scale).astype(md.float4_e2m1fn).astype(np.float32))
    f4 = bits.view(np.uint8).view(md.float4_e2m1fn).astype(np.float32)
    np.testing.assert_array_equal(u, f4 * scale)


def test_subbyte_c_spellings():
    i4, ui4, i2 = T.IntegerType(4), T.IntegerType(4, "u"), T.IntegerType(2)
    assert (ctype(i4), ctype(ui4)) == ("int8_t", "uint8_t")
    assert c_literal(13, i4) == "((int8_t)-3)" and c_literal(13, ui4) == "((uint8_t)13)"
    assert c_literal(-1, i2) == "((int8_t)-1)" and c_literal(3, i2) == "((int8_t)-1)"
    assert subbyte_wrap(ui4, "x") == "((uint8_t)((x) & 15))"
    assert T.storage_bytes(i4) == 1 and T.numpy_dtype(i4) == np.int8


@pytest.mark.parametrize("body,msg", [
    ("%t = arith.trunci %a : tensor<8xi8> to tensor<8xi4>\n"
     "  %r = flow.tensor.bitcast %t : tensor<8xi4> -> tensor<16xi2>",
     "different sub-byte widths"),
    ("%r = flow.tensor.bitcast %a : tensor<8xi8> -> tensor<8xf6E2M3FN>",
     "cannot be packed"),
    ("%r = flow.tensor.bitcast %a : tensor<8xi8> -> tensor<8xi4>",
     "different numbers of bits"),
])
def test_unsupported_bitcasts_raise_with_location(body, msg):
    src = f"func.func @f(%a: tensor<8xi8>) {{\n  {body}\n  return\n}}\n"
    with pytest.raises(CompileError, match=msg) as ei:
        ireec.compile_source(src, source_name="bad.mlir")
    assert "bad.mlir" in str(ei.value.loc)


def test_generated_c_is_warning_free(tmp_path):
    from ireec.compiler import compile_source
    from ireec.runtime.build import compile_object_check

    out = compile_source(SRC, "subbyte_test.mlir", target="c")
    assert "int8_t" in out.files[f"{out.module_name}_kernels.c"]
    compile_object_check(out.files, out_dir=tmp_path / "out")
