"""Target ``cuda``: CUDA C kernels and a CUDA host module, built with nvcc.

Generated files (templates/cuda/): ``<module>.h`` (the ABI, C-callable), ``<module>.cu`` (the
host module: one entry per public function taking **device** pointers, a device workspace of
``<MODULE>_WORKSPACE_SIZE`` bytes and a ``cudaStream_t``; a host-pointer convenience entry
``<function>_host`` that copies in, runs and copies out; the reflection table, whose calls use
the host-pointer entries), ``<module>_kernels.h/.cu`` (per dispatch: the workgroup function as a
``__device__`` function, a ``__global__`` kernel and a launch function) and ``ireec_runtime.h``.

Execution model, as IREE's LLVMGPU pipeline maps it: the dispatch's workgroup count is the
grid and one CUDA block runs one workgroup, ``blockIdx.x/y/z`` being the workgroup ids. The
block has one thread running the workgroup's loop nest (the CPU tiling's workgroup body), so
results are those of the ``c`` target (no contraction into FMA: ``-fmad=false``).

Constants and mutable module state are ``__device__`` arrays in the module image (no upload
step); the host program reaches them through ``cudaGetSymbolAddress``. Host-side buffer
copies are ``cudaMemcpyAsync`` device-to-device on the call's stream, and the scalars the host
program reads from or writes to tensors (control flow on tensor values) are copied
synchronously. Errors of the CUDA runtime map to IREE status codes (``ireec_cuda_status``).
"""
from __future__ import annotations

