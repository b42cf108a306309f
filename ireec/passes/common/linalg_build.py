"""Building ``linalg.generic`` ops in the representation upstream's generic form gives:
``indexing_maps`` (ArrayAttr of AffineMapAttr), ``iterator_types`` (ArrayAttr of
``#linalg.iterator_type<...>``) and ``operandSegmentSizes`` = array<i32: #ins, #outs>.
"""
from __future__ import annotations

from typing import Callable, List, Sequence

from ...ir import types as T
from ...ir.affine import AffineMap
from ...ir.attributes import AffineMapAttr, ArrayAttr, DenseArrayAttr, OpaqueAttr
from ...ir.core import Block, Builder, Operation, Region, Value


def iterator_attr(kind: str) -> OpaqueAttr:
    return OpaqueAttr(f"#linalg.iterator_type<{kind}>")


def build_generic(b: Builder, inputs: Sequence[Value], outputs: Sequence[Value],
                  maps: Sequence[AffineMap], iterators: Sequence[str],
                  body: Callable[[Builder, List[Value]], List[Value]]) -> Operation:
    """Create a linalg.generic at ``b``. ``body(builder, block_args)`` returns the values to
    yield (one per output). Results are the output types when outputs are tensors."""
    blk = Block([T.element_type(v.type) for v in list(inputs) + list(outputs)])
    inner = Builder.at_end(blk, b.loc)
    yields = body(inner, list(blk.args))
    inner.create("linalg.yield", yields)
    result_types = [v.type for v in outputs if isinstance(v.type, T.TensorType)]
    return b.create("linalg.generic", list(inputs) + list(outputs), result_types, {
        "indexing_maps": ArrayAttr(tuple(AffineMapAttr(m) for m in maps)),
        "iterator_types": ArrayAttr(tuple(iterator_attr(k) for k in iterators)),
        "operandSegmentSizes": DenseArrayAttr(T.i32, (len(inputs), len(outputs))),
    }, regions=[Region([blk])])


def segment_sizes(op: Operation) -> List[int]:
    a = op.attributes.get("operandSegmentSizes")
    return list(a.value) if a is not None else [len(op.operands) - len(op.results), len(op.results)]
