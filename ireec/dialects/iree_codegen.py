"""IREE's ``iree_codegen`` dialect: the micro-kernel call op of the CPU backends.

``iree_codegen.ukernel.generic`` (IREE: ``IREECodegenOps.td``, created by
``iree-codegen-cpu-lower-to-ukernels``) calls a micro-kernel function on memrefs. ireec's form
(ireec/passes/hal/convert_linalg_to_loops.py, printed generically) is the sgemm call::

    "iree_codegen.ukernel.generic"(%A, %B, %C, %work, <index of the first element of the
        tile in A, B and C, one per dim>..., %M, %N, %K)
        {fn_name = "ireec_uk_sgemm", strides = array<i64: a_m, a_k, b_k, b_n, ldc>,
         blocking = array<i64: MC, NC, KC>}

The verifier checks the operand counts and types against that form.
"""
from __future__ import annotations

from ..ir import types as T
from ..ir.diagnostics import CompileError
from .registry import register


def _verify_ukernel_generic(op) -> None:
    """A, B, C: f32 memrefs of rank >= 2; work: a 1-d f32 memref; then one index per dim of
    A, B and C and the three sizes, all ``index``; ``fn_name``, 5 ``strides``, 3 ``blocking``."""
    ops = list(op.operands)
    if len(ops) < 4:
        raise CompileError("'iree_codegen.ukernel.generic' expects A, B, C and a work buffer", op.loc)
    mems = ops[:4]
    for v in mems:
        t = v.type
        if not isinstance(t, T.MemRefType) or not (isinstance(t.element_type, T.FloatType) and t.element_type.name == "f32"):
            raise CompileError(f"'iree_codegen.ukernel.generic' operand of type {t}: expected an f32 memref", op.loc)
    if any(v.type.rank < 2 for v in mems[:3]) or mems[3].type.rank != 1:
        raise CompileError("'iree_codegen.ukernel.generic' expects A, B, C of rank >= 2 and a 1-d work buffer", op.loc)
    want = sum(v.type.rank for v in mems[:3]) + 3
    rest = ops[4:]
    if len(rest) != want or not all(isinstance(v.type, T.IndexType) for v in rest):
        raise CompileError(f"'iree_codegen.ukernel.generic' expects {want} index operands after its "
                           f"buffers (tile origins, M, N, K), got {len(rest)}", op.loc)
    for name, n in (("strides", 5), ("blocking", 3)):
        a = op.attributes.get(name)
        if a is None or len(list(a.value)) != n:
            raise CompileError(f"'iree_codegen.ukernel.generic' needs '{name}' with {n} values", op.loc)
    if "fn_name" not in op.attributes:
        raise CompileError("'iree_codegen.ukernel.generic' needs 'fn_name'", op.loc)


register("iree_codegen.ukernel.generic", verify=_verify_ukernel_generic)
