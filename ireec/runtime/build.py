"""Build generated C into a shared library (cc / nvcc), and compile-only checks for tests.

``build_shared_library`` writes the generated sources into a temporary directory, adds a
one-function shim exporting ``ireec_query_module_info`` (what ``ireec.load`` and
``ireec run-module`` look up), compiles every ``.c`` (and, for ``cuda``, ``.cu``) file in
parallel and links them. The output path is replaced atomically, so a process that has
the old library loaded keeps a consistent file.

Toolchain: ``$CC`` (default ``cc``) and ``$CFLAGS`` are honoured, ``$CFLAGS`` after the target's
flags (``ireec.targets``: ``-std=c99 -O3 -fno-math-errno -fno-trapping-math -ffp-contract=fast``
(``=off`` with ``--strict-fp``; ``-march`` with ``--target-cpu``), plus ``-fopenmp`` for openmp) so that e.g. ``CFLAGS=-O2`` wins, and ``extra_cflags`` (the CLI's
``--cflags``) last; ``$NVCC`` (default ``nvcc``) and
``$NVCCFLAGS`` for the cuda target (``-arch`` from ``--cuda-arch``). Which compiler, flags and link
command a target uses is the target's (``ireec.targets``: ``Target.compiler``,
``Target.compile_flags``, ``Target.link_command``).
"""
from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import tempfile
from concurrent.futures import ThreadPoolExecutor
from importlib import resources
from pathlib import Path
from typing import Dict, Iterable, List, Mapping, Optional, Sequence, Set, Tuple, Union

from .ukernel_objects import HEADER as UKERNEL_HEADER
from .ukernel_objects import HEADERS as UKERNEL_HEADERS
from .ukernel_objects import PREBUILT_DEFINE, library_define, library_source, plan_objects, store

__all__ = [
    "BuildError",
    "RUNTIME_HEADER",
    "GPU_UKERNEL_HEADER",
    "runtime_header_text",
    "with_runtime_headers",
    "build_shared_library",
    "compile_object_check",
    "undefined_symbols",
    "SHIM_FILE_NAME",
    "write_generated_files",
    "external_constants",
    "constants_path",
]

RUNTIME_HEADER = "ireec_runtime.h"
#: The cuda target's device micro-kernels, which ireec_runtime.h includes under CUDA.
GPU_UKERNEL_HEADER = "ireec_gpu_ukernel.h"
SHIM_FILE_NAME = "ireec_module_info_shim.c"


def _targets():
    from ..targets import target_names

    return tuple(target_names())


def __getattr__(name):  # TARGETS follows the target registry
    if name == "TARGETS":
        return _targets()
    raise AttributeError(name)

#: Flags every C file is compiled with (C99, position independent, optimised).
BASE_CFLAGS = ("-std=c99", "-O2", "-fPIC")
#: Flags of ``compile_object_check``: what the generated C must be clean under.
CHECK_CFLAGS = ("-std=c99", "-Wall", "-Wextra", "-Werror")

PathLike = Union[str, os.PathLike]


class BuildError(Exception):
    """The C (or CUDA) compiler failed or is missing. ``stderr`` holds its output and
    ``command`` the command line that failed."""

    def __init__(self, message: str, stderr: str = "", command: Sequence[str] = ()):
        super().__init__(message)
        self.message = message
        self.stderr = stderr
        self.command = list(command)

    def __str__(self) -> str:
        if self.stderr.strip():
            return f"{self.message}\n{self.stderr.rstrip()}"
        return self.message


def runtime_header_text(name: str = RUNTIME_HEADER) -> str:
    """The text of runtime_c/<name> (default ``ireec_runtime.h``), as installed with the
    package. OSError when there is no such header."""
    try:
        return (resources.files("ireec.runtime_c") / name).read_text(encoding="utf-8")
    except (ModuleNotFoundError, FileNotFoundError, OSError):
        # Source checkout without an install: runtime_c/ sits next to ireec/.
        here = Path(__file__).resolve().parents[2] / "runtime_c" / name
        return here.read_text(encoding="utf-8")


