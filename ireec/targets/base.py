"""The Target protocol: one class per code-generation target owns every decision that differs
between targets.

Mirrors IREE's ``IREE::HAL::TargetBackend`` / ``TargetDevice`` split (a backend names its
executable variant, picks lowering configs and serializes executables; the device decides how
the host program reaches it), reduced to what a C-emitting compiler needs:

- identity: :attr:`Target.name`, the IREE backend spellings it answers to
  (:attr:`Target.iree_backends`, e.g. ``llvm-cpu``) and the ``hal.executable.variant`` name;
- toolchain: the compiler (``$CC``/``cc`` or ``$NVCC``/``nvcc``), its compile and link flags
  and the suffix of the sources it compiles (:meth:`Target.compile_flags`,
  :meth:`Target.link_command`);
- files: :meth:`Target.render` returns {file name: text}; the Jinja templates live in the
  folder :attr:`Target.templates` of :meth:`Target.template_root` (``ireec/templates``);
- kernels: the qualifiers of a workgroup function (:meth:`Target.kernel_specifiers`) and the
  spelling of its workgroup id parameters (:meth:`Target.workgroup_id_params`);
- launches: the lines before a dispatch's workgroup loop nest (:meth:`Target.launch_prologue`)
  and the variant of a launch run inside a host parallel region (:meth:`Target.workshare_launch`);
- lowering configs: GPU targets (:attr:`Target.is_gpu`) choose a per-dispatch GPU config
  (:meth:`Target.gpu_kernel_config`: kind, tile sizes, workgroup size, micro-kernel) and the
  launch grid (:meth:`Target.grid_for`);
- GPU capabilities and spellings, as data (IREE's ``#iree_gpu.target`` wgp attributes;
  tinygrad's renderers hold theirs alike): threads per workgroup, subgroup size, workgroup
  memory, the C of the thread id, the barrier and the subgroup shuffle
  (:attr:`Target.max_workgroup_threads`... ; ``iree-codegen-gpu-distribute`` reads them to
  map a workgroup onto threads; the defaults are the CPU answers: one thread);
- host program: what the host functions pass and how they touch buffers
  (:meth:`Target.host_extra_params`, :meth:`Target.host_copy`, :meth:`Target.host_read`,
  :meth:`Target.host_write`, :meth:`Target.constants_base`, :meth:`Target.launch_extra_args`).

The registry of targets lives here too (:func:`register_target`, :func:`get_target`...;
``ireec.targets`` re-exports it), so passes resolve and type targets through this module
alone. A target is compared by its :attr:`Target.name` (or its capability attributes), never
with a string: two target objects are equal when they are of the same class.
"""
from __future__ import annotations

import abc
import importlib.resources
import os
import shlex
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Tuple, Type

from ..ir.diagnostics import CompileError


@dataclass(frozen=True)
class GPUKernelConfig:
    """A GPU target's lowering config of one dispatch (IREE's ``#iree_gpu.lowering_config``
    with its ``translation_info``): ``pipeline`` (IREE's LLVMGPU pipeline name), ``tiles``
    (workgroup tile per distributed dim, outermost first), ``workgroup_size`` (threads per
    block, x first) and ``ukernel`` (the device micro-kernel computing the root, or "")."""

    pipeline: str
    tiles: Tuple[int, ...]
    workgroup_size: Tuple[int, ...]
    ukernel: str = ""


