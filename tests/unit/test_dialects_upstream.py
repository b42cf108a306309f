"""Pretty syntax of the upstream MLIR dialects (arith, math, tensor, linalg, scf, cf, memref).

Each snippet is written the way ireec's printer names values, so parse → print must give
back the very same op text (the spelling mlir-opt prints), and printing is a fixed point.
The IR built from the pretty form must equal the one parsed from upstream's generic form.
"""
import re
import textwrap

import pytest

from ireec.dialects.arith import CMPF_PREDICATES
from ireec.dialects.tensor import K_DYNAMIC
from ireec.frontend.parser import parse_source
from ireec.ir import types as T
from ireec.ir.attributes import ArrayAttr, DenseArrayAttr, IntegerAttr, OpaqueAttr, UnitAttr
from ireec.ir.diagnostics import CompileError
from ireec.ir.printer import print_module


def module(args: str, body: str, ret: str = "return") -> str:
    """``module { func.func @f(args) { body; ret } }`` in the printer's layout."""
    lines = textwrap.dedent(body).strip("\n").splitlines()
    inner = "".join(f"    {l}\n" if l.strip() else "\n" for l in lines)
    return f"module {{\n  func.func @f({args}) {{\n{inner}    {ret}\n  }}\n}}\n"


def roundtrip(src: str) -> str:
    """Parse and print; also checks that printing is a fixed point and that the generic
    form parses back to the same IR."""
    m = parse_source(src, "snippet.mlir")
    text = print_module(m)
    assert print_module(parse_source(text, "again.mlir")) == text
    generic = print_module(m, generic=True)
    assert print_module(parse_source(generic, "generic.mlir")) == text
    return text


def func_ops(src: str):
    m = parse_source(src, "snippet.mlir")
    return [op for op in m.body.ops[0].body.ops if op.name != "func.return"]


# ------------------------------------------------------------------ exact texts
ARITH = ("%arg0: f32, %arg1: f32, %arg2: i32, %arg3: i32, %arg4: tensor<4xf32>, %arg5: index", """
    %0 = arith.addf %arg0, %arg1 fastmath<fast> : f32
    %1 = arith.subf %arg0, %arg1 : f32
    %2 = arith.maximumf %arg0, %arg1 : f32
    %3 = arith.addi %arg2, %arg3 overflow<nsw> : i32
    %4 = arith.ceildivsi %arg2, %arg3 : i32
    %5 = arith.shrui %arg2, %arg3 : i32
    %6 = arith.cmpf olt, %arg0, %arg1 : f32
    %7 = arith.cmpi sge, %arg2, %arg3 : i32
    %8 = arith.cmpf une, %arg4, %arg4 fastmath<nnan> : tensor<4xf32>
    %9 = arith.select %6, %arg0, %arg1 : f32
    %10 = arith.select %8, %arg4, %arg4 : tensor<4xi1>, tensor<4xf32>
    %11 = arith.negf %arg0 : f32
    %12 = arith.extf %arg0 : f32 to f64
    %13 = arith.truncf %arg0 : f32 to f16
    %14 = arith.sitofp %arg2 : i32 to f32
    %15 = arith.fptoui %arg0 : f32 to i32
    %16 = arith.index_cast %arg5 : index to i64
    %17 = arith.index_castui %arg2 : i32 to index
    %18 = arith.bitcast %arg2 : i32 to f32
    %19 = arith.trunci %arg2 : i32 to i8
    %20 = arith.extui %arg2 : i32 to i64
    %21 = arith.constant 0 : index
    %22 = arith.constant true
    %23 = arith.constant 0xFF800000 : f32
    %24 = arith.constant -7 : i32
    %25 = arith.constant dense<[1, 2, 3]> : tensor<3xi32>
    %26 = arith.constant dense_resource<blob> : tensor<2xf32>
    %27 = arith.constant {foo} 1 : i8
""")