def with_runtime_headers(files: Mapping[str, Union[str, bytes]]) -> Dict[str, Union[str, bytes]]:
    """``files`` plus the runtime_c headers its sources include that it lacks, from the
    package: ``ireec_runtime.h``; with a ``.cu`` source, ``ireec_gpu_ukernel.h`` (which
    ireec_runtime.h includes under CUDA); with ``ireec_ukernel.h``, the micro-kernel family
    headers it includes."""
    needed = [RUNTIME_HEADER]
    if any(name.endswith(".cu") for name in files):
        needed.append(GPU_UKERNEL_HEADER)
    if UKERNEL_HEADER in files:
        needed += UKERNEL_HEADERS
    out = dict(files)
    for name in needed:
        if name not in out:
            out[name] = runtime_header_text(name)
    return out


def target_flags(target: str) -> Tuple[List[str], List[str]]:
    """(compile flags, link flags) of a target: those of its class in ``ireec.targets``
    (e.g. ``-std=c99 -O3 ...`` for c, plus ``-fopenmp`` for openmp), or BASE_CFLAGS for a
    target without one there."""
    from ..ir.diagnostics import CompileError

    try:
        from ..targets import get_target

        t = get_target(target)
    except CompileError:
        return [f for f in BASE_CFLAGS if f != "-fPIC"], []
    return list(t.cflags), list(getattr(t, "ldflags", ()))


def _c_flags() -> List[str]:
    from ..targets import get_target

    return list(get_target("c").compile_flags())


def _tool(env_var: str, default: str) -> List[str]:
    value = os.environ.get(env_var, "").strip()
    return shlex.split(value) if value else [default]


def _env_flags(env_var: str) -> List[str]:
    return shlex.split(os.environ.get(env_var, ""))


def write_generated_files(files: Mapping[str, Union[str, bytes]], directory: Path) -> None:
    """Write ``files`` (name -> text, or -> bytes for a binary file such as the constant
    pool's ``<m>_constants.bin``) under ``directory``; BuildError for a name that leaves it."""
    for name, text in files.items():
        rel = Path(name)
        if rel.is_absolute() or ".." in rel.parts:
            raise BuildError(f"refusing to write generated file outside the build directory: {name}")
        path = directory / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, str):
            path.write_text(text, encoding="utf-8")
        else:
            with open(path, "wb") as f:
                f.write(text)


def external_constants(files: Mapping[str, Union[str, bytes]], module_name: str) -> Optional[str]:
    """The name of the constant pool file of ``files`` when the module takes its constants
    from the caller (``--constants=external``: a ``<m>_constants.bin`` that no
    ``<m>_constants.S`` includes), else None."""
    name = f"{module_name}_constants.bin"
    if name in files and f"{module_name}_constants.S" not in files:
        return name
    return None


def constants_path(library: PathLike) -> Path:
    """Where ``ireec build`` puts the external constants of ``library``, and where
    ``ireec.load`` looks for them: the library's path with the suffix ``.bin``
    (``libmodel.so`` -> ``libmodel.bin``)."""
    return Path(library).with_suffix(".bin")


def _write_sources(files: Mapping[str, Union[str, bytes]], directory: Path) -> None:
    write_generated_files(with_runtime_headers(files), directory)


def _shim_source(module_name: str) -> str:
    return (
        "/* Generated by ireec build: exports the reflection table of module "
        f"'{module_name}'. */\n"
        '#include "ireec_runtime.h"\n'
        f"extern const ireec_module_info_t {module_name}_module_info;\n"
        "#if defined(__GNUC__) || defined(__clang__)\n"
        '__attribute__((visibility("default")))\n'
        "#endif\n"
        "const ireec_module_info_t *ireec_query_module_info(void) {\n"
        f"  return &{module_name}_module_info;\n"
        "}\n"
    )


