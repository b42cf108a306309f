"""Where ireec keeps what it builds for reuse: libraries of ``ireec.compile_file`` /
``compile_source`` and the micro-kernel objects of ``ireec build``
(ireec/runtime/ukernel_objects.py)."""
from __future__ import annotations

import os
from pathlib import Path

__all__ = ["cache_dir"]


def cache_dir() -> Path:
    """``$IREEC_CACHE_DIR``, else ``$XDG_CACHE_HOME/ireec``, else ``~/.cache/ireec`` (not
    created here)."""
    env = os.environ.get("IREEC_CACHE_DIR")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "ireec"