MATH = ("%arg0: f32, %arg1: f32, %arg2: i32, %arg3: tensor<4xf32>", """
    %0 = math.exp %arg0 fastmath<fast> : f32
    %1 = math.tanh %arg3 : tensor<4xf32>
    %2 = math.absi %arg2 : i32
    %3 = math.powf %arg0, %arg1 : f32
    %4 = math.atan2 %arg0, %arg1 : f32
    %5 = math.ipowi %arg2, %arg2 : i32
    %6 = math.fpowi %arg0, %arg2 : f32, i32
    %7 = math.fma %arg0, %arg1, %arg0 : f32
    %8 = math.isnan %arg0 : f32
    %9 = math.isinf %arg3 : tensor<4xf32>
    %10 = math.roundeven %arg0 : f32
    %11 = math.erf %arg0 : f32
    %12 = math.copysign %arg0, %arg1 : f32
    %13 = math.rsqrt %arg0 : f32
    %14 = math.cbrt %arg0 : f32
""")

TENSOR = ("%arg0: tensor<4x8xf32>, %arg1: index, %arg2: f32", """
    %0 = tensor.empty(%arg1) : tensor<?x8xf32>
    %1 = tensor.extract %arg0[%arg1, %arg1] : tensor<4x8xf32>
    %2 = tensor.insert %arg2 into %arg0[%arg1, %arg1] : tensor<4x8xf32>
    %3 = tensor.extract_slice %arg0[0, %arg1] [2, 4] [1, 1] : tensor<4x8xf32> to tensor<2x4xf32>
    %4 = tensor.insert_slice %3 into %arg0[1, 2] [2, 4] [1, 2] : tensor<2x4xf32> into tensor<4x8xf32>
    %5 = tensor.expand_shape %arg0 [[0, 1], [2]] output_shape [2, 2, 8] : tensor<4x8xf32> into tensor<2x2x8xf32>
    %6 = tensor.collapse_shape %5 [[0, 1], [2]] : tensor<2x2x8xf32> into tensor<4x8xf32>
    %7 = tensor.cast %arg0 : tensor<4x8xf32> to tensor<?x8xf32>
    %8 = tensor.dim %7, %arg1 : tensor<?x8xf32>
    %9 = tensor.splat %arg2 : tensor<4xf32>
    %10 = tensor.from_elements %arg2, %arg2 : tensor<2xf32>
    %11 = tensor.concat dim(1) %arg0, %arg0 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x16xf32>
    %12 = tensor.bitcast %arg0 : tensor<4x8xf32> to tensor<4x8xi32>
    %13 = tensor.expand_shape %7 [[0, 1], [2]] output_shape [%arg1, 1, 8] : tensor<?x8xf32> into tensor<?x1x8xf32>
""")

LINALG = ("%arg0: tensor<4x8xf32>, %arg1: tensor<8x16xf32>, %arg2: tensor<4x16xf32>, "
          "%arg3: tensor<4xf32>, %arg4: f32, %arg5: tensor<8x4xf32>, "
          "%arg6: tensor<1x3x9x9xf32>, %arg7: tensor<5x3x3x3xf32>, %arg8: tensor<1x5x4x4xf32>, "
          "%arg9: tensor<3x3xf32>, %arg10: memref<4x8xf32>", """
    %0 = linalg.matmul {test.attrA, test.attrC} ins(%arg0, %arg1 : tensor<4x8xf32>, tensor<8x16xf32>) outs(%arg2 : tensor<4x16xf32>) -> tensor<4x16xf32>
    %1 = linalg.fill ins(%arg4 : f32) outs(%arg2 : tensor<4x16xf32>) -> tensor<4x16xf32>
    %2 = linalg.transpose ins(%arg0 : tensor<4x8xf32>) outs(%arg5 : tensor<8x4xf32>) permutation = [1, 0] 
    %3 = linalg.broadcast ins(%arg3 : tensor<4xf32>) outs(%arg0 : tensor<4x8xf32>) dimensions = [1] 
    %4 = linalg.reduce { arith.addf } ins(%arg0 : tensor<4x8xf32>) outs(%arg3 : tensor<4xf32>) dimensions = [1] 
    %5 = linalg.map { math.exp } ins(%arg0 : tensor<4x8xf32>) outs(%arg0 : tensor<4x8xf32>)
    %6 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%arg6, %arg7 : tensor<1x3x9x9xf32>, tensor<5x3x3x3xf32>) outs(%arg8 : tensor<1x5x4x4xf32>) -> tensor<1x5x4x4xf32>
    %7 = linalg.pooling_nchw_max {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%arg6, %arg9 : tensor<1x3x9x9xf32>, tensor<3x3xf32>) outs(%arg6 : tensor<1x3x9x9xf32>) -> tensor<1x3x9x9xf32>
    %8 = linalg.add ins(%arg0, %arg0 : tensor<4x8xf32>, tensor<4x8xf32>) outs(%arg0 : tensor<4x8xf32>) -> tensor<4x8xf32>
    %9 = linalg.negf ins(%arg0 : tensor<4x8xf32>) outs(%arg0 : tensor<4x8xf32>) -> tensor<4x8xf32>
    %10 = linalg.softmax dimension(1) ins(%arg0 : tensor<4x8xf32>) outs(%arg0 : tensor<4x8xf32>) -> tensor<4x8xf32>
    linalg.copy ins(%arg10 : memref<4x8xf32>) outs(%arg10 : memref<4x8xf32>)
    %11 = linalg.matvec ins(%arg0, %arg3 : tensor<4x8xf32>, tensor<4xf32>) outs(%arg3 : tensor<4xf32>) -> tensor<4xf32>
""")

