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
results are those of the ``c`` target: with contraction into FMA by default (``-fmad=true``,
as the C targets' ``-ffp-contract=fast``), bit for bit under ``--strict-fp`` (``-fmad=false``).

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
from .c import CTarget

#: Largest grid extent per axis (CUDA: x up to 2**31 - 1, y and z up to 65535).
GRID_LIMITS = (2 ** 31 - 1, 65535, 65535)
#: Threads per block of a distributed workgroup, and the warp size it rounds up to.
MAX_THREADS = 256
WARP = 32
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
    ukernels = ()  # kernels run as plain loop nests (no micro-kernels on the GPU)
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

    def distribute_workgroup(self, body) -> int:
        """Spread the workgroup over the block's threads when its body is a sequence of loops
        whose iterations are independent (``iterations_independent``: elementwise work, and
        rows of reductions or matmuls, each iteration owning its outputs) with only uniform
        scalar ops between them: in each loop thread ``t`` runs iterations ``lb + t*step``,
        ``+ blockDim.x*step``... (block-stride, so consecutive threads touch consecutive
        elements), and ``__syncthreads()`` separates consecutive loops (what one loop writes,
        the next may read from another thread). Block size: :data:`MAX_THREADS`, or the
        largest constant trip count rounded up to a warp when smaller. Any other body runs on
        one thread (returns 1)."""
        from ..ir.attributes import StringAttr
        from ..ir.core import Builder
        from ..passes.vm.kernel_to_emitc import iterations_independent

        loops = [op for op in body.ops if op.name == "emitc.for"]
        if not loops or any(op.name not in _UNIFORM_OPS for op in body.ops if op.name != "emitc.for"):
            return 1
        if not all(iterations_independent(loop) for loop in loops):
            return 1
        trips = []
        for loop in loops:
            lb, ub, step = (_int_constant(v) for v in loop.operands[:3])
            trips.append(None if None in (lb, ub, step) or step <= 0 else max(0, -(-(ub - lb) // step)))
        if None in trips:
            threads = MAX_THREADS
        else:
            threads = min(MAX_THREADS, max(WARP, -(-max(trips) // WARP) * WARP))
        for k, loop in enumerate(loops):
            lb, _ub, step = loop.operands[:3]
            b = Builder(body, body.ops.index(loop), loop.loc)
            if k:
                b.create("emitc.verbatim", [], [], {"value": StringAttr("__syncthreads();")})
            first = b.create("emitc.expression", [lb, step], [lb.type],
                             {"c": StringAttr("{0} + (int)threadIdx.x * {1}")}).result
            stride = b.create("emitc.expression", [step], [step.type],
                              {"c": StringAttr("(int)blockDim.x * {0}")}).result
            loop.set_operand(0, first)
            loop.set_operand(2, stride)
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
        """Adds per kernel the grid (``dim3`` extents) and the block-id arguments of the
        workgroup call, and per function the host-pointer entry's parameters and the device
        buffers it allocates. CompileError for ``--workspace=static`` (the workspace is
        device memory the caller passes) and for grids beyond CUDA's limits."""
        if common["static_workspace"]:
            raise CompileError("--workspace=static is not supported for --target=cuda "
                               "(the workspace is device memory passed by the caller)")
        for k in common["kernels"]:
            wg = k["workgroup_count"]
            for axis, (count, limit) in enumerate(zip(wg, GRID_LIMITS)):
                if count > limit:
                    raise CompileError(f"workgroup count {wg} of {k['launch']} exceeds CUDA's grid "
                                       f"limit on axis {'xyz'[axis]} ({limit})")
            k["block_ids"] = [f"(int64_t)blockIdx.{a}" if c > 1 else "0" for a, c in zip("xyz", wg)]
        common["uses_copy"] = any("ireec_cuda_copy(" in fn["body"] for fn in common["functions"])
        for fn in common["functions"]:
            n = len(fn["tensors"])
            fn["host_params"] = fn["params"][:n]
            fn["host_names"] = fn["param_names"][:n]
            fn["device_names"] = [f"d_{p}" for p in fn["host_names"]]
            fn["device_types"] = [t.strip() for t in fn["param_types"][:n]]
        return common


register_target(CUDATarget)
