"""IREE's ``iree_codegen`` dialect: the micro-kernel call op.

``iree_codegen.ukernel.generic`` (IREE: ``IREECodegenOps.td``, created by
``iree-codegen-cpu-lower-to-ukernels`` / ``iree-codegen-gpu-lower-to-ukernels``) calls the
micro-kernel named by ``u_kernel_fn_name`` on memrefs. ireec has five families, each with its
own operand form (printed generically):

- the CPU sgemm (ireec/passes/hal/cpu_lower_to_ukernels.py, runtime_c/ireec_ukernel.h)::

      "iree_codegen.ukernel.generic"(%A, %B, %C, %work, <index of the first element of the
          tile in A, B and C, one per dim>..., %M, %N, %K)
          {u_kernel_fn_name = "ireec_uk_sgemm", strides = array<i64: a_m, a_k, b_k, b_n, ldc>,
           blocking = array<i64: MC, NC, KC>, accumulate = true|false}

  (``accumulate`` false: C is overwritten, its initial contents never read; absent: true).
  With ``accumulate_after_first`` (and ``accumulate = false``) one more index follows the
  sizes, zero at the first of the filter taps looped around the call: that call overwrites
  C, the others accumulate.
  With an epilogue (ireec/passes/hal/ukernel_epilogue.py) the bias memref follows %work and
  its origin follows C's, and the attributes say which steps apply:
  ``bias_strides = array<i64: along i, along j>``, ``clamp_lo = lo : f32`` (``lo_keeps_nan``),
  ``clamp_hi = hi : f32`` (``hi_replaces_nan``); with ``bias_init`` the bias is where the sums
  start (``accumulate = false``), not a step after them

- the CPU int8 GEMM (ireec/passes/hal/cpu_lower_to_ukernels.py,
  runtime_c/ireec_ukernel_igemm.h)::

      "iree_codegen.ukernel.generic"(%A, %B, %C, %work, <index of the first element of the
          tile in A, B and C, one per dim>..., %M, %N, %K, %a_zp, %b_zp)
          {u_kernel_fn_name = "ireec_uk_igemm", strides = array<i64: a_m, a_k, b_k, b_n, ldc>,
           blocking = array<i64: MC, NC, KC>, accumulate = true|false}

  (A, B i8, C i32, %work an i32 array, the zero points i32; ``lhs_unsigned`` /
  ``rhs_unsigned``: A / B hold uint8 values)

- the CPU depthwise convolution (ireec/passes/hal/cpu_lower_to_ukernels.py,
  runtime_c/ireec_ukernel.h)::

      "iree_codegen.ukernel.generic"(%image, %filter, %out, <index of the first element of
          the tile in each, one per dim>..., %C, %OH, %OW)
          {u_kernel_fn_name = "ireec_uk_dwconv",
           strides = array<i64: in_c, in_y, in_x, in_ty, in_tx, w_c, w_ty, w_tx, out_c, out_y, out_x>,
           window = array<i64: KH, KW>, accumulate = true|false}

  (the same epilogue attributes as the sgemm's, the bias a per-channel vector:
  ``bias_strides = array<i64: 1>``, its memref after the output's)

- the CPU direct convolution (ireec/passes/hal/direct_conv.py, runtime_c/ireec_ukernel_conv.h)::

      "iree_codegen.ukernel.generic"(%filter, %image, %out, <index of the first element of
          the tile in each, one per dim>..., %F, %OH, %OW, %x_end)
          {u_kernel_fn_name = "ireec_uk_conv", window = array<i64: R0, R1, R2>,
           strides = array<i64: s0, s1, s2, w_f, x_y, o_f, o_y>, accumulate = true|false}

  (``phases = array<i64: S0, S1, S2, P0, P1, P2>`` for an image read in phases: a tap ``t``
  of window dim ``d`` moves ``t / Sd`` steps of ``sd`` and ``t % Sd`` of ``Pd``; absent: all
  ``Sd`` 1)

- the GPU matmul (ireec/passes/hal/gpu_lower_to_ukernels.py, ``ireec_gpu_matmul_<type>`` of
  runtime_c/ireec_runtime.h)::

      "iree_codegen.ukernel.generic"(%A, %B, %C, %wg_m, %wg_n[, %wg_b])
          {u_kernel_fn_name = "ireec_gpu_matmul_f32", sizes = array<i64: M, N, K>,
           strides = array<i64: 9 values>, tiles = array<i64: TM, TN>, accumulate = 0|1}

The verifier picks the family's check from :data:`FAMILIES` by the name's prefix.
"""
from __future__ import annotations