class Target(abc.ABC):
    """A code-generation target. Subclasses set the class attributes and implement
    :meth:`render`; the hooks below have the portable-C answer as their default."""

    #: ``--target`` spelling.
    name: str = ""
    #: ``--iree-hal-target-backends`` spellings that select this target.
    iree_backends: Tuple[str, ...] = ()
    #: Name of the ``hal.executable.variant`` the hal phase creates (IREE: ``embedded_elf_x86_64``...).
    variant: str = ""
    #: Folder of :meth:`template_root` holding this target's Jinja templates.
    templates: str = ""
    #: Environment variable naming the compiler, and the compiler used when it is unset.
    compiler_env: Tuple[str, str] = ("CC", "cc")
    #: Environment variable of extra compile flags (after the target's own).
    flags_env: str = "CFLAGS"
    #: Suffix of the sources this target's compiler compiles (``.c`` files always go to cc).
    source_suffix: str = ".c"
    #: Whether kernels run on a GPU (``iree-llvmgpu-select-lowering-strategy`` configures them).
    is_gpu: bool = False
    #: Compile flags (before ``$CFLAGS``/``--cflags``) and link flags.
    cflags: Tuple[str, ...] = ()
    ldflags: Tuple[str, ...] = ()
    #: Micro-kernels the target's generated code may call (IREE's ``ukernels`` executable
    #: target option): names of runtime_c/ireec_ukernel.h functions; see
    #: ireec/passes/hal/ukernels.py.
    ukernels: Tuple[str, ...] = ()
    #: Whether the workgroups of a dispatch run at the same time (threads, GPU blocks): the
    #: lowering strategy then splits small problems into several workgroups.
    concurrent_workgroups: bool = False
    #: Whether dispatch formation computes a static ``tensor.pad`` inside its convolution
    #: consumer's dispatch, per workgroup tile (IREE's
    #: ``--iree-dispatch-creation-enable-fuse-padding-into-linalg-consumer-ops``): CPU targets,
    #: whose workgroups own a stack for the padded tile.
    fuse_padding_into_consumers: bool = False

    @property
    def im2col_convolutions(self) -> bool:
        """Whether convolutions may be computed by im2col into a GEMM micro-kernel (the sgemm
        or igemm micro-kernel is on): their patch packing then reads a fused padded image's
        source instead of the padded tensor (ireec/passes/hal/convert_conv_to_im2col.py), so
        dispatch formation fuses such a pad whatever the workgroups divide."""
        return any(k in self.ukernels for k in ("ireec_uk_sgemm", "ireec_uk_igemm"))

    #: ``--strict-fp``: no contraction into FMA, every float operation rounded as written
    #: (bit-identical results across targets and CPUs).
    strict_fp: bool = False
    #: ``--target-cpu``: None (portable, run-time dispatch), ``host`` or a CPU name.
    target_cpu = None
    #: Whether kernels' float reduction loops accumulate in a scalar under
    #: ``IREEC_SIMD_REDUCTION`` (``iree-llvmcpu-reassociate-fp-reductions``; C targets, whose
    #: builds enable it unless ``--strict-fp``).
    reassociate_fp_reductions: bool = False
    #: Whether kernels widen their ``i1`` inputs read next to 32-bit data into an ``i32``
    #: stack copy first (``ireec-promote-narrow-operands``; C targets, whose compilers size
    #: SIMD vectors by the narrowest element of a loop).
    promote_narrow_operands: bool = False

    # ------------------------------------------------------------------ GPU capabilities
    # What iree-codegen-gpu-distribute (ireec/passes/vm/gpu_distribute.py) needs to map a
    # workgroup onto threads; the defaults are the CPU answers (a workgroup is one thread,
    # kernels stay as they are).
    #: Threads one workgroup may have (IREE: ``max_thread_count_per_workgroup``); 1 on CPUs.
    max_workgroup_threads: int = 1
    #: Threads that run in lockstep and exchange values by shuffles (a CUDA warp; IREE:
    #: ``subgroup_size``).
    subgroup_size: int = 1
    #: Bytes of workgroup-shared memory a workgroup's arrays may take (IREE:
    #: ``max_workgroup_memory_bytes``).
    workgroup_memory_bytes: int = 0
    #: C qualifier that puts a local array in workgroup-shared memory (CUDA ``__shared__``).
    workgroup_memory_qualifier: str = ""
    #: C expression of a thread's index in its workgroup (x axis; unsigned on CUDA).
    thread_id: str = "0"
    #: C statement at which every thread of a workgroup waits for all the others.
    barrier: str = ""
    #: C expression of a subgroup shuffle down, a ``str.format`` pattern: ``{value}`` as
    #: held by the lane ``{offset}`` lanes above.
    subgroup_shuffle_down: str = ""
    #: Element types (IR spelling: ``f32``, ``i64``...) :attr:`subgroup_shuffle_down` moves.
    shuffle_types: Tuple[str, ...] = ()
    #: Micro-kernels every thread of a workgroup calls together (callee prefix), the threads
    #: they take and the workgroup memory (bytes) their tiles use.
    workgroup_ukernel_prefix: str = ""
    workgroup_ukernel_threads: int = 0
    workgroup_ukernel_memory_bytes: int = 0

    # ------------------------------------------------------------------ identity
    def __eq__(self, other) -> bool:
        return isinstance(other, Target) and other.name == self.name and type(other) is type(self)

    def __hash__(self) -> int:
        return hash(self.name)

    def __str__(self) -> str:
        return self.name

    def __repr__(self) -> str:
        return f"<target {self.name}>"

    def configure(self, **options) -> "Target":
        """Set build options given on the command line (``cuda_arch``, ``strict_fp``,
        ``target_cpu``); options a target does not use are ignored, None leaves one as it
        is. Returns ``self``."""
        if options.get("strict_fp") is not None:
            self.strict_fp = bool(options["strict_fp"])
        if options.get("target_cpu"):
            self.target_cpu = options["target_cpu"]
        return self

    # ------------------------------------------------------------------ files
    def template_root(self):
        """The folder (an ``importlib.resources`` Traversable or a ``pathlib.Path``) holding
        :attr:`templates`; ``ireec/templates`` unless a target brings its own."""
        return importlib.resources.files("ireec.templates")

    @abc.abstractmethod
    def render(self, module, ctx) -> Dict[str, str]:
        """File name → text of every generated source of ``module`` (emitc form, after the
        vm phase) for this target; deterministic. Raises CompileError."""

    # ------------------------------------------------------------------ toolchain
    def compiler(self) -> List[str]:
        """The compiler command (``$CC`` or ``cc`` for C targets), split like a shell would."""
        var, default = self.compiler_env
        value = os.environ.get(var, "").strip()
        return shlex.split(value) if value else [default]

    def compile_flags(self) -> List[str]:
        """Flags the target's sources are compiled with, before the environment's."""
        return list(self.cflags)

    def link_command(self, objects: Sequence[str], output: str) -> List[str]:
        """The command linking ``objects`` into the shared library ``output``."""
        env = shlex.split(os.environ.get("LDFLAGS", ""))
        return (self.compiler() + ["-shared", "-fPIC"] + list(self.ldflags) + env
                + list(objects) + ["-o", output, "-lm"])

    # ------------------------------------------------------------------ kernels
    def kernel_specifiers(self, has_loop: bool) -> List[str]:
        """C specifiers of a workgroup function (``static``; CPU targets add the
        ``IREEC_KERNEL_CLONES`` attribute to functions with loops)."""
        return ["static", "IREEC_KERNEL_CLONES"] if has_loop else ["static"]

    def workgroup_id_params(self) -> List[Tuple[str, str]]:
        """(C type, name) of the parameters carrying the workgroup ids x, y, z into a
        workgroup function."""
        return [("int64_t", "workgroup_id_x"), ("int64_t", "workgroup_id_y"), ("int64_t", "workgroup_id_z")]

    def launch_prologue(self, grid: Sequence[Tuple[str, int]]) -> List[str]:
        """Lines before the loop nest running the workgroups ``grid`` ((axis, count), outermost
        first) of a dispatch; none for a plain serial loop nest."""
        return []

    def workshare_launch(self, launch: str, grid: Sequence[Tuple[str, int]]) -> Optional[dict]:
        """The variant of launch function ``launch`` (workgroup loops ``grid``, see
        :meth:`launch_prologue`) that runs inside a host function's parallel region
        (``ireec-form-openmp-host-regions``): ``{"name", "prologue", "primary"}`` (its C
        name, the lines before its loops, whether it runs on the region's primary thread
        alone), or None when the target has none (every target but ``openmp``)."""
        return None

    def gpu_kernel_config(self, kind: str, extents: Sequence[int], tiles: Sequence[int], *,
                          matmul: Optional[dict] = None, root_dims: Sequence[int] = (),
                          inner_reduction: int = 0) -> Optional[GPUKernelConfig]:
        """The GPU lowering config of a dispatch of ``kind`` (``elementwise``, ``reduction``,
        ``contraction``, ``other``) whose distributable dims have ``extents`` (outermost
        first) and CPU tile sizes ``tiles``; ``matmul`` gives the loop roles of a matmul-like
        root (see ``gpu_select_lowering_strategy.matmul_dims``), ``root_dims`` the root's loop
        carrying each distributed dim, ``inner_reduction`` the extent of the root's innermost
        loop when it is a reduction (rows; -1 when dynamic), else 0. None: keep the CPU
        config (every CPU target)."""
        return None

    def grid_for(self, workgroup_count: Sequence[int]) -> List[int]:
        """The launch grid (x, y, z) running ``workgroup_count`` workgroups; a grid smaller
        than the count means each block runs several workgroups (grid-stride)."""
        return list(workgroup_count)

    # ------------------------------------------------------------------ host program
    def host_extra_params(self) -> List[Tuple[str, str]]:
        """(C type, name) of the parameters a host function takes after its workspace (a
        stream on GPUs)."""
        return []

    def launch_extra_args(self) -> List[str]:
        """Arguments the host passes to every launch function after the bindings."""
        return []

    def host_copy(self, dst: str, src: str, length: str) -> Tuple[str, List[str]]:
        """(callee, arguments) of a buffer-to-buffer copy of ``length`` bytes."""
        return "memcpy", [dst, src, length]

    def host_read(self, storage_ctype: str, ptr: str) -> str:
        """C expression reading one ``storage_ctype`` at the byte pointer ``ptr`` on the host."""
        return f"(*(const {storage_ctype} *)({ptr}))"

    def host_write(self, storage_ctype: str, ptr: str, value: str) -> str:
        """C statement storing ``value`` (already of ``storage_ctype``) at ``ptr`` on the host."""
        return f"*({storage_ctype} *)({ptr}) = {value};"

    def constants_base(self, module_name: str) -> str:
        """C expression of the constant pool's base (``const uint8_t *``)."""
        return f"{module_name}_constant_pool"

    def globals_base(self, module_name: str) -> str:
        """C expression of the module state's base (``uint8_t *``)."""
        return f"{module_name}_global_state"


