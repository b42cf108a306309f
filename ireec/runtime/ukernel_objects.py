"""Prebuilt micro-kernel objects for ``ireec build``: each family of CPU micro-kernels
(runtime_c/ireec_ukernel_<family>.h) compiled once per compiler, flags and header text, then
linked from a cache.

A module whose kernels call ``ireec_uk_sgemm*``, ``ireec_uk_dwconv*``, ``ireec_uk_igemm`` or ``ireec_uk_conv``
includes ``ireec_ukernel.h``, which includes one header per family (``ireec_ukernel_sgemm.h``,
``ireec_ukernel_dwconv.h``, ``ireec_ukernel_igemm.h``, each on ``ireec_ukernel_common.h``);
the families are
hand-vectorized for three ISAs and take seconds to compile at -O3 (the sgemm family ~3 s with gcc 12 on this project's 2-core machine, against
~0.2 s for a model's own kernels). The generated sources keep including the whole header, so
they stand alone; ``ireec build`` instead compiles each family used into an object of its own
(its header alone, with ``-DIREEC_UKERNEL_LIBRARY_<FAMILY>``: the entry point with external
hidden linkage), keeps
it under ``ireec.cache_dir()/ukernels`` keyed by everything that changes its code, and
compiles the kernels with ``-DIREEC_UKERNEL_PREBUILT`` (declarations only). IREE does the
same with the micro-kernel bitcode it ships prebuilt.

The key (SHA-256) covers the text of the family's headers (common and own), the family, the compiler's resolved path, size
and modification time, and every flag (target flags, ``$CFLAGS``, ``--cflags``). Entries are
written atomically (temporary file, then rename); a cache that cannot be written only costs
the compile. ``IREEC_UKERNEL_CACHE=0`` turns it off (the family is compiled in every build).
"""
from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from pathlib import Path
from typing import List, Mapping, Optional, Sequence, Tuple, Union

from ..emitc.runtime_headers import UKERNEL_HEADERS
from .cache import cache_dir

__all__ = ["COMMON_HEADER", "FAMILIES", "HEADER", "HEADERS", "PREBUILT_DEFINE", "family_header",
           "families_used", "plan_objects", "store"]

#: What the generated kernels include: every family's header.
HEADER = "ireec_ukernel.h"
#: What the families share (vector detection, entry-point linkage, the epilogue).
COMMON_HEADER = "ireec_ukernel_common.h"
#: Family name -> the symbol prefix kernels call it by.
FAMILIES = {"sgemm": "ireec_uk_sgemm", "dwconv": "ireec_uk_dwconv", "igemm": "ireec_uk_igemm",
            "conv": "ireec_uk_conv"}


def family_header(family: str) -> str:
    """The runtime_c header of ``family`` (``ireec_ukernel_sgemm.h``)."""
    return f"ireec_ukernel_{family}.h"


#: Every micro-kernel header a module that calls one ships (HEADER includes the others).
HEADERS = UKERNEL_HEADERS
#: Define under which the kernels see only the entry points' declarations.
PREBUILT_DEFINE = "-DIREEC_UKERNEL_PREBUILT"


def enabled() -> bool:
    """Whether prebuilt objects are used (``IREEC_UKERNEL_CACHE`` is not ``0``)."""
    return os.environ.get("IREEC_UKERNEL_CACHE", "1").strip() != "0"


def families_used(files: Mapping[str, Union[str, bytes]]) -> List[str]:
    """The families whose entry points the ``.c`` sources of ``files`` call (none unless the
    header is among the files)."""
    if HEADER not in files:
        return []
    text = "\n".join(t for n, t in files.items() if n.endswith(".c") and isinstance(t, str))
    return [f for f, prefix in FAMILIES.items() if prefix in text]


def _compiler_identity(cc: Sequence[str]) -> Optional[str]:
    """The compiler's resolved path, size and mtime (None when it is not on the PATH)."""
    path = shutil.which(cc[0])
    if path is None:
        return None
    real = os.path.realpath(path)
    st = os.stat(real)
    return f"{real}\0{st.st_size}\0{st.st_mtime_ns}\0" + "\0".join(cc[1:])


def cache_folder() -> Optional[Path]:
    """``ireec.cache_dir()/ukernels`` when it can be created and written, else None."""
    folder = cache_dir() / "ukernels"
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    return folder if os.access(folder, os.W_OK) else None


def plan_objects(files: Mapping[str, Union[str, bytes]], cc: Sequence[str],
                 cflags: Sequence[str]) -> Tuple[List[Tuple[str, Path]], List[Tuple[str, Path]]]:
    """For the families the sources call: ([(family, cached object)] ready to link,
    [(family, cache path)] to compile now and :func:`store`). Both empty when the cache is
    off or unusable (the kernels then compile the families inline, as the sources say).
    ``files`` holds the headers of the families used (:data:`COMMON_HEADER`,
    :func:`family_header`): their text is part of the key."""
    used = families_used(files)
    if not used or not enabled():
        return [], []
    ident = _compiler_identity(cc)
    folder = cache_folder() if ident is not None else None
    if folder is None:
        return [], []
    ready, missing = [], []
    for family in used:
        h = hashlib.sha256()
        texts = [files[name] for name in (COMMON_HEADER, family_header(family))]
        for part in (*(t if isinstance(t, str) else t.decode() for t in texts), family, ident,
                     *cflags):
            h.update(part.encode() + b"\0")
        path = folder / f"ireec_uk_{family}-{h.hexdigest()[:24]}.o"
        (ready if path.is_file() else missing).append((family, path))
    return ready, missing


def library_source(family: str) -> Tuple[str, str]:
    """(file name, text) of the translation unit defining ``family``'s entry point."""
    return f"ireec_ukernel_{family}.c", f'#include "{family_header(family)}"\n'


def library_define(family: str) -> str:
    """The define compiling ``family`` as a library (``-DIREEC_UKERNEL_LIBRARY_SGEMM``)."""
    return f"-DIREEC_UKERNEL_LIBRARY_{family.upper()}"


def store(obj: Path, path: Path) -> None:
    """Put the freshly compiled ``obj`` into the cache at ``path`` atomically; a failure to
    write the cache is ignored (the build has its object already)."""
    try:
        fd, staging = tempfile.mkstemp(prefix=f".{path.name}.", dir=str(path.parent))
        os.close(fd)
        shutil.copyfile(obj, staging)
        os.replace(staging, path)
    except OSError:
        try:
            os.unlink(staging)
        except (OSError, UnboundLocalError):
            pass