from typing import Callable, Dict

from ..ir import types as T
from ..ir.attributes import FloatAttr
from ..ir.diagnostics import CompileError
from .registry import register

_OP = "'iree_codegen.ukernel.generic'"


def _need_attrs(op, counts: Dict[str, int]) -> None:
    for name, n in counts.items():
        a = op.attributes.get(name)
        if a is None or len(list(a.value)) != n:
            raise CompileError(f"{_OP} needs '{name}' with {n} values", op.loc)


def _verify_sgemm(op) -> None:
    """A, B, C: f32 memrefs of rank >= 2; work: a 1-d f32 memref; with ``bias_strides`` (2
    values) a bias f32 memref; then one index per dim of A, B, C (and the bias) and the three
    sizes, all ``index`` (and the first-tap index with ``accumulate_after_first``, which
    takes no epilogue); 5 ``strides``, 3 ``blocking``; ``clamp_lo`` / ``clamp_hi`` f32."""
    ops = list(op.operands)
    n = 5 if "bias_strides" in op.attributes else 4
    if len(ops) < n:
        raise CompileError(f"{_OP} expects A, B, C, a work buffer" + (" and a bias" if n == 5 else ""), op.loc)
    mems = ops[:n]
    _need_f32_memrefs(op, mems)
    if any(v.type.rank < 2 for v in mems[:3]) or mems[3].type.rank != 1:
        raise CompileError(f"{_OP} expects A, B, C of rank >= 2 and a 1-d work buffer", op.loc)
    rest = ops[n:]
    if "accumulate_after_first" in op.attributes:
        if n == 5 or any(a in op.attributes for a in ("clamp_lo", "clamp_hi")):
            raise CompileError(f"{_OP} with 'accumulate_after_first' takes no bias or clamp", op.loc)
        if not rest or not isinstance(rest[-1].type, T.IndexType):
            raise CompileError(f"{_OP} with 'accumulate_after_first' expects the first-tap index last", op.loc)
        rest = rest[:-1]
    _need_origins_and_sizes(op, mems[:3] + mems[4:], rest, "M, N, K")
    _need_attrs(op, {"strides": 5, "blocking": 3, **({"bias_strides": 2} if n == 5 else {})})
    _need_f32_bounds(op)


def _need_f32_bounds(op) -> None:
    """The epilogue's ``clamp_lo`` / ``clamp_hi``, where present, are f32."""
    for name in ("clamp_lo", "clamp_hi"):
        a = op.attributes.get(name)
        if a is not None and not (isinstance(a, FloatAttr) and a.type == T.f32):
            raise CompileError(f"{_OP} needs an f32 '{name}'", op.loc)


def _need_f32_memrefs(op, values) -> None:
    for v in values:
        t = v.type
        if not isinstance(t, T.MemRefType) or not (isinstance(t.element_type, T.FloatType) and t.element_type.name == "f32"):
            raise CompileError(f"{_OP} operand of type {t}: expected an f32 memref", op.loc)


def _need_origins_and_sizes(op, mems, rest, sizes: str, count: int = 3) -> None:
    """``rest``: one ``index`` per dim of each of ``mems`` (the tile's first element), then
    the ``count`` sizes named ``sizes``."""
    want = sum(v.type.rank for v in mems) + count
    if len(rest) != want or not all(isinstance(v.type, T.IndexType) for v in rest):
        raise CompileError(f"{_OP} expects {want} index operands after its "
                           f"buffers (tile origins, {sizes}), got {len(rest)}", op.loc)


def _verify_igemm(op) -> None:
    """A, B: i8 memrefs of rank >= 2; C: an i32 memref of rank >= 2; work: a 1-d i32 memref;
    then one index per dim of A, B, C and the three sizes, all ``index``, and the zero points
    of A and B (i32); 5 ``strides``, 3 ``blocking``."""
    ops = list(op.operands)
    if len(ops) < 6:
        raise CompileError(f"{_OP} expects A, B, C, a work buffer and two zero points", op.loc)
    mems = ops[:4]
    for v, width in zip(mems, (8, 8, 32, 32)):
        t = v.type
        if not (isinstance(t, T.MemRefType) and isinstance(t.element_type, T.IntegerType)
                and t.element_type.width == width):
            raise CompileError(f"{_OP} operand of type {t}: expected an i{width} memref", op.loc)
    if any(v.type.rank < 2 for v in mems[:3]) or mems[3].type.rank != 1:
        raise CompileError(f"{_OP} expects A, B, C of rank >= 2 and a 1-d work buffer", op.loc)
    zps = ops[-2:]
    if not all(isinstance(v.type, T.IntegerType) and v.type.width == 32 for v in zps):
        raise CompileError(f"{_OP} expects the zero points of A and B (i32) last", op.loc)
    _need_origins_and_sizes(op, mems[:3], ops[4:-2], "M, N, K")
    _need_attrs(op, {"strides": 5, "blocking": 3})


