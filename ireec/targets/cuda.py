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
``iree-llvmgpu-select-lowering-strategy``) chooses the tiles; ``iree-codegen-gpu-distribute``
(ireec/passes/vm/gpu_distribute.py, from the capabilities and spellings this target gives as
data: warp size, block size, ``threadIdx.x``, ``__syncthreads()``, ``__shfl_down_sync``,
``__shared__`` and its limit) maps the workgroup body onto the block: independent loops
block-stride over the threads, row reductions a warp per row with ``__shfl_down_sync``, folds into one element over the whole
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
import shlex
import shutil
import subprocess
from typing import Dict, List, Optional

from ..ir.diagnostics import CompileError
from .base import GPUKernelConfig, register_target
from .c import CTarget
from .constants import string_rows

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
#: Element types a warp shuffle moves (``__shfl_down_sync`` overloads).
SHUFFLED_TYPES = ("f32", "f64", "i32", "i64", "si32", "si64", "ui32", "ui64")
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
    #: The host entry works on device pointers: it does not stage padded dimensions.
    stages_padded_dims = False
    #: The pool is a ``__device__`` array of the module image: C text only, written as one
    #: string literal (nvcc reads it as a single token: a 768 KiB pool compiles in 1.5 s
    #: instead of 3.4 s as integer initializers).
    binary_constants = False
    pool_rows = staticmethod(string_rows)
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

    # ------------------------------------------------------------------ GPU capabilities
    # Read by iree-codegen-gpu-distribute (ireec/passes/vm/gpu_distribute.py).
    max_workgroup_threads = MAX_THREADS
    subgroup_size = WARP
    workgroup_memory_bytes = SHARED_LIMIT
    workgroup_memory_qualifier = "__shared__"
    thread_id = "threadIdx.x"
    barrier = "__syncthreads();"
    subgroup_shuffle_down = "__shfl_down_sync(0xffffffffu, {value}, {offset})"
    shuffle_types = SHUFFLED_TYPES
    workgroup_ukernel_prefix = UKERNEL_PREFIX
    workgroup_ukernel_threads = MATMUL_THREADS
    workgroup_ukernel_memory_bytes = MATMUL_SHARED_BYTES

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
          (see ``iree-codegen-gpu-distribute``), the grid capped by :meth:`grid_for`; rows
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
        copy = self.host_copy("", "", "")[0]
        common["uses_copy"] = any(op.name == "emitc.call_opaque" and op.attributes["callee"].value == copy
                                  for fn in common["functions"] for op in fn["op"].walk())
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