def _run(cmd: Sequence[str], cwd: Path, what: str) -> None:
    try:
        proc = subprocess.run(list(cmd), cwd=str(cwd), stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True, errors="replace")
    except FileNotFoundError:
        raise BuildError(f"compiler '{cmd[0]}' not found (set CC, or NVCC for cuda)",
                         command=cmd) from None
    except OSError as e:
        raise BuildError(f"cannot run '{cmd[0]}': {e}", command=cmd) from None
    if proc.returncode != 0:
        raise BuildError(f"{what} failed: {shlex.join(cmd)} exited with {proc.returncode}",
                         stderr=proc.stdout, command=cmd)


def _compile_all(jobs: List[List[str]], cwd: Path, what: str) -> None:
    if not jobs:
        return
    workers = max(1, min(len(jobs), os.cpu_count() or 1))
    with ThreadPoolExecutor(max_workers=workers) as pool:
        futures = [pool.submit(_run, cmd, cwd, what) for cmd in jobs]
        errors = [f.exception() for f in futures]
    for e in errors:
        if e is not None:
            raise e


def build_shared_library(files: Mapping[str, Union[str, bytes]], module_name: str, out_path: PathLike,
                         target: str = "c", extra_cflags: Iterable[str] = ()) -> Path:
    """Compile generated sources into a shared library at ``out_path``; return its path.

    ``files``: file name -> text, as produced by the compiler (``<module>.h``,
    ``<module>.c``, kernels...; -> bytes for the constant pool's ``<module>_constants.bin``,
    assembled in through ``<module>_constants.S`` or, with ``--constants=external``, copied
    next to the library as :func:`constants_path`); the runtime headers the sources include
    are copied from the package when they are not among them (:func:`with_runtime_headers`).
    ``module_name`` is the C prefix: the sources must define
    ``const ireec_module_info_t <module_name>_module_info``. ``target``: ``c``
    (``cc <target flags> -fPIC ...``, linked ``-shared ... -lm``), ``openmp`` (adds
    ``-fopenmp`` to compiling and linking) or
    ``cuda`` (``.cu`` files through ``nvcc``, linked with nvcc), or any registered target
    (``ireec.targets``; a Target object is accepted too). Raises BuildError.
    """
    from ..ir.diagnostics import CompileError
    from ..targets import get_target

    try:
        tgt = get_target(target)
    except CompileError:
        raise BuildError(f"unknown target '{target}' (expected one of {', '.join(_targets())})") from None
    if not module_name.isidentifier():
        raise BuildError(f"module name '{module_name}' is not a C identifier")
    out = Path(out_path).resolve()
    out.parent.mkdir(parents=True, exist_ok=True)
    extra = list(extra_cflags)
    files = with_runtime_headers(files)
    with tempfile.TemporaryDirectory(prefix="ireec-build-") as tmp:
        work = Path(tmp)
        _write_sources(files, work)
        (work / SHIM_FILE_NAME).write_text(_shim_source(module_name), encoding="utf-8")
        c_files = sorted(p.relative_to(work).as_posix() for p in work.rglob("*.c"))
        # The constant pool's .incbin stub (--constants=incbin), assembled by cc.
        c_files += sorted(p.relative_to(work).as_posix() for p in work.rglob("*.S"))
        cu_files = sorted(p.relative_to(work).as_posix() for p in work.rglob("*.cu"))
        if cu_files and tgt.source_suffix != ".cu":
            raise BuildError(f"CUDA sources ({', '.join(cu_files)}) need --target=cuda")
        cc = _tool("CC", "cc")
        # .c files (the shim, C-target sources) go to cc with the C flags of a C target.
        tflags = list(tgt.compile_flags()) if tgt.source_suffix == ".c" else _c_flags()
        cflags = tflags + ["-fPIC", "-I", "."] + _env_flags("CFLAGS") + extra
        # The micro-kernel families as objects of their own, from the cache or compiled now.
        ready, missing = plan_objects(files, cc, cflags)
        kflags = [PREBUILT_DEFINE] if ready or missing else []
        jobs = [cc + cflags + kflags + ["-c", f, "-o", f + ".o"] for f in c_files]
        objects = [f + ".o" for f in c_files] + [str(path) for _family, path in ready]
        for family, _path in missing:
            name, text = library_source(family)
            (work / name).write_text(text, encoding="utf-8")
            jobs.insert(0, cc + cflags + [library_define(family), "-c", name,
                                          "-o", name + ".o"])
            objects.append(name + ".o")
        if cu_files:
            nvflags = tgt.compile_flags() + ["-Xcompiler", "-fPIC", "-I", "."] + _env_flags(tgt.flags_env)
            jobs += [tgt.compiler() + nvflags + ["-c", f, "-o", f + ".o"] for f in cu_files]
            objects += [f + ".o" for f in cu_files]
        _compile_all(jobs, work, "compiling C")
        for family, path in missing:
            store(work / (library_source(family)[0] + ".o"), path)
        external = external_constants(files, module_name)
        if external is not None:  # the weights the library is handed at load time
            _replace_atomically(work / external, constants_path(out), 0o644)
        # Linked straight next to the destination, then renamed over it (atomic).
        fd, staging = tempfile.mkstemp(prefix=f".{out.name}.", dir=str(out.parent))
        os.close(fd)
        try:
            _run(tgt.link_command(objects, staging), work, "linking")
            os.chmod(staging, 0o755)
            os.replace(staging, out)
        except BaseException:
            if os.path.exists(staging):
                os.unlink(staging)
            raise
    return out