import os
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
#: Elements of the innermost dim one elementwise workgroup covers (4 per thread).
ELEMENTWISE_TILE = 4 * MAX_THREADS
#: Output tile (M, N) of one block of the matmul micro-kernel ``ireec_gpu_matmul_f32``
#: (ireec_runtime.h: 256 threads each computing an 8x8 register block, K in steps of 8).
MATMUL_TILE = (128, 128)
MATMUL_THREADS = 256
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
    """CUDA C through nvcc: one block per workgroup (``blockIdx`` = workgroup id), the
    host program on a ``cudaStream_t`` over device pointers."""

    name = "cuda"
    is_gpu = True
    iree_backends = ("cuda",)
    variant = "cuda_nvptx_fb"
    templates = "cuda"
    compiler_env = ("NVCC", "nvcc")
    flags_env = "NVCCFLAGS"
    source_suffix = ".cu"

    def __init__(self, arch: Optional[str] = None):
        self.arch = arch

    def configure(self, **options) -> "CUDATarget":
        """``cuda_arch``: nvcc's ``-arch`` (``sm_90``, ``native``...)."""
        if options.get("cuda_arch"):
            self.arch = options["cuda_arch"]
        return self

    # ------------------------------------------------------------------ toolchain
    def resolved_arch(self) -> str:
        """``-arch`` value: the configured one, else ``$IREEC_CUDA_ARCH``, else ``native``
        when a GPU is visible, else :data:`DEFAULT_ARCH` (whose PTX is embedded too)."""
        return self.arch or os.environ.get("IREEC_CUDA_ARCH") or ("native" if gpu_visible() else DEFAULT_ARCH)

    def compile_flags(self) -> List[str]:
        """``-O3 -arch=<arch>`` and ``-fmad=false`` (no fused multiply-add: every float
        operation rounds as written, as ``-ffp-contract=off`` does for the C targets)."""
        return ["-O3", f"-arch={self.resolved_arch()}", "-fmad=false"]

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

    def gpu_kernel_config(self, kind, extents, tiles, *, matmul=None, root_dims=()):
        """IREE LLVMGPU-style configs (see ``gpu_select_lowering_strategy``):

        - elementwise (``LLVMGPUVectorize``): the innermost dim in tiles of
          :data:`ELEMENTWISE_TILE` elements, the others 1 (one contiguous run per workgroup,
          one element per thread and pass, block-stride so a warp reads 128 contiguous
          bytes); when the innermost extent is below :data:`MAX_THREADS`, the next dim is
          tiled by up to :data:`MAX_THREADS` so the block still has that many rows to spread;
        - contraction with an f32 matmul/batch_matmul root (``LLVMGPUMatmulSimt``): tiles of
          :data:`MATMUL_TILE` over (m, n), 1 over the batch, :data:`MATMUL_THREADS` threads,
          micro-kernel ``ireec_gpu_matmul_f32``; other contractions keep the CPU tiling
          (``LLVMGPUDistribute``);
        - reduction (``LLVMGPUWarpReduction``) and everything else: the CPU tiling, rows or
          independent iterations spread over up to :data:`MAX_THREADS` threads."""
        tiles = list(tiles)
        if not extents:
            return GPUKernelConfig("LLVMGPUDistribute", (), (1,))
        if kind == "elementwise":
            new = [1] * len(extents)
            new[-1] = min(extents[-1], ELEMENTWISE_TILE)
            if extents[-1] < MAX_THREADS and len(extents) > 1:
                new[-2] = min(extents[-2], MAX_THREADS)
            rows = new[-2] if extents[-1] < MAX_THREADS and len(extents) > 1 else new[-1]
            return GPUKernelConfig("LLVMGPUVectorize", tuple(new), (self.block_size(rows),))
        if kind == "contraction" and matmul is not None:
            role = {matmul["m"]: "m", matmul["n"]: "n", **{d: "batch" for d in matmul["batch"]}}
            if len(root_dims) == len(extents) and sorted(role.get(d, "") for d in root_dims) == sorted(role.values()):
                new = [MATMUL_TILE[0] if role[d] == "m" else MATMUL_TILE[1] if role[d] == "n" else 1
                       for d in root_dims]
                new = [min(t, e) if role[d] == "batch" else t for t, e, d in zip(new, extents, root_dims)]
                return GPUKernelConfig("LLVMGPUMatmulSimt", tuple(new), (MATMUL_THREADS,),
                                       ukernel="ireec_gpu_matmul_f32")
        pipeline = "LLVMGPUWarpReduction" if kind == "reduction" else "LLVMGPUDistribute"
        rows = tiles[0] if len(tiles) == 1 else MAX_THREADS
        return GPUKernelConfig(pipeline, tuple(tiles), (self.block_size(rows),))

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
        together), with only uniform scalar ops between them: in each loop thread ``t`` runs
        iterations ``lb + t*step``, ``+ blockDim.x*step``... (block-stride, so consecutive
        threads touch consecutive elements), and ``__syncthreads()`` separates consecutive
        loops and calls (what one writes, the next may read from another thread). Block
        size: :data:`MATMUL_THREADS` with a micro-kernel call, else :data:`MAX_THREADS` or
        the largest constant trip count rounded up to a warp when smaller. A loop that is not
        independent beside a micro-kernel call runs on thread 0 alone; any other body runs on
        one thread (returns 1)."""
        from ..ir.attributes import StringAttr
        from ..ir.core import Builder
        from ..passes.vm.kernel_to_emitc import iterations_independent

        def collective(op) -> bool:
            return (op.name == "emitc.call_opaque"
                    and op.attributes["callee"].value.startswith(UKERNEL_PREFIX))

        steps = [op for op in body.ops if op.name == "emitc.for" or collective(op)]
        loops = [op for op in steps if op.name == "emitc.for"]
        if not steps or any(op.name not in _UNIFORM_OPS for op in body.ops if op not in steps):
            return 1
        has_call = len(steps) > len(loops)
        if not has_call and not all(iterations_independent(loop) for loop in loops):
            return 1
        trips = []
        for loop in loops:
            lb, ub, step = (_int_constant(v) for v in loop.operands[:3])
            trips.append(None if None in (lb, ub, step) or step <= 0 else max(0, -(-(ub - lb) // step)))
        if has_call:
            threads = MATMUL_THREADS
        elif None in trips:
            threads = MAX_THREADS
        else:
            threads = self.block_size(max(trips))

        def verbatim(b, text):
            b.create("emitc.verbatim", [], [], {"value": StringAttr(text)})

        for k, op in enumerate(steps):
            b = Builder(body, body.ops.index(op), op.loc)
            if k:
                verbatim(b, "__syncthreads();")
            if op.name != "emitc.for":
                continue
            if not iterations_independent(op):
                verbatim(b, "if (threadIdx.x == 0) {")
                Builder(body, body.ops.index(op) + 1, op.loc).create(
                    "emitc.verbatim", [], [], {"value": StringAttr("}")})
                continue
            lb, _ub, step = op.operands[:3]
            first = b.create("emitc.expression", [lb, step], [lb.type],
                             {"c": StringAttr("{0} + (int)threadIdx.x * {1}")}).result
            stride = b.create("emitc.expression", [step], [step.type],
                              {"c": StringAttr("(int)blockDim.x * {0}")}).result
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
            fn["host_params"] = fn["params"][:n]
            fn["host_names"] = fn["param_names"][:n]
            fn["device_names"] = [f"d_{p}" for p in fn["host_names"]]
            fn["device_types"] = [t.strip() for t in fn["param_types"][:n]]
        return common


register_target(CUDATarget)
