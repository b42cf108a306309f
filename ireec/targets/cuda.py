"""Target ``cuda``: CUDA C kernels and a CUDA host module, built with nvcc.

Generated files (templates/cuda/): ``<module>.h`` (the ABI, C-callable), ``<module>.cu`` (the
host module: one entry per public function taking **device** pointers, a device workspace of
``<MODULE>_WORKSPACE_SIZE`` bytes and a ``cudaStream_t``; a host-pointer convenience entry
``<function>_host`` that copies in, runs and copies out; the reflection table, whose calls use
the host-pointer entries), ``<module>_kernels.h/.cu`` (per dispatch: the workgroup function as a
``__device__`` function, a ``__global__`` kernel and a launch function), ``ireec_runtime.h`` and
``ireec_gpu_ukernel.h``.

Execution model, as IREE's LLVMGPU pipeline maps it: the dispatch's workgroup count is the
grid and its workgroup size the block; one CUDA block runs one workgroup, ``blockIdx.x/y/z``
being the workgroup ids (a 1-D count beyond ``SM_COUNT * BLOCKS_PER_SM`` launches that many
blocks, each looping over workgroups: :meth:`CUDATarget.grid_for`). The lowering config per
dispatch kind (:meth:`CUDATarget.gpu_kernel_config`, applied by
``iree-llvmgpu-select-lowering-strategy``) chooses the tiles; :meth:`CUDATarget.distribute_workgroup`
maps the workgroup body onto the block: independent loops block-stride over the threads, row
reductions a warp per row with ``__shfl_down_sync``, folds into one element over the whole
block, matmuls through the micro-kernels ``ireec_gpu_matmul_<type>`` of ireec_gpu_ukernel.h
(``iree-codegen-gpu-lower-to-ukernels``). Arithmetic contracts into FMA by default
(``-fmad=true``, as the C targets' ``-ffp-contract=fast``); under ``--strict-fp``
(``-fmad=false``) element-wise arithmetic rounds as the ``c`` target's does, while the matmul
micro-kernel still fuses multiply-adds and warp/block reductions sum in another order, so
those differ from the ``c`` target in the last bits.

Constants and mutable module state are ``__device__`` arrays in the module image (no upload
step); the host program reaches them through ``cudaGetSymbolAddress``. Host-side buffer
copies are ``cudaMemcpyAsync`` device-to-device on the call's stream, and the scalars the host
program reads from or writes to tensors (control flow on tensor values) are copied
synchronously. Errors of the CUDA runtime map to IREE status codes (``ireec_cuda_status``).
"""
from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
from typing import Dict, List, Optional

from ..ir.diagnostics import CompileError
from . import register_target
from .base import GPUKernelConfig
from .c import CTarget

#: Largest grid extent per axis (CUDA: x up to 2**31 - 1, y and z up to 65535).
GRID_LIMITS = (2 ** 31 - 1, 65535, 65535)
#: Threads per block of a distributed workgroup, and the warp size it rounds up to.
MAX_THREADS = 256
WARP = 32
#: Streaming multiprocessors of the GPU the grid is sized for (H100 SXM / H200: 132) and the
#: blocks of :data:`MAX_THREADS` threads one of them keeps resident (2048 threads per SM).
#: A 1-D launch of more workgroups than ``SM_COUNT * BLOCKS_PER_SM`` runs that many blocks,
#: each looping over workgroups (grid-stride), as CUDA's best-practice guide advises.
SM_COUNT = 132
BLOCKS_PER_SM = 8
#: Rows each warp of a row-reduction workgroup takes when the rows outnumber the capped
#: grid's threads (else one).
ROWS_PER_WARP = 4
#: Rows at least this long take a block each when a warp per row would leave most of the
#: GPU's resident threads idle.
BLOCK_ROW = 4 * MAX_THREADS
#: Elements of the innermost dim one elementwise workgroup covers (4 per thread).
ELEMENTWISE_TILE = 4 * MAX_THREADS
#: Output tile (M, N) of one block of the matmul micro-kernels ``ireec_gpu_matmul_<type>``
#: (ireec_gpu_ukernel.h: 256 threads each computing an 8x8 register block, K in steps of 8).
MATMUL_TILE = (128, 128)
MATMUL_THREADS = 256
#: Shared memory of ``ireec_gpu_matmul_<type>`` (two buffers of A and B slabs, 8 x 132 floats
#: each) and the static shared memory a block may declare (CUDA: 48 KiB).
MATMUL_SHARED_BYTES = 2 * 2 * 8 * 132 * 4
SHARED_LIMIT = 48 * 1024
#: Callees of device micro-kernels: every thread of the block calls them together.
UKERNEL_PREFIX = "ireec_gpu_"
#: Ops that may stand beside the distributed loop: every thread computes them alike.
_UNIFORM_OPS = ("emitc.verbatim", "emitc.constant", "emitc.expression")


def _int_constant(v) -> Optional[int]:
    """The value of an ``emitc.constant`` integer (None for anything else)."""
    o = v.owner
    if getattr(o, "name", None) != "emitc.constant":
        return None
    val = getattr(o.attributes.get("value"), "value", None)
    return val if isinstance(val, int) else None