MEMREF = ("%arg0: memref<8x8xf32>, %arg1: index, %arg2: f32", """
    %0 = memref.alloc(%arg1) {alignment = 64 : i64} : memref<?x4xf32>
    %1 = memref.alloca() : memref<4xf32>
    %2 = memref.load %arg0[%arg1, %arg1] : memref<8x8xf32>
    memref.store %arg2, %arg0[%arg1, %arg1] : memref<8x8xf32>
    %3 = memref.subview %arg0[0, %arg1] [2, 2] [1, 1] : memref<8x8xf32> to memref<2x2xf32, strided<[8, 1], offset: ?>>
    %4 = memref.reinterpret_cast %arg0 to offset: [0], sizes: [64], strides: [1] : memref<8x8xf32> to memref<64xf32>
    memref.copy %arg0, %arg0 : memref<8x8xf32> to memref<8x8xf32>
    %5 = memref.cast %arg0 : memref<8x8xf32> to memref<?x8xf32>
    %6 = memref.dim %5, %arg1 : memref<?x8xf32>
    %7 = memref.collapse_shape %arg0 [[0, 1]] : memref<8x8xf32> into memref<64xf32>
    %8 = memref.get_global @g : memref<2xf32>
    memref.dealloc %0 : memref<?x4xf32>
""")


@pytest.mark.parametrize("args,body", [ARITH, MATH, TENSOR, LINALG, MEMREF],
                         ids=["arith", "math", "tensor", "linalg", "memref"])
def test_op_lines_print_as_upstream(args, body):
    src = module(args, body)
    out = roundtrip(src)
    for line in textwrap.dedent(body).strip("\n").splitlines():
        # i64 attribute types are the core printer's business; compare without them.
        expected = line.replace(" : i64}", "}")
        assert any(l.strip() == expected.strip() or l.strip() == line.strip()
                   for l in out.splitlines()), f"missing: {line}"