def _verify_dwconv(op) -> None:
    """image, filter, output: f32 memrefs; with ``bias_strides`` (1 value) a bias f32 memref;
    then one index per dim of each and the sizes C, OH, OW (and with ``padding``, 8 values,
    the padding before the tile along rows and columns), all ``index``; 11 ``strides``,
    2 ``window``; ``clamp_lo`` / ``clamp_hi`` f32."""
    ops = list(op.operands)
    n = 4 if "bias_strides" in op.attributes else 3
    if len(ops) < n:
        raise CompileError(f"{_OP} expects an image, a filter, an output" + (" and a bias" if n == 4 else ""), op.loc)
    _need_f32_memrefs(op, ops[:n])
    padded = "padding" in op.attributes
    _need_origins_and_sizes(op, ops[:n], ops[n:], "C, OH, OW, PT, PL" if padded else "C, OH, OW",
                            5 if padded else 3)
    _need_attrs(op, {"strides": 11, "window": 2, **({"bias_strides": 1} if n == 4 else {}),
                     **({"padding": 8} if padded else {})})
    _need_f32_bounds(op)


def _verify_conv(op) -> None:
    """filter, image, output: f32 memrefs; then one index per dim of each and the sizes F,
    OH, OW and x_end, all ``index``; 3 ``window``, 7 ``strides``, optionally 6 ``phases``
    (the first three, phase counts, at least 1)."""
    ops = list(op.operands)
    if len(ops) < 3:
        raise CompileError(f"{_OP} expects a filter, an image and an output", op.loc)
    _need_f32_memrefs(op, ops[:3])
    _need_origins_and_sizes(op, ops[:3], ops[3:], "F, OH, OW, x_end", 4)
    _need_attrs(op, {"window": 3, "strides": 7, **({"phases": 6} if "phases" in op.attributes else {})})
    ph = op.attributes.get("phases")
    if ph is not None and any(int(v) < 1 for v in list(ph.value)[:3]):
        raise CompileError(f"{_OP} 'phases' needs phase counts of at least 1", op.loc)


def _verify_gpu_matmul(op) -> None:
    """A, B, C: memrefs; then 2 or 3 workgroup ids (``index``: m, n and the batch);
    3 ``sizes``, 9 ``strides``, 2 ``tiles`` and ``accumulate``."""
    ops = list(op.operands)
    if len(ops) not in (5, 6) or not all(isinstance(v.type, T.MemRefType) for v in ops[:3]):
        raise CompileError(f"{_OP} expects A, B, C memrefs and 2 or 3 workgroup ids", op.loc)
    if not all(isinstance(v.type, T.IndexType) for v in ops[3:]):
        raise CompileError(f"{_OP} expects index workgroup ids after its buffers", op.loc)
    _need_attrs(op, {"sizes": 3, "strides": 9, "tiles": 2})
    if "accumulate" not in op.attributes:
        raise CompileError(f"{_OP} needs 'accumulate'", op.loc)


#: Micro-kernel families by name prefix → the check of their operand form.
FAMILIES: Dict[str, Callable] = {
    "ireec_uk_sgemm": _verify_sgemm,
    "ireec_uk_igemm": _verify_igemm,
    "ireec_uk_dwconv": _verify_dwconv,
    "ireec_uk_conv": _verify_conv,
    "ireec_gpu_matmul_": _verify_gpu_matmul,
}


def family(name: str) -> str:
    """The :data:`FAMILIES` key whose prefix ``name`` starts with ('' for none)."""
    return next((f for f in FAMILIES if name.startswith(f)), "")


def _verify_ukernel_generic(op) -> None:
    a = op.attributes.get("u_kernel_fn_name")
    if a is None:
        raise CompileError(f"{_OP} needs 'u_kernel_fn_name'", op.loc)
    fam = family(a.value)
    if not fam:
        raise CompileError(f"{_OP}: unknown micro-kernel '{a.value}' (known: {', '.join(FAMILIES)})", op.loc)
    FAMILIES[fam](op)


register("iree_codegen.ukernel.generic", verify=_verify_ukernel_generic)
