"""Building (cc / nvcc), loading (cffi) and IREE-style tensor I/O for ireec modules.

* :mod:`ireec.runtime.build` — ``build_shared_library``, ``compile_object_check``,
  ``undefined_symbols``, ``BuildError``.
* :mod:`ireec.runtime.loader` — ``load(path) -> LoadedModule`` (numpy in, numpy out).
* :mod:`ireec.runtime.io_format` — ``parse_input`` / ``format_result`` /
  ``format_invocation``: iree-run-module's ``--input`` syntax and printed results.
"""
from .build import BuildError, build_shared_library, compile_object_check, undefined_symbols
from .io_format import InputError, format_invocation, format_result, parse_input, parse_inputs
from .loader import FunctionInfo, LoadedModule, TensorInfo, load

__all__ = [
    "BuildError", "build_shared_library", "compile_object_check", "undefined_symbols",
    "InputError", "format_invocation", "format_result", "parse_input", "parse_inputs",
    "FunctionInfo", "LoadedModule", "TensorInfo", "load",
]