def test_whole_text_is_kept_for_regions():
    src = module("%arg0: tensor<4x8xf32>, %arg1: index, %arg2: f32, %arg3: i1", """
        %0 = tensor.pad %arg0 nofold low[0, %arg1] high[1, 2] {
        ^bb0(%arg4: index, %arg5: index):
          tensor.yield %arg2 : f32
        } : tensor<4x8xf32> to tensor<5x?xf32>
        %1 = tensor.generate %arg1 {
        ^bb0(%arg6: index):
          tensor.yield %arg2 : f32
        } : tensor<?xf32>
        %2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%arg0 : tensor<4x8xf32>) outs(%1 : tensor<?xf32>) attrs =  {foo = 1 : i32} {
        ^bb0(%arg7: f32, %arg8: f32):
          %3 = arith.addf %arg7, %arg8 : f32
          linalg.yield %3 : f32
        } -> tensor<?xf32>
        %4 = scf.for %arg9 = %arg1 to %arg1 step %arg1 iter_args(%arg10 = %arg2) -> (f32) {
          %5 = arith.addf %arg10, %arg2 : f32
          scf.yield %5 : f32
        }
        scf.for %arg11 = %arg1 to %arg1 step %arg1 {
          %6 = arith.mulf %arg2, %arg2 : f32
        }
        %7 = scf.if %arg3 -> (f32) {
          scf.yield %arg2 : f32
        } else {
          scf.yield %4 : f32
        }
        scf.if %arg3 {
          %8 = arith.mulf %arg2, %arg2 : f32
        }
        %9 = scf.while (%arg12 = %arg2) : (f32) -> f32 {
          scf.condition(%arg3) %arg12 : f32
        } do {
        ^bb0(%arg13: f32):
          scf.yield %arg13 : f32
        }
        %10 = scf.execute_region -> f32 {
          scf.yield %arg2 : f32
        }
        %11 = linalg.reduce ins(%arg0 : tensor<4x8xf32>) outs(%1 : tensor<?xf32>) dimensions = [1]$
          (%arg14: f32, %arg15: f32) {
            %12 = arith.mulf %arg14, %arg14 : f32
            %13 = arith.addf %arg15, %12 : f32
            linalg.yield %13 : f32
          }
        %14 = linalg.map ins(%arg0, %arg0 : tensor<4x8xf32>, tensor<4x8xf32>) outs(%arg0 : tensor<4x8xf32>)
          (%arg16: f32, %arg17: f32) {
            %15 = arith.subf %arg17, %arg16 : f32
            linalg.yield %15 : f32
          }
    """.replace("$", " "))  # upstream prints a space after `dimensions = [1]`
    assert roundtrip(src) == src
    scf_for = func_ops(src)[3]
    # The implicit terminator is in the IR, as MLIR's ensureTerminator adds it.
    assert [o.name for o in func_ops(src)[4].body.ops] == ["arith.mulf", "scf.yield"]
    assert len(scf_for.operands) == 4


def test_cf_text():
    src = """module {
  func.func @f(%arg0: i1, %arg1: i32, %arg2: f32) {
    cf.assert %arg0, "must hold"
    cf.br ^bb1(%arg2 : f32)
  ^bb1(%arg3: f32):
    cf.cond_br %arg0, ^bb2(%arg3 : f32), ^bb3
  ^bb2(%arg4: f32):
    cf.switch %arg1 : i32, [
      default: ^bb3,
      42: ^bb2(%arg4 : f32),
      7: ^bb3
    ]
  ^bb3:
    return
  }
}
"""
    assert roundtrip(src) == src
    f = parse_source(src).body.ops[0]
    br, cond, switch = [op for op in f.walk() if op.name in ("cf.br", "cf.cond_br", "cf.switch")]
    assert len(br.successors) == 1 and br.successors[0] is f.regions[0].blocks[1]
    assert switch.attributes["case_operand_segments"] == DenseArrayAttr(T.i32, (1, 0))
    assert switch.attributes["case_values"].array.tolist() == [42, 7]
    assert cond.attributes["operandSegmentSizes"] == DenseArrayAttr(T.i32, (1, 1, 0))


def test_memref_global_and_scf_non_index_for():
    src = """module {
  memref.global "private" constant @g : memref<2xf32> = dense<[1.0e+00, 2.0e+00]>
  memref.global @h : memref<4xi32> = uninitialized
  func.func @f(%arg0: i32) {
    scf.for %arg1 = %arg0 to %arg0 step %arg0  : i32 {
    }
    return
  }
}
"""
    assert roundtrip(src) == src
    g = parse_source(src).body.ops[0]
    assert g.attributes["constant"] == UnitAttr()
    assert g.attributes["type"].value == T.MemRefType((2,), T.f32)
    assert g.attributes["initial_value"].type == T.TensorType((2,), T.f32)