# ---------------------------------------------------------------------------- registry
_REGISTRY: Dict[str, Type[Target]] = {}


def register_target(cls: Type[Target]) -> Type[Target]:
    """Add target class ``cls`` under ``cls.name`` (replacing one of the same name); returns
    ``cls``. Raises ValueError for a class without a name."""
    if not getattr(cls, "name", ""):
        raise ValueError(f"target class {cls.__name__} has no name")
    _REGISTRY[cls.name] = cls
    return cls


def unregister_target(name: str) -> None:
    """Remove the target registered as ``name`` (no error when there is none)."""
    _REGISTRY.pop(name, None)


def target_names() -> List[str]:
    """Names of the registered targets, in registration order (``c``, ``openmp``, ``cuda``...)."""
    return list(_REGISTRY)


def iree_backends() -> Dict[str, str]:
    """{``--iree-hal-target-backends`` spelling: target name} of the registered targets."""
    return {b: cls.name for cls in _REGISTRY.values() for b in cls.iree_backends}


def target_choices() -> List[str]:
    """Every spelling ``--target`` accepts: the target names, then IREE backend spellings
    that are not also target names."""
    names = target_names()
    return names + [b for b in iree_backends() if b not in names]


def get_target(name) -> Target:
    """A new target object for ``name`` (a target name or an IREE backend spelling; a Target
    object is returned as it is). CompileError for an unknown name."""
    if isinstance(name, Target):
        return name
    cls = _REGISTRY.get(name)
    if cls is None and name in iree_backends():
        cls = _REGISTRY[iree_backends()[name]]
    if cls is None:
        raise CompileError(f"unknown target '{name}' (known: {', '.join(target_names())})")
    return cls()
