"""ireec: an ahead-of-time compiler from MLIR (StableHLO, TOSA, linalg) to runtimeless C.

Public API::

    import ireec, numpy as np
    m = ireec.load("libmodel.so")                        # a library built by `ireec build`
    m = ireec.compile_file("model.mlir", target="openmp")  # compile, build, load
    m = ireec.compile_source(mlir_text)
    y = m.abs(np.float32(-2))                            # numpy in, numpy out

Compiled libraries are cached under ``$IREEC_CACHE_DIR`` (default
``$XDG_CACHE_HOME/ireec`` or ``~/.cache/ireec``), keyed by the generated sources, the
target and the toolchain environment (CC, CFLAGS...).
"""
from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Union

__version__ = "0.1.0"

__all__ = ["__version__", "load", "compile_file", "compile_source", "cache_dir"]

if TYPE_CHECKING:  # pragma: no cover
    from .runtime.loader import LoadedModule


def load(path: Union[str, os.PathLike]) -> "LoadedModule":
    """Load a shared library built by ireec; see :class:`ireec.runtime.loader.LoadedModule`."""
    from .runtime.loader import load as _load

    return _load(path)


def cache_dir() -> Path:
    """Where compile_file/compile_source keep built libraries (created on demand)."""
    env = os.environ.get("IREEC_CACHE_DIR")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "ireec"


def _library_for(output, target: str) -> Path:
    """Build (or reuse from the cache) the shared library of a CompileOutput."""
    from .runtime.build import build_shared_library

    h = hashlib.sha256()
    for key in ("CC", "CFLAGS", "LDFLAGS", "NVCC", "NVCCFLAGS"):
        h.update(f"{key}={os.environ.get(key, '')}\0".encode())
    h.update(f"target={target}\0module={output.module_name}\0".encode())
    for name in sorted(output.files):
        h.update(name.encode() + b"\0" + output.files[name].encode() + b"\0")
    digest = h.hexdigest()[:24]
    for directory in (cache_dir(), Path(tempfile.gettempdir()) / "ireec-cache"):
        try:
            directory.mkdir(parents=True, exist_ok=True)
        except OSError:
            continue
        if not os.access(directory, os.W_OK):
            continue
        lib = directory / f"lib{output.module_name}-{target}-{digest}.so"
        if lib.is_file():
            return lib
        return build_shared_library(output.files, output.module_name, lib, target=target)
    raise OSError("no writable cache directory for compiled modules (set IREEC_CACHE_DIR)")


def compile_file(path: Union[str, os.PathLike], target: str = "c", **options) -> "LoadedModule":
    """Compile the MLIR file at ``path`` for ``target`` ('c', 'openmp' or 'cuda'), build it
    into a shared library (cached) and load it.

    ``options`` go to :func:`ireec.compiler.compile_file` (e.g. ``module_name``).
    Raises ireec.ir.diagnostics.CompileError for bad input, BuildError if cc fails.
    """
    from .compiler import compile_file as _compile

    output = _compile(str(path), target=target, **options)
    return load(_library_for(output, target))


def compile_source(text: str, target: str = "c", *, source_name: str = "<source>",
                   **options) -> "LoadedModule":
    """Like :func:`compile_file` for MLIR text; ``source_name`` names it in diagnostics
    (and, unless ``module_name`` is given, names the module)."""
    from . import compiler as _compiler

    compile_src = getattr(_compiler, "compile_source", None)
    if compile_src is not None:
        output = compile_src(text, source_name, target=target, **options)
    else:  # a compiler without compile_source: go through a file
        with tempfile.TemporaryDirectory(prefix="ireec-src-") as tmp:
            stem = Path(source_name).stem if not source_name.startswith("<") else "source"
            src = Path(tmp) / f"{stem or 'source'}.mlir"
            src.write_text(text, encoding="utf-8")
            output = _compiler.compile_file(str(src), target=target, **options)
    return load(_library_for(output, target))