#: Templates of ``emitc.expression`` combiners a warp may apply in any order (commutative and
#: associative up to floating-point rounding): +, *, &, |, ^, integer add/mul through unsigned,
#: max/min (IEEE and NaN-propagating), integer select-max/min.
_COMBINER = re.compile(
    r"\{0\} [+*&|^] \{1\}"
    r"|\(\w+\)\(\(\w+\)\{0\} [+*] \(\w+\)\{1\}\)"
    r"|ireec_(?:maximum|minimum)\w*\(\{0\}, \{1\}\)"
    r"|fm(?:ax|in)f?\(\{0\}, \{1\}\)"
    r"|\(\{0\} [<>] \{1\} \? \{0\} : \{1\}\)")
#: Element types a warp shuffle moves (``__shfl_down_sync`` overloads).
_SHUFFLED = ("f32", "f64", "i32", "i64", "si32", "si64", "ui32", "ui64")


def fold_loop(loop):
    """When the loop ``loop`` folds values into one element — its body holds pure ops and
    exactly one load and one store of that element (``out[i] = combine(out[i], z)``, the
    address invariant in the loop, ``combine`` a :data:`_COMBINER`, the element a shuffled
    type) — return ``(load, store, combine, z)``; else None."""
    from ..ir import types as T
    from ..passes.vm.emitc_utils import defined_inside as _defined_inside
    from ..passes.vm.mark_independent_loops import access_address

    body = list(loop.body.ops)
    if any(o.regions or o.name not in ("emitc.constant", "emitc.expression", "emitc.load", "emitc.store")
           for o in body):
        return None
    stores = [o for o in body if o.name == "emitc.store"]
    if len(stores) != 1:
        return None
    st = stores[0]
    loads = [o for o in body if o.name == "emitc.load" and o.operands[0] is st.operands[1]]
    if len(loads) != 1 or access_address(loads[0]) != access_address(st):
        return None
    ld = loads[0]
    inside = _defined_inside(loop)
    if any(v in inside for v in list(st.operands[2:]) + list(ld.operands[1:])):
        return None
    x = ld.results[0]
    comb = st.operands[0].owner
    if (getattr(comb, "name", None) != "emitc.expression" or comb.parent is not loop.body
            or len(comb.operands) != 2 or list(comb.operands).count(x) != 1 or len(x.uses) != 1
            or not _COMBINER.fullmatch(comb.attributes["c"].value)):
        return None
    t = x.type
    if not (isinstance(t, (T.FloatType, T.IntegerType)) and str(t) in _SHUFFLED):
        return None
    z = comb.operands[1] if comb.operands[0] is x else comb.operands[0]
    return ld, st, comb, z


def _trailing_inner_loop(loop):
    """The ``emitc.for`` that ends ``loop``'s body when only pure ops (constants,
    expressions, loads) come before it; else None."""
    ops = list(loop.body.ops)
    if not ops or ops[-1].name != "emitc.for":
        return None
    if any(o.name not in ("emitc.constant", "emitc.expression", "emitc.load") for o in ops[:-1]):
        return None
    return ops[-1]


def row_reduction(loop):
    """When ``loop`` (an ``emitc.for`` whose iterations are independent rows) ends with one
    inner loop folding values into one element per row (:func:`fold_loop`) that reads some
    input contiguously along the inner loop (a row of a row-major matrix), with only pure
    ops before it, return ``(inner, load, store, combine, z)``; else None."""
    inner = _trailing_inner_loop(loop)
    if inner is None:
        return None
    match = fold_loop(inner)
    if match is None or not _walks_contiguously(inner, exclude=match[0]):
        return None  # a thread per row reads better when the row is not contiguous
    return (inner,) + match


def _walks_contiguously(inner, exclude=None) -> bool:
    """Whether some load or store of the loop ``inner`` (other than ``exclude``) has a
    unit-stride subscript that is its induction variable plus invariant values."""
    from ..passes.vm.emitc_utils import defined_inside as _defined_inside
    from ..passes.vm.mark_independent_loops import _shift_of

    iv = inner.body.args[0]
    inside = _defined_inside(inner) - {iv}
    for o in inner.body.ops:
        if o.name not in ("emitc.load", "emitc.store") or o is exclude:
            continue
        idx = o.operands[1:] if o.name == "emitc.load" else o.operands[2:]
        if any(st == 1 and _shift_of(i, iv, inside) for st, i in zip(o.attributes["strides"].value, idx)):
            return True
    return False


def row_of_elements(loop):
    """When ``loop`` (independent rows) ends with an inner loop whose iterations are
    independent too and which walks memory contiguously, with only pure ops before it
    (e.g. the normalisation of a softmax), return that inner loop; else None."""
    from ..passes.vm.mark_independent_loops import iterations_independent

    inner = _trailing_inner_loop(loop)
    if inner is None:
        return None
    if not iterations_independent(inner) or not _walks_contiguously(inner):
        return None
    return inner


def _expr(b, operands, c: str, ty):
    """An ``emitc.expression`` with C template ``c`` over ``operands`` (``{i}``), built by ``b``."""
    from ..ir.attributes import StringAttr

    return b.create("emitc.expression", list(operands), [ty], {"c": StringAttr(c)}).result


def _spread_loop(b, loop, lane: str, count: int) -> None:
    """Make ``loop`` start at ``lb + <lane> * step`` and step by ``count * step``: its
    iterations spread over ``count`` workers numbered by the C expression ``lane``."""
    lb, _ub, step = loop.operands[:3]
    loop.set_operand(0, _expr(b, [lb, step], f"{{0}} + {lane} * {{1}}", lb.type))
    loop.set_operand(2, _expr(b, [step], f"{count} * {{0}}", step.type))


