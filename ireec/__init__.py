"""ireec: an ahead-of-time compiler from MLIR (StableHLO, TOSA, linalg) to runtimeless C.

Public API::

    import ireec, numpy as np
    m = ireec.load("libmodel.so")                        # a library built by `ireec build`
    m = ireec.compile_file("model.mlir", target="openmp")  # compile, build, load
    m = ireec.compile_source(mlir_text)
    y = m.abs(np.float32(-2))                            # numpy in, numpy out

Errors: ``ireec.CompileError`` (bad MLIR input; ``str(e)`` is ``file:line:col: error: ...``
with the source line and a caret) and ``ireec.BuildError`` (the C compiler failed).

Compiled libraries are cached under ``$IREEC_CACHE_DIR`` (default
``$XDG_CACHE_HOME/ireec`` or ``~/.cache/ireec``), keyed by the generated sources, the
target and the toolchain environment (CC, CFLAGS...).
"""
import hashlib as _hashlib
import os as _os
import tempfile as _tempfile
from pathlib import Path as _Path
from typing import TYPE_CHECKING as _TYPE_CHECKING, Union as _Union

__version__ = "0.1.0"

#: The public API. Everything else lives in submodules (``ireec.compiler`` for the
#: compiler driver, ``ireec.cli`` for the ``ireec`` command...).
__all__ = ["__version__", "load", "compile_file", "compile_source", "cache_dir",
           "CompileError", "BuildError"]

if _TYPE_CHECKING:  # pragma: no cover
    from .runtime.loader import LoadedModule


def _load_dialects() -> None:
    """Import every dialect module (``ireec.dialects``), registering their ops."""
    from .dialects.registry import load_all_dialects

    load_all_dialects()


def _install_dialect_loader() -> None:
    """Make the IR (parser, printer, verifier) load the dialects on first use: ``ireec.ir``
    and ``ireec.frontend`` never import ``ireec.dialects`` themselves."""
    from .ir.registry import set_dialect_loader

    set_dialect_loader(_load_dialects)


_install_dialect_loader()


def _use_checkout_data() -> None:
    """In a source checkout (``pyproject.toml`` beside ``ireec/``), ``ireec.templates`` and
    ``ireec.runtime_c`` are the checkout's own ``templates/`` and ``runtime_c/``, which
    pyproject.toml maps into the package: an editable install of another checkout must not
    lend its files to this one (a git worktree, a tree extracted from another commit)."""
    import importlib.util
    import sys

    root = _Path(__file__).resolve().parent.parent
    if not (root / "pyproject.toml").is_file():
        return
    for sub in ("templates", "runtime_c"):
        init = root / sub / "__init__.py"
        if f"{__name__}.{sub}" in sys.modules or not init.is_file():
            continue
        spec = importlib.util.spec_from_file_location(
            f"{__name__}.{sub}", init, submodule_search_locations=[str(init.parent)])
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)


_use_checkout_data()


def __getattr__(name: str):
    """The error classes, imported on first use so that ``import ireec`` stays cheap:
    ``CompileError`` (bad MLIR input, with its location) and ``BuildError`` (cc failed)."""
    if name == "CompileError":
        from .ir.diagnostics import CompileError

        return CompileError
    if name == "BuildError":
        from .runtime.build import BuildError

        return BuildError
    raise AttributeError(f"module 'ireec' has no attribute '{name}'")


def __dir__():
    """The public API, the module's dunders and the submodules imported so far."""
    import types

    submodules = {n for n, v in globals().items() if isinstance(v, types.ModuleType)
                  and getattr(v, "__name__", "").startswith(__name__ + ".")}
    return sorted(set(__all__) | submodules | {n for n in globals() if n.startswith("__")})


def load(path: "_Union[str, _os.PathLike]", constants=None) -> "LoadedModule":
    """Load a shared library built by ireec; see :class:`ireec.runtime.loader.LoadedModule`
    (``constants``: the weights file of a module built with ``--constants=external``,
    default the library's path with the suffix ``.bin``)."""
    from .runtime.loader import load as _load

    return _load(path, constants)


def cache_dir() -> "_Path":
    """Where compile_file/compile_source keep built libraries (created on demand); see
    :func:`ireec.runtime.cache.cache_dir`."""
    from .runtime.cache import cache_dir as _cache_dir

    return _cache_dir()


def _library_for(output, target: str) -> "_Path":
    """Build (or reuse from the cache) the shared library of a CompileOutput."""
    from .runtime.build import build_shared_library

    h = _hashlib.sha256()
    for key in ("CC", "CFLAGS", "LDFLAGS", "NVCC", "NVCCFLAGS"):
        h.update(f"{key}={_os.environ.get(key, '')}\0".encode())
    h.update(f"target={target}\0module={output.module_name}\0".encode())
    # A configured Target object (ireec.targets.get_target(...).configure(...)) builds
    # with other flags: its options are part of the key.
    h.update(f"strict_fp={getattr(target, 'strict_fp', False)}\0"
             f"target_cpu={getattr(target, 'target_cpu', None)}\0".encode())
    for name in sorted(output.files):
        data = output.files[name]
        h.update(name.encode() + b"\0")
        h.update(data.encode() if isinstance(data, str) else data)
        h.update(b"\0")
    digest = h.hexdigest()[:24]
    for directory in (cache_dir(), _Path(_tempfile.gettempdir()) / "ireec-cache"):
        try:
            directory.mkdir(parents=True, exist_ok=True)
        except OSError:
            continue
        if not _os.access(directory, _os.W_OK):
            continue
        lib = directory / f"lib{output.module_name}-{target}-{digest}.so"
        if lib.is_file():
            return lib
        return build_shared_library(output.files, output.module_name, lib, target=target)
    raise OSError("no writable cache directory for compiled modules (set IREEC_CACHE_DIR)")


def compile_file(path: "_Union[str, _os.PathLike]", target: str = "c", **options) -> "LoadedModule":
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
        with _tempfile.TemporaryDirectory(prefix="ireec-src-") as tmp:
            stem = _Path(source_name).stem if not source_name.startswith("<") else "source"
            src = _Path(tmp) / f"{stem or 'source'}.mlir"
            src.write_text(text, encoding="utf-8")
            output = _compiler.compile_file(str(src), target=target, **options)
    return load(_library_for(output, target))