def test_linalg_pack_unpack_and_indexing_maps_keyword():
    src = module("%arg0: tensor<4x8xf32>, %arg1: tensor<2x2x2x4xf32>, %arg2: f32, %arg3: index, "
                 "%arg4: tensor<8x4xf32>, %arg5: tensor<4x4xf32>", """
        %0 = linalg.pack %arg0 padding_value(%arg2 : f32) outer_dims_perm = [1, 0] inner_dims_pos = [0, 1] inner_tiles = [2, %arg3] into %arg1 : tensor<4x8xf32> -> tensor<2x2x2x4xf32>
        %1 = linalg.unpack %0 inner_dims_pos = [0, 1] inner_tiles = [2, 4] into %arg0 : tensor<2x2x2x4xf32> -> tensor<4x8xf32>
        %2 = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d0)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%arg4, %arg4 : tensor<8x4xf32>, tensor<8x4xf32>) outs(%arg5 : tensor<4x4xf32>) -> tensor<4x4xf32>
    """)
    assert roundtrip(src) == src
    pack = func_ops(src)[0]
    assert pack.attributes["operandSegmentSizes"].value == (1, 1, 1, 1)
    assert pack.attributes["static_inner_tiles"].value == (2, K_DYNAMIC)


# ------------------------------------------------------------------ IR form
def test_compare_predicates_and_flags():
    ops = func_ops(module("%arg0: f32, %arg1: i32", """
        %0 = arith.cmpf olt, %arg0, %arg0 : f32
        %1 = arith.cmpi slt, %arg1, %arg1 : i32
        %2 = arith.addf %arg0, %arg0 : f32
        %3 = arith.mulf %arg0, %arg0 fastmath<nnan,ninf> : f32
        %4 = arith.muli %arg1, %arg1 overflow<nsw> : i32
    """))
    assert ops[0].attributes["predicate"] == IntegerAttr(CMPF_PREDICATES.index("olt"), T.i64)
    assert ops[0].attributes["predicate"] == IntegerAttr(4, T.i64)
    assert ops[1].attributes["predicate"] == IntegerAttr(2, T.i64)
    assert ops[0].results[0].type == T.i1
    assert "fastmath" not in ops[2].attributes
    assert ops[3].attributes["fastmath"] == OpaqueAttr("#arith.fastmath<nnan,ninf>")
    assert ops[4].attributes["overflowFlags"] == OpaqueAttr("#arith.overflow<nsw>")


def test_slices_and_reshapes_ir():
    ops = func_ops(module("%arg0: tensor<4x8xf32>, %arg1: index, %arg2: f32", """
        %0 = tensor.extract_slice %arg0[0, %arg1] [2, 4] [1, 1] : tensor<4x8xf32> to tensor<2x4xf32>
        %1 = tensor.expand_shape %arg0 [[0, 1], [2]] output_shape [2, 2, 8] : tensor<4x8xf32> into tensor<2x2x8xf32>
        %2 = tensor.pad %arg0 nofold low[0, %arg1] high[1, 2] {
        ^bb0(%arg3: index, %arg4: index):
          tensor.yield %arg2 : f32
        } : tensor<4x8xf32> to tensor<5x?xf32>
    """))
    sl, ex, pad = ops
    assert sl.attributes["static_offsets"] == DenseArrayAttr(T.i64, (0, K_DYNAMIC))
    assert sl.attributes["static_sizes"] == DenseArrayAttr(T.i64, (2, 4))
    assert sl.attributes["operandSegmentSizes"] == DenseArrayAttr(T.i32, (1, 1, 0, 0))
    i = lambda v: IntegerAttr(v, T.i64)  # noqa: E731
    assert ex.attributes["reassociation"] == ArrayAttr((ArrayAttr((i(0), i(1))), ArrayAttr((i(2),))))
    assert ex.attributes["static_output_shape"] == DenseArrayAttr(T.i64, (2, 2, 8))
    assert pad.attributes["static_low"] == DenseArrayAttr(T.i64, (0, K_DYNAMIC))
    assert pad.attributes["nofold"] == UnitAttr()
    assert pad.attributes["operandSegmentSizes"] == DenseArrayAttr(T.i32, (1, 1, 0))