def distribute_rows_of_elements(body, loop, inner, threads: int) -> None:
    """A warp per row of ``loop`` (rows ``lb + warp*step``, ``+ (threads/32)*step``...),
    its lanes over the elements of the row (``inner``: lane ``l`` takes ``l``, ``l + 32``...),
    so a warp touches contiguous memory."""
    from ..ir.core import Builder

    _spread_loop(Builder(body, body.ops.index(loop), loop.loc), loop, f"(int)threadIdx.x / {WARP}", threads // WARP)
    _spread_loop(Builder(loop.body, loop.body.ops.index(inner), inner.loc), inner, f"(int)threadIdx.x % {WARP}", WARP)


def _fold_into_partial(outer_block, at_op, inner, match):
    """Declare ``part``/``have`` (a private partial and whether it holds a value) in
    ``outer_block`` before ``at_op`` and rewrite the fold of ``inner`` (:func:`fold_loop`)
    to ``part = have ? combine(part, z) : z; have = 1``. Returns ``(part, have, load
    operands, load attributes, store operands after the value, store attributes)``."""
    from ..ir import types as T
    from ..ir.attributes import FloatAttr, IntegerAttr, StringAttr
    from ..ir.core import Builder

    ld, st, comb, z = match
    x = ld.results[0]
    t = x.type
    saved = (list(ld.operands), dict(ld.attributes), list(st.operands[1:]), dict(st.attributes))
    rb = Builder(outer_block, outer_block.ops.index(at_op), at_op.loc)
    zero_attr = FloatAttr(0.0, t) if isinstance(t, T.FloatType) else IntegerAttr(0, t)
    part = rb.create("emitc.variable", [rb.create("emitc.constant", [], [t], {"value": zero_attr}).result], [t]).result
    no = rb.create("emitc.constant", [], [T.i32], {"value": IntegerAttr(0, T.i32)}).result
    have = rb.create("emitc.variable", [no], [T.i32]).result
    ib = Builder(inner.body, inner.body.ops.index(ld), ld.loc)
    x.replace_all_uses_with(ib.create("emitc.read", [part], [t]).result)
    ld.erase()
    ib = Builder(inner.body, inner.body.ops.index(st), st.loc)
    h = ib.create("emitc.read", [have], [T.i32]).result
    sel = ib.create("emitc.expression", [h, comb.results[0], z], [t], {"c": StringAttr("{0} ? {1} : {2}")}).result
    ib.create("emitc.assign", [part, sel], [])
    yes = ib.create("emitc.constant", [], [T.i32], {"value": IntegerAttr(1, T.i32)}).result
    ib.create("emitc.assign", [have, yes], [])
    st.erase()
    return (part, have) + saved


def _warp_combine(b, part, have, comb_of, every_lane: bool) -> None:
    """Fold the 32 partials of a warp into lane 0's (``__shfl_down_sync`` by 16, 8, 4, 2,
    1); ``have`` flags travel along unless ``every_lane`` holds a value."""
    from ..ir import types as T

    t = part.type

    def expr(operands, c, ty):
        return _expr(b, operands, c, ty)

    for off in (16, 8, 4, 2, 1):
        p = b.create("emitc.read", [part], [t]).result
        o = expr([p], f"__shfl_down_sync(0xffffffffu, {{0}}, {off})", t)
        both = comb_of(b, p, o)
        if every_lane:
            b.create("emitc.assign", [part, both], [])
            continue
        h = b.create("emitc.read", [have], [T.i32]).result
        oh = expr([h], f"__shfl_down_sync(0xffffffffu, {{0}}, {off})", T.i32)
        b.create("emitc.assign", [part, expr([oh, h, both, o, p], "{0} ? ({1} ? {2} : {3}) : {4}", t)], [])
        b.create("emitc.assign", [have, expr([h, oh], "{0} | {1}", T.i32)], [])


def _fold_into_element(b, cond_c, cond_operands, part, saved, comb_of) -> None:
    """``if (cond) out[i] = combine(out[i], part);`` with the saved load/store of the fold."""
    from ..ir import types as T
    from ..ir.attributes import StringAttr
    from ..ir.core import Block, Builder, Region

    ld_operands, ld_attrs, st_operands, st_attrs = saved
    p = b.create("emitc.read", [part], [part.type]).result
    cond = b.create("emitc.expression", list(cond_operands), [T.i1], {"c": StringAttr(cond_c)}).result
    then = Block()
    tb = Builder.at_end(then)
    old = tb.create("emitc.load", ld_operands, [part.type], ld_attrs).result
    tb.create("emitc.store", [comb_of(tb, old, p)] + st_operands, [], st_attrs)
    b.create("emitc.if", [cond], [], regions=[Region([then])])


def _combiner(match):
    """``comb_of(builder, acc, value)``: the fold's combine expression over two values, in
    the operand order of the original (``acc`` where the element was read)."""
    from ..ir.attributes import StringAttr

    ld, _st, comb, _z = match
    x_first = comb.operands[0] is ld.results[0]
    template = comb.attributes["c"].value
    t = ld.results[0].type

    def comb_of(b, acc, val):
        return b.create("emitc.expression", [acc, val] if x_first else [val, acc], [t],
                        {"c": StringAttr(template)}).result
    return comb_of


def _every_iteration_count(loop, lanes: int) -> bool:
    """Whether ``loop`` has constant bounds and at least ``lanes`` iterations (so each of
    ``lanes`` threads striding over it gets one)."""
    lb, ub, step = (_int_constant(v) for v in loop.operands[:3])
    return None not in (lb, ub, step) and step > 0 and -(-(ub - lb) // step) >= lanes


def distribute_block_reduction(body, loop, match, threads: int) -> None:
    """The top-level fold ``loop`` (:func:`fold_loop`, e.g. a sum of everything into one
    element) over the whole block: thread ``t`` folds iterations ``t``, ``t + threads``...
    into a private partial, each warp combines its partials with ``__shfl_down_sync``, lane
    0 of each warp writes its warp's partial to ``__shared__`` arrays, and after a barrier
    thread 0 folds those into the element (IREE's ``LLVMGPUWarpReduction``: a warp reduce,
    then shared memory across warps)."""
    from ..emitc.ctypes import storage_ctype
    from ..ir import types as T
    from ..ir.attributes import IntegerAttr, StringAttr, TypeAttr, DenseArrayAttr
    from ..ir.core import Block, Builder, Region

    comb_of = _combiner(match)
    t = match[0].results[0].type
    every = _every_iteration_count(loop, threads)
    part, have, *saved = _fold_into_partial(body, loop, loop, match)
    _spread_loop(Builder(body, body.ops.index(loop), loop.loc), loop, "(int)threadIdx.x", threads)
    ab = Builder(body, body.ops.index(loop) + 1, loop.loc)
    _warp_combine(ab, part, have, comb_of, every)
    nw = threads // WARP
    arrays = []
    for ty in (t, T.i32):
        arrays.append(ab.create("emitc.variable", [], [T.MemRefType((nw,), ty)], {
            "array_size": IntegerAttr(nw, T.index), "element": StringAttr("__shared__ " + storage_ctype(ty))}).result)

    def access(bb, name, operands, ty, w):
        idx = bb.create("emitc.constant", [], [T.index], {"value": IntegerAttr(w, T.index)}).result if isinstance(w, int) else w
        attrs = {"strides": DenseArrayAttr(T.i64, (1,)), "offset": IntegerAttr(0, T.index), "element_type": TypeAttr(ty)}
        if name == "emitc.load":
            return bb.create(name, operands + [idx], [ty], attrs).result
        bb.create(name, operands + [idx], [], attrs)

    # Lane 0 of each warp publishes the warp's partial.
    then = Block()
    tb = Builder.at_end(then)
    w = _expr(tb, [], f"(int)threadIdx.x / {WARP}", T.index)
    access(tb, "emitc.store", [tb.create("emitc.read", [part], [t]).result, arrays[0]], t, w)
    access(tb, "emitc.store", [tb.create("emitc.read", [have], [T.i32]).result, arrays[1]], T.i32, w)
    ab.create("emitc.if", [_expr(ab, [], f"(int)threadIdx.x % {WARP} == 0", T.i1)], [], regions=[Region([then])])
    ab.create("emitc.verbatim", [], [], {"value": StringAttr("__syncthreads();")})
    # Thread 0 folds the warps' partials, then into the element.
    then = Block()
    tb = Builder.at_end(then)
    tb.create("emitc.assign", [part, access(tb, "emitc.load", [arrays[0]], t, 0)], [])
    tb.create("emitc.assign", [have, access(tb, "emitc.load", [arrays[1]], T.i32, 0)], [])
    for k in range(1, nw):
        p = tb.create("emitc.read", [part], [t]).result
        h = tb.create("emitc.read", [have], [T.i32]).result
        o = access(tb, "emitc.load", [arrays[0]], t, k)
        oh = access(tb, "emitc.load", [arrays[1]], T.i32, k)
        tb.create("emitc.assign", [part, _expr(tb, [oh, h, comb_of(tb, p, o), o, p], "{0} ? ({1} ? {2} : {3}) : {4}", t)], [])
        tb.create("emitc.assign", [have, _expr(tb, [h, oh], "{0} | {1}", T.i32)], [])
    h = tb.create("emitc.read", [have], [T.i32]).result
    _fold_into_element(tb, "{0}", [h], part, saved, comb_of)
    ab.create("emitc.if", [_expr(ab, [], "threadIdx.x == 0", T.i1)], [], regions=[Region([then])])


def distribute_rows_over_warps(body, loop, match, threads: int) -> None:
    """Rewrite the row reduction ``match`` (:func:`row_reduction`) of ``loop`` in ``body``
    so that each warp takes a row (rows ``lb + warp*step``, ``+ (threads/32)*step``...; the
    block has ``threads`` threads) and its 32 lanes split the inner loop (lane ``l`` folds
    elements ``l``, ``l + 32``... into a private partial), then combine the partials with
    ``__shfl_down_sync`` (offsets 16, 8, 4, 2, 1: IREE's ``LLVMGPUWarpReduction`` subgroup
    reduce) and lane 0 folds the result into the row's element. A lane that saw no element
    contributes nothing (a ``have`` flag travels with its partial, unless the row has at
    least 32 elements), so no identity value is needed. The order of the fold changes, so
    floating-point results may differ from a sequential loop's in the last bits."""
    from ..ir.core import Builder

    inner, fold = match[0], match[1:]
    comb_of = _combiner(fold)
    _spread_loop(Builder(body, body.ops.index(loop), loop.loc), loop, f"(int)threadIdx.x / {WARP}", threads // WARP)
    every = _every_iteration_count(inner, WARP)
    part, have, *saved = _fold_into_partial(loop.body, inner, inner, fold)
    _spread_loop(Builder(loop.body, loop.body.ops.index(inner), inner.loc), inner, f"(int)threadIdx.x % {WARP}", WARP)
    ab = Builder.at_end(loop.body)
    _warp_combine(ab, part, have, comb_of, every)
    h = ab.create("emitc.read", [have], [have.type]).result
    _fold_into_element(ab, f"(int)threadIdx.x % {WARP} == 0 && {{0}}", [h], part, saved, comb_of)


#: The architecture built for when no GPU is visible (H100/H200, with its PTX for newer GPUs).
DEFAULT_ARCH = "sm_90"


def gpu_visible() -> bool:
    """Whether an NVIDIA GPU is visible to this process (``nvidia-smi -L`` lists one)."""
    smi = shutil.which("nvidia-smi")
    if not smi:
        return False
    try:
        proc = subprocess.run([smi, "-L"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                              text=True, timeout=20)
    except (OSError, subprocess.SubprocessError):
        return False
    return proc.returncode == 0 and "GPU" in proc.stdout


class CUDATarget(CTarget):
    """CUDA C through nvcc: one block per workgroup (``blockIdx`` = workgroup id), GPU
    lowering configs per dispatch kind, the host program on a ``cudaStream_t`` over device
    pointers."""

    name = "cuda"
    #: The pool is a ``__device__`` array of the module image: C text only.
    binary_constants = False
    is_gpu = True
    #: A padded tile per workgroup would be per-thread local memory here: pads keep their dispatch.
    fuse_padding_into_consumers = False
    ukernels = ()  # no CPU micro-kernels: GPU matmuls call ireec_gpu_matmul_* (iree-codegen-gpu-lower-to-ukernels)
    iree_backends = ("cuda",)
    variant = "cuda_nvptx_fb"
    templates = "cuda"
    compiler_env = ("NVCC", "nvcc")
    flags_env = "NVCCFLAGS"
    source_suffix = ".cu"

    def __init__(self, arch: Optional[str] = None):
        self.arch = arch

    def configure(self, **options) -> "CUDATarget":
        """``cuda_arch``: nvcc's ``-arch`` (``sm_90``, ``native``...); ``strict_fp`` as
        :meth:`Target.configure`."""
        super().configure(**options)
        if options.get("cuda_arch"):
            self.arch = options["cuda_arch"]
        return self

    # ------------------------------------------------------------------ toolchain
    def resolved_arch(self) -> str:
        """``-arch`` value: the configured one, else ``$IREEC_CUDA_ARCH``, else ``native``
        when a GPU is visible, else :data:`DEFAULT_ARCH` (whose PTX is embedded too)."""
        return self.arch or os.environ.get("IREEC_CUDA_ARCH") or ("native" if gpu_visible() else DEFAULT_ARCH)

    #: GPU reductions have their own lowering (warp shuffles), not the CPU's SIMD pragma.
    reassociate_fp_reductions = False

    def compile_flags(self) -> List[str]:
        """``-O3 -arch=<arch>`` and ``-fmad=true`` (multiply-adds contract into FMA, as
        ``-ffp-contract=fast`` for the C targets), or ``-fmad=false`` under :attr:`strict_fp`
        (every float operation rounds as written, as ``-ffp-contract=off``)."""
        return ["-O3", f"-arch={self.resolved_arch()}", "-fmad=false" if self.strict_fp else "-fmad=true"]

    def link_command(self, objects, output: str) -> List[str]:
        """nvcc links the shared library (static cudart)."""
        env = shlex.split(os.environ.get("LDFLAGS", ""))
        return (self.compiler() + ["-shared", "-Xcompiler", "-fPIC", f"-arch={self.resolved_arch()}"]
                + env + list(objects) + ["-o", output, "-lm"])

    # ------------------------------------------------------------------ kernels
    def kernel_specifiers(self, has_loop: bool) -> List[str]:
        """The workgroup function is a ``__device__`` function called by its ``__global__``
        kernel with the block ids."""
        return ["static", "__device__"]

    def gpu_kernel_config(self, kind, extents, tiles, *, matmul=None, root_dims=(), inner_reduction=False):
        """IREE LLVMGPU-style configs (see ``gpu_select_lowering_strategy``):

        - elementwise (``LLVMGPUVectorize``): the innermost dim in tiles of
          :data:`ELEMENTWISE_TILE` elements, the others 1 (one contiguous run per workgroup,
          one element per thread and pass, block-stride so a warp reads 128 contiguous
          bytes); when the innermost extent is below :data:`MAX_THREADS`, the next dim is
          tiled by up to :data:`MAX_THREADS` so the block still has that many rows to spread;
        - contraction with an f32/f16/bf16 matmul or batch_matmul root
          (``LLVMGPUMatmulSimt``): tiles of :data:`MATMUL_TILE` over (m, n), 1 over the
          batch, :data:`MATMUL_THREADS` threads, micro-kernel ``ireec_gpu_matmul_<type>``
          (f32 accumulation); other contractions keep the CPU tiling (``LLVMGPUDistribute``);
        - reduction whose root reduces its innermost loop (rows: sums, softmax, layernorm;
          ``LLVMGPUWarpReduction``): tiles of ``MAX_THREADS / WARP`` rows (times
          :data:`ROWS_PER_WARP` when there are many), one warp per row; few rows of at
          least :data:`BLOCK_ROW` elements: a block per row
          (see :meth:`distribute_workgroup`), the grid capped by :meth:`grid_for`; rows
          shorter than a warp: tiles of :data:`MAX_THREADS` rows, a thread per row;
        - other reductions and everything else (``LLVMGPUDistribute``): the CPU tiling, rows
          or independent iterations spread over up to :data:`MAX_THREADS` threads."""
        tiles = list(tiles)
        if not extents:
            return GPUKernelConfig("LLVMGPUDistribute", (), (1,))
        if kind == "elementwise":
            new = [1] * len(extents)
            new[-1] = min(extents[-1], ELEMENTWISE_TILE)
            if extents[-1] < MAX_THREADS and len(extents) > 1:
                new[-2] = min(extents[-2], MAX_THREADS)
            rows = new[-2] if extents[-1] < MAX_THREADS and len(extents) > 1 else new[-1]
            return GPUKernelConfig("LLVMGPUVectorize", self.fit_grid(extents, new), (self.block_size(rows),))
        if kind == "contraction" and matmul is not None:
            role = {matmul["m"]: "m", matmul["n"]: "n", **{d: "batch" for d in matmul["batch"]}}
            if len(root_dims) == len(extents) and sorted(role.get(d, "") for d in root_dims) == sorted(role.values()):
                new = [MATMUL_TILE[0] if role[d] == "m" else MATMUL_TILE[1] if role[d] == "n" else 1
                       for d in root_dims]
                new = [min(t, e) if role[d] == "batch" else t for t, e, d in zip(new, extents, root_dims)]
                if self.fit_grid(extents, new) == tuple(new):  # one batch per workgroup
                    return GPUKernelConfig("LLVMGPUMatmulSimt", tuple(new), (MATMUL_THREADS,),
                                           ukernel=f"ireec_gpu_matmul_{matmul['element']}")
        if kind == "reduction" and inner_reduction:
            new = [1] * len(extents)
            resident = SM_COUNT * BLOCKS_PER_SM * MAX_THREADS
            if inner_reduction >= BLOCK_ROW and extents[-1] * WARP < resident:
                # Few long rows: a block per row (the row loop has one iteration and goes; the
                # block folds the row: warp shuffles, then shared memory across warps).
                new[-1] = 1
                return GPUKernelConfig("LLVMGPUWarpReduction", self.fit_grid(extents, new), (MAX_THREADS,))
            if inner_reduction < 0 or inner_reduction >= WARP:  # a warp per row
                # Several rows per warp when there are rows enough to fill the capped grid:
                # fewer barriers per row, more loads in flight.
                grid_warps = SM_COUNT * BLOCKS_PER_SM * (MAX_THREADS // WARP)
                per_warp = ROWS_PER_WARP if extents[-1] >= grid_warps * ROWS_PER_WARP else 1
                new[-1] = min(extents[-1], per_warp * MAX_THREADS // WARP)
                return GPUKernelConfig("LLVMGPUWarpReduction", self.fit_grid(extents, new),
                                       (self.block_size(new[-1] * WARP),))
            new[-1] = min(extents[-1], MAX_THREADS)  # short rows: a thread per row
            return GPUKernelConfig("LLVMGPUDistribute", self.fit_grid(extents, new), (self.block_size(new[-1]),))
        pipeline = "LLVMGPUWarpReduction" if kind == "reduction" else "LLVMGPUDistribute"
        rows = tiles[0] if len(tiles) == 1 else MAX_THREADS
        return GPUKernelConfig(pipeline, tuple(tiles), (self.block_size(rows),))

    @staticmethod
    def fit_grid(extents, tiles):
        """``tiles`` grown where a distributed dim would need more workgroups than CUDA's
        grid allows on its axis (the last dim is x, then y, z: :data:`GRID_LIMITS`)."""
        tiles = list(tiles)
        n = len(tiles)
        for k in range(n):
            limit = GRID_LIMITS[n - 1 - k]
            if -(-extents[k] // tiles[k]) > limit:
                tiles[k] = -(-extents[k] // limit)
        return tuple(tiles)

    @staticmethod
    def block_size(trips: int) -> int:
        """Threads of a block whose loop has ``trips`` iterations: :data:`MAX_THREADS`, or
        ``trips`` rounded up to a warp when smaller."""
        return min(MAX_THREADS, max(WARP, -(-trips // WARP) * WARP))

    def grid_for(self, workgroup_count):
        """A 1-D workgroup count above ``SM_COUNT * BLOCKS_PER_SM`` launches that many blocks
        (each runs workgroups ``blockIdx.x``, ``+ gridDim.x``...); others launch one block per
        workgroup."""
        wg = list(workgroup_count) + [1] * (3 - len(workgroup_count))
        cap = SM_COUNT * BLOCKS_PER_SM
        if wg[1] == 1 and wg[2] == 1 and wg[0] > cap:
            return [cap, 1, 1]
        return wg

    def distribute_workgroup(self, body) -> int:
        """Spread the workgroup over the block's threads when its body is a sequence of loops
        whose iterations are independent (``iterations_independent``: elementwise work, and
        rows of reductions or matmuls, each iteration owning its outputs) and calls of device
        micro-kernels (callee ``ireec_gpu_*``, which every thread of the block makes
        together) and single stores (thread 0 makes them), with only uniform scalar ops,
        loads every thread makes alike and per-tile temporary arrays (declared
        ``__shared__``: one copy per block) between them: in each loop thread ``t`` runs
        iterations ``lb + t*step``, ``+ threads*step``... (block-stride, so consecutive
        threads touch consecutive elements; the block size is a constant so nvcc can unroll
        and batch the loads), and ``__syncthreads()`` separates steps from each other and
        from the loads between them (what one writes, the next may read from another
        thread). Block
        size: :data:`MATMUL_THREADS` with a micro-kernel call, else :data:`MAX_THREADS` or
        the largest constant trip count rounded up to a warp when smaller. Row reductions over
        contiguous rows of at least a warp's length (:func:`row_reduction`) take a warp per
        row instead (:func:`distribute_rows_over_warps`), and so do loops whose rows are
        runs of at least a warp of independent contiguous elements (:func:`row_of_elements`:
        coalesced where a thread per row would stride). A loop folding everything into one
        element (:func:`fold_loop`, at least a warp of iterations) runs over the whole block
        (:func:`distribute_block_reduction`). A loop that is not independent
        beside a micro-kernel call runs on thread 0 alone (so do all loops there when the
        temporaries and the micro-kernel's tiles exceed :data:`SHARED_LIMIT`); any other body
        (or temporaries beyond :data:`SHARED_LIMIT`) runs on one thread (returns 1)."""
        from ..ir.attributes import StringAttr
        from ..ir.core import Builder
        from ..passes.vm.mark_independent_loops import iterations_independent

        def collective(op) -> bool:
            return (op.name == "emitc.call_opaque"
                    and op.attributes["callee"].value.startswith(UKERNEL_PREFIX))

        def block_array(op) -> bool:
            return (op.name == "emitc.variable" and "array_size" in op.attributes
                    and "init_values" not in op.attributes)

        from ..tools.report import c_type_bytes

        for op in body.ops:
            for inner in op.walk():
                if inner is not op and collective(inner):
                    raise CompileError("a device micro-kernel call inside a loop cannot be spread "
                                       "over the block's threads", inner.loc)
        steps = [op for op in body.ops if op.name in ("emitc.for", "emitc.store") or collective(op)]
        loops = [op for op in steps if op.name == "emitc.for"]
        has_call = any(collective(op) for op in steps)
        if not (loops or has_call) or any(op.name not in _UNIFORM_OPS + ("emitc.load",) and not block_array(op)
                                          for op in body.ops if op not in steps):
            return 1
        arrays = [op for op in body.ops if block_array(op)]
        shared = sum(int(op.attributes["array_size"].value) * c_type_bytes(op.attributes["element"].value)
                     for op in arrays)
        serial = shared + (MATMUL_SHARED_BYTES if has_call else 0) > SHARED_LIMIT

        def trip_count(loop):
            lb, ub, step = (_int_constant(v) for v in loop.operands[:3])
            return None if None in (lb, ub, step) or step <= 0 else max(0, -(-(ub - lb) // step))

        independent = {loop: iterations_independent(loop) for loop in loops}
        folds = {}  # loop -> match: a fold of everything into one element, over the block
        for loop in loops:
            match = None if independent[loop] or serial else fold_loop(loop)
            if match is not None and (trip_count(loop) or WARP) >= WARP:
                folds[loop] = match
        if not has_call and (serial or not all(independent[loop] or loop in folds for loop in loops)):
            return 1
        # Per-tile temporaries are written by some threads and read by others: block-shared
        # (when they do not fit, thread 0 alone runs the loops beside the micro-kernel).
        for op in arrays if not serial else []:
            if not op.attributes["element"].value.startswith("__shared__ "):
                op.attributes["element"] = StringAttr("__shared__ " + op.attributes["element"].value)

        rows = {}  # loop -> (rewrite, match): a warp per row, lanes along it
        for loop in loops:
            if serial or not independent[loop]:
                continue
            match = row_reduction(loop)
            if match is not None and (trip_count(match[0]) or WARP) >= WARP:
                rows[loop] = (distribute_rows_over_warps, match)
                continue
            inner = row_of_elements(loop)
            if inner is not None and (trip_count(inner) or WARP) >= WARP:
                rows[loop] = (distribute_rows_of_elements, inner)
        # Threads each loop can use: one per iteration, or a warp per row.
        trips = [None if trip_count(loop) is None else trip_count(loop) * (WARP if loop in rows else 1)
                 for loop in loops]
        if has_call:
            threads = MATMUL_THREADS
        elif None in trips:
            threads = MAX_THREADS
        else:
            threads = self.block_size(max(trips))

        def verbatim(b, text):
            b.create("emitc.verbatim", [], [], {"value": StringAttr(text)})

        # Barriers: before a step when an earlier step ran or values were read since the
        # last barrier (what one writes, another thread may read or overwrite next), and
        # before a load between steps when a step ran since (all threads read its result).
        ran = read = False
        for op in list(body.ops):
            if op.name == "emitc.load" and op not in steps:
                if ran:
                    verbatim(Builder(body, body.ops.index(op), op.loc), "__syncthreads();")
                    ran = False
                read = True
            elif op in steps:
                if ran or read:
                    verbatim(Builder(body, body.ops.index(op), op.loc), "__syncthreads();")
                ran, read = True, False
        for op in steps:
            b = Builder(body, body.ops.index(op), op.loc)
            if op.name == "emitc.store":  # a single element (e.g. a 0-d fill): thread 0
                verbatim(b, "if (threadIdx.x == 0) {")
                Builder(body, body.ops.index(op) + 1, op.loc).create(
                    "emitc.verbatim", [], [], {"value": StringAttr("}")})
                continue
            if op.name != "emitc.for":
                continue
            if op in folds:
                distribute_block_reduction(body, op, folds[op], threads)
                continue
            if serial or not independent[op]:
                verbatim(b, "if (threadIdx.x == 0) {")
                Builder(body, body.ops.index(op) + 1, op.loc).create(
                    "emitc.verbatim", [], [], {"value": StringAttr("}")})
                continue
            if op in rows:
                rewrite, match = rows[op]
                rewrite(body, op, match, threads)
                continue
            lb, _ub, step = op.operands[:3]
            first = b.create("emitc.expression", [lb, step], [lb.type],
                             {"c": StringAttr("{0} + (int)threadIdx.x * {1}")}).result
            stride = b.create("emitc.expression", [step], [step.type],
                              {"c": StringAttr(f"{threads} * {{0}}")}).result
            op.set_operand(0, first)
            op.set_operand(2, stride)
        return threads

    # ------------------------------------------------------------------ host program
    def host_extra_params(self):
        return [("cudaStream_t", "stream")]

    def launch_extra_args(self) -> List[str]:
        return ["stream"]

    def host_copy(self, dst: str, src: str, length: str):
        return "ireec_cuda_copy", [dst, src, length, "stream"]

    def host_read(self, storage_ctype: str, ptr: str) -> str:
        return f"ireec_cuda_read<{storage_ctype}>({ptr}, stream)"

    def host_write(self, storage_ctype: str, ptr: str, value: str) -> str:
        return f"ireec_cuda_write<{storage_ctype}>({ptr}, ({storage_ctype})({value}), stream);"

    def constants_base(self, module_name: str) -> str:
        return f"{module_name}_constant_pool_device()"

    def globals_base(self, module_name: str) -> str:
        return f"{module_name}_global_state_device()"

    # ------------------------------------------------------------------ files
    def file_names(self, mod: str) -> Dict[str, str]:
        return {"module.h.j2": f"{mod}.h", "module.cu.j2": f"{mod}.cu",
                "kernels.h.j2": f"{mod}_kernels.h", "kernels.cu.j2": f"{mod}_kernels.cu"}

    def runtime_headers(self, common: dict) -> List[str]:
        """Those of the C targets plus ``ireec_gpu_ukernel.h``, the device micro-kernels
        (``ireec_gpu_matmul_<type>``) that ireec_runtime.h includes under CUDA."""
        return super().runtime_headers(common) + ["ireec_gpu_ukernel.h"]

    def context(self, common: dict) -> dict:
        """Adds per kernel the launch grid (``launch_grid``, :meth:`grid_for`; ``grid_stride``
        when blocks loop over workgroups) and the block-id arguments of the workgroup call, and per function the host-pointer entry's parameters and the device
        buffers it allocates. CompileError for ``--workspace=static`` (the workspace is
        device memory the caller passes) and for grids beyond CUDA's limits."""
        if common["static_workspace"]:
            raise CompileError("--workspace=static is not supported for --target=cuda "
                               "(the workspace is device memory passed by the caller)")
        for k in common["kernels"]:
            wg = k["workgroup_count"]
            k["launch_grid"] = grid = self.grid_for(wg)
            for axis, (count, limit) in enumerate(zip(grid, GRID_LIMITS)):
                if count > limit:
                    raise CompileError(f"workgroup count {wg} of {k['launch']} exceeds CUDA's grid "
                                       f"limit on axis {'xyz'[axis]} ({limit})")
            k["block_ids"] = [f"(int64_t)blockIdx.{a}" if c > 1 else "0" for a, c in zip("xyz", wg)]
            k["grid_stride"] = list(grid) != list(wg)
        common["uses_copy"] = any("ireec_cuda_copy(" in fn["body"] for fn in common["functions"])
        for fn in common["functions"]:
            n = len(fn["tensors"])
            # Tensors, then (dynamic functions) their extents and result shape arrays; the
            # host entry takes them all but the workspace and the stream.
            host = [(p, q) for p, q in zip(fn["params"], fn["param_names"]) if q not in ("workspace", "stream")]
            fn["host_params"] = [p for p, _q in host]
            fn["host_names"] = ([f"input{i}" for i in range(len(fn["args"]))] +
                                [f"result{j}" for j in range(len(fn["results"]))])
            fn["device_names"] = [f"d_{p}" for p in fn["host_names"]]
            fn["device_types"] = [t.strip() for t in fn["param_types"][:n]]
            device = {h: f"({t}){d}" for h, d, t in zip(fn["host_names"], fn["device_names"], fn["device_types"])}
            fn["device_call_args"] = [device.get(q, q) for _p, q in host] + ["d_workspace", "stream"]
            fn["host_call_args"] = [a for a in fn["call_args"] if a != "workspace"]
            fn["host_checks"] = [c for c in fn["checks"] if "workspace" not in c]
        return common


register_target(CUDATarget)