def _replace_atomically(src: Path, dst: Path, mode: int) -> None:
    """Copy ``src`` next to ``dst``, then rename it over ``dst``: a process that has the
    old file open or mapped keeps a consistent one."""
    fd, staging = tempfile.mkstemp(prefix=f".{dst.name}.", dir=str(dst.parent))
    os.close(fd)
    try:
        shutil.copyfile(src, staging)
        os.chmod(staging, mode)
        os.replace(staging, dst)
    except BaseException:
        if os.path.exists(staging):
            os.unlink(staging)
        raise


def compile_object_check(files: Mapping[str, str], flags: Iterable[str] = (),
                         out_dir: Optional[PathLike] = None) -> List[Path]:
    """Compile every ``.c`` file of ``files`` with ``cc -std=c99 -Wall -Wextra -Werror -c``
    plus ``flags``; return the object paths (sorted by source name).

    The sources are written into ``out_dir`` (a new temporary directory when None, left
    for the caller). The runtime headers are added when missing (:func:`with_runtime_headers`).
    Raises BuildError with the compiler's messages on any warning or error.
    """
    directory = Path(out_dir) if out_dir is not None else Path(tempfile.mkdtemp(prefix="ireec-check-"))
    directory.mkdir(parents=True, exist_ok=True)
    _write_sources(files, directory)
    cc = _tool("CC", "cc")
    c_files = sorted(n for n in files if n.endswith((".c", ".S")))
    if not c_files:
        raise BuildError("no .c files to compile")
    jobs = [cc + list(CHECK_CFLAGS) + ["-I", "."] + list(flags) + ["-c", f, "-o", f + ".o"]
            for f in c_files]
    _compile_all(jobs, directory, "compile check")
    return [directory / (f + ".o") for f in c_files]


def undefined_symbols(object_path: Union[PathLike, Iterable[PathLike]]) -> Set[str]:
    """Undefined symbols of an object file or shared library (``nm -u``), without symbol
    versions (``malloc@GLIBC_2.2.5`` -> ``malloc``). Accepts one path or several."""
    paths = [object_path] if isinstance(object_path, (str, os.PathLike)) else list(object_path)
    nm = _tool("NM", "nm")
    out: Set[str] = set()
    for p in paths:
        try:
            proc = subprocess.run(nm + ["-u", str(p)], stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True)
        except FileNotFoundError:
            raise BuildError(f"'{nm[0]}' not found (set NM)") from None
        if proc.returncode != 0:
            raise BuildError(f"nm failed on {p}", stderr=proc.stderr, command=nm + ["-u", str(p)])
        for line in proc.stdout.splitlines():
            parts = line.split()
            if parts:
                out.add(parts[-1].split("@")[0])
    return out