def _body_names(op):
    return [o.name for o in op.regions[0].blocks[0].ops]


def test_named_linalg_bodies_match_upstream_region_builders():
    ops = func_ops(module(
        "%arg0: tensor<4x8xi8>, %arg1: tensor<8x16xi8>, %arg2: tensor<4x16xi32>, "
        "%arg3: tensor<1x3x9x9xi32>, %arg4: tensor<3x3xi32>, %arg5: tensor<1x3x4x4xi32>, "
        "%arg6: f32, %arg7: tensor<4x8xf32>, %arg8: tensor<8x4xf32>", """
        %0 = linalg.matmul ins(%arg0, %arg1 : tensor<4x8xi8>, tensor<8x16xi8>) outs(%arg2 : tensor<4x16xi32>) -> tensor<4x16xi32>
        %1 = linalg.pooling_nchw_max {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%arg3, %arg4 : tensor<1x3x9x9xi32>, tensor<3x3xi32>) outs(%arg5 : tensor<1x3x4x4xi32>) -> tensor<1x3x4x4xi32>
        %2 = linalg.fill ins(%arg6 : f32) outs(%arg7 : tensor<4x8xf32>) -> tensor<4x8xf32>
        %3 = linalg.transpose ins(%arg7 : tensor<4x8xf32>) outs(%arg8 : tensor<8x4xf32>) permutation = [1, 0] 
        %4 = linalg.reduce { arith.maximumf } ins(%arg7 : tensor<4x8xf32>) outs(%arg8 : tensor<8x4xf32>) dimensions = [1] 
    """))
    mm, pool, fill, tr, red = ops
    assert _body_names(mm) == ["arith.extsi", "arith.extsi", "arith.muli", "arith.addi",
                               "linalg.yield"]
    blk = mm.regions[0].blocks[0]
    assert blk.ops[3].operands[0] is blk.args[2]  # addi %out, %mul
    assert mm.attributes["operandSegmentSizes"] == DenseArrayAttr(T.i32, (2, 1))
    assert [m.value for m in mm.attributes["indexing_maps"]][0].num_dims == 3
    assert _body_names(pool) == ["arith.maxsi", "linalg.yield"]
    pb = pool.regions[0].blocks[0]
    assert list(pb.ops[0].operands) == [pb.args[2], pb.args[0]]
    assert _body_names(fill) == ["linalg.yield"]
    assert fill.regions[0].blocks[0].ops[0].operands[0] is fill.regions[0].blocks[0].args[0]
    assert "operandSegmentSizes" not in tr.attributes
    assert tr.attributes["permutation"] == DenseArrayAttr(T.i64, (1, 0))
    rb = red.regions[0].blocks[0]
    assert list(rb.ops[0].operands) == [rb.args[1], rb.args[0]]  # maximumf %init, %in


