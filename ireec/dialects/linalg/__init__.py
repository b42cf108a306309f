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

Modules: :mod:`.named` (named-op tables and their indexing), :mod:`.structured` (the
LinalgOp interface helpers and payload builders), :mod:`.asm` (op parsers and printers),
:mod:`.ops` (registration of every op and verifier, done on import of this package).
"""
from __future__ import annotations

from ..tensor import segment_sizes  # noqa: F401  (linalg.segment_sizes, as before the split)
from .asm import GENERIC_TRAIT_ATTRS, find_payload_op  # noqa: F401
from .named import (CONTRACTIONS, CONVOLUTIONS, DST_STYLE_OPS, ELEMENTWISE,  # noqa: F401
                    ELEMENTWISE_BINARY, ELEMENTWISE_UNARY, MAPS_ATTR_OPS, NAMED_OPS,
                    NAMED_SPECS, PARALLEL, POOLINGS, REDUCTION, STRUCTURED_OPS, NamedSpec,
                    default_maps, element_type, int_list, iterator_attr, iterator_name,
                    maps_attr, spec_iterators, spec_maps)
from .ops import _verify_pack, _verify_structured  # noqa: F401  (registers every linalg op)
from .structured import (BodyFn, build_fill, build_generic, build_named_region, identity_region,  # noqa: F401
                         indexing_maps, inputs, is_linalg_structured, is_named_structured,
                         is_pure_broadcast, iterator_types, loop_ranges, make_generic, outputs,
                         payload, tensor_results)