# Upstream's generic form (mlir-opt --mlir-print-op-generic) of the pretty ops below.
UPSTREAM_GENERIC = """
"func.func"() <{function_type = (tensor<8x784xf32>, tensor<784x256xf32>, tensor<8x256xf32>, f32, tensor<8xf32>) -> (), sym_name = "f"}> ({
^bb0(%arg0: tensor<8x784xf32>, %arg1: tensor<784x256xf32>, %arg2: tensor<8x256xf32>, %arg3: f32, %arg4: tensor<8xf32>):
  %0 = "linalg.matmul"(%arg0, %arg1, %arg2) <{indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], operandSegmentSizes = array<i32: 2, 1>}> ({
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = "arith.mulf"(%a, %b) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
    %s = "arith.addf"(%c, %m) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
    "linalg.yield"(%s) : (f32) -> ()
  }) : (tensor<8x784xf32>, tensor<784x256xf32>, tensor<8x256xf32>) -> tensor<8x256xf32>
  %1 = "linalg.fill"(%arg3, %arg2) <{operandSegmentSizes = array<i32: 1, 1>}> ({
  ^bb0(%x: f32, %y: f32):
    "linalg.yield"(%x) : (f32) -> ()
  }) : (f32, tensor<8x256xf32>) -> tensor<8x256xf32>
  %2 = "linalg.generic"(%0, %arg4) <{indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<reduction>], operandSegmentSizes = array<i32: 1, 1>}> ({
  ^bb0(%in: f32, %out: f32):
    %i = "linalg.index"() <{dim = 1 : i64}> : () -> index
    %c = "arith.cmpf"(%in, %out) <{fastmath = #arith.fastmath<none>, predicate = 2 : i64}> : (f32, f32) -> i1
    %v = "arith.select"(%c, %in, %out) : (i1, f32, f32) -> f32
    "linalg.yield"(%v) : (f32) -> ()
  }) : (tensor<8x256xf32>, tensor<8xf32>) -> tensor<8xf32>
  %3 = "tensor.expand_shape"(%2) <{reassociation = [[0, 1]], static_output_shape = array<i64: 8, 1>}> : (tensor<8xf32>) -> tensor<8x1xf32>
  %4 = "tensor.empty"() : () -> tensor<256x8xf32>
  %5 = "linalg.transpose"(%0, %4) <{permutation = array<i64: 1, 0>}> ({
  ^bb0(%p: f32, %q: f32):
    "linalg.yield"(%p) : (f32) -> ()
  }) : (tensor<8x256xf32>, tensor<256x8xf32>) -> tensor<256x8xf32>
  "func.return"() : () -> ()
}) : () -> ()
"""

UPSTREAM_PRETTY = """
func.func @f(%arg0: tensor<8x784xf32>, %arg1: tensor<784x256xf32>, %arg2: tensor<8x256xf32>, %arg3: f32, %arg4: tensor<8xf32>) {
  %0 = linalg.matmul ins(%arg0, %arg1 : tensor<8x784xf32>, tensor<784x256xf32>) outs(%arg2 : tensor<8x256xf32>) -> tensor<8x256xf32>
  %1 = linalg.fill ins(%arg3 : f32) outs(%arg2 : tensor<8x256xf32>) -> tensor<8x256xf32>
  %2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%0 : tensor<8x256xf32>) outs(%arg4 : tensor<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %i = linalg.index 1 : index
    %c = arith.cmpf ogt, %in, %out : f32
    %v = arith.select %c, %in, %out : f32
    linalg.yield %v : f32
  } -> tensor<8xf32>
  %expanded = tensor.expand_shape %2 [[0, 1]] output_shape [8, 1] : tensor<8xf32> into tensor<8x1xf32>
  %4 = tensor.empty() : tensor<256x8xf32>
  %transposed = linalg.transpose ins(%0 : tensor<8x256xf32>) outs(%4 : tensor<256x8xf32>) permutation = [1, 0] 
  return
}
"""


def test_pretty_form_builds_the_ir_of_upstream_generic_form():
    generic = print_module(parse_source(UPSTREAM_GENERIC), generic=True)
    pretty = print_module(parse_source(UPSTREAM_PRETTY), generic=True)
    # mlir-opt spells out the default fastmath; ireec leaves it out (it never prints).
    generic = re.sub(r"fastmath = #arith.fastmath<none>(, )?", "", generic)
    generic = generic.replace(" {}", "")
    # func.func's attribute order is not this test's business.
    canon = lambda s: [l for l in s.splitlines() if "sym_name" not in l]  # noqa: E731
    assert canon(pretty) == canon(generic)
    assert print_module(parse_source(UPSTREAM_GENERIC)) == print_module(parse_source(UPSTREAM_PRETTY))


def test_errors_point_at_the_source():
    with pytest.raises(CompileError) as e:
        parse_source("func.func @f(%a: f32) {\n  %0 = arith.cmpf bogus, %a, %a : f32\n  return\n}\n",
                     "bad.mlir")
    assert "unknown predicate 'bogus'" in e.value.message
    assert (e.value.loc.line, e.value.loc.col) == (2, 19)
    with pytest.raises(CompileError):
        parse_source("func.func @f(%a: tensor<4xf32>) {\n  %0 = linalg.transpose ins(%a : tensor<4xf32>)"
                     " outs(%a : tensor<4xf32>)\n  return\n}\n")
