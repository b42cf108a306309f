"""The C runtime headers copied next to generated code (runtime_c/), and what using them
implies: :func:`runtime_header` gives a header's text, :func:`needs_libm` whether generated
C calls a <math.h> function directly or through one of ``ireec_runtime.h``'s helpers (the
module then links with ``-lm``).
"""
from __future__ import annotations

import importlib.resources
import re
from typing import List, Mapping

#: C math library functions (<math.h>) whose use means linking with ``-lm``.
_LIBM = re.compile(r"\b(?:sqrt|exp|expm1|exp2|log|log2|log10|log1p|pow|sin|cos|tan|asin|acos|atan|"
                   r"atan2|sinh|cosh|tanh|asinh|acosh|atanh|erf|erfc|tgamma|lgamma|cbrt|hypot|fmod|"
                   r"remainder|floor|ceil|trunc|round|rint|nearbyint|fma|fmin|fmax|copysign|"
                   r"frexp|ldexp|modf|nextafter|fabs)f?\s*\(")


#: The runtime_c headers copied next to a module whose kernels call a CPU micro-kernel:
#: ``ireec_ukernel.h`` (what the kernels include) and the family headers it includes.
UKERNEL_HEADERS = ("ireec_ukernel.h", "ireec_ukernel_common.h", "ireec_ukernel_sgemm.h",
                   "ireec_ukernel_dwconv.h", "ireec_ukernel_igemm.h", "ireec_ukernel_conv.h")


def runtime_header(name: str = "ireec_runtime.h") -> str:
    """Text of ``runtime_c/<name>``: ``ireec_runtime.h`` is copied next to every generated
    module, :data:`UKERNEL_HEADERS` next to those whose kernels call a micro-kernel,
    ``ireec_gpu_ukernel.h`` next to cuda outputs (``Target.runtime_headers``)."""
    return importlib.resources.files("ireec.runtime_c").joinpath(name).read_text()


def _expanded_helper_macros(text: str) -> str:
    """``text`` (ireec_runtime.h) with the instantiations of its helper-defining macros
    (``IREEC_SMALL_FLOAT(f8e4m3fn, ...)``) replaced by their bodies, the macro's first
    parameter pasted (``ireec_##name##_to_f32`` → ``ireec_f8e4m3fn_to_f32``)."""
    for m in re.finditer(r"^#define (\w+)\((\w+)[^)]*\)((?:[^\n]*\\\n)+[^\n]*)", text, re.M):
        macro, param, body = m.group(1), m.group(2), m.group(3).replace("\\\n", "\n")
        if "IREEC_INLINE" not in body:
            continue
        text = re.sub(rf"^{macro}\((\w+)\s*,[^\n]*$",
                      lambda i: body.replace(f"##{param}##", i.group(1)).replace(f"##{param}", i.group(1))
                      .replace(f"{param}##", i.group(1)), text, flags=re.M)
    return text


def _libm_helpers() -> List[str]:
    """Names of the ireec_runtime.h inline helpers whose bodies call <math.h> functions,
    directly or through another helper."""
    names, bodies = [], []
    for chunk in _expanded_helper_macros(runtime_header()).split("IREEC_INLINE ")[1:]:
        m = re.match(r"[\w\s\*]*?\b(ireec_\w+)\s*\(", chunk)
        if m:
            names.append(m.group(1))
            bodies.append(chunk[m.end():])
    calls_libm = {n for n, b in zip(names, bodies) if _LIBM.search(b)}
    changed = True
    while changed:  # helpers calling such helpers
        changed = False
        for n, b in zip(names, bodies):
            if n not in calls_libm and any(re.search(r"\b" + c + r"\s*\(", b) for c in calls_libm):
                calls_libm.add(n)
                changed = True
    return sorted(calls_libm)


def needs_libm(files: Mapping[str, str]) -> bool:
    """Whether the generated C calls a <math.h> function (link with ``-lm``), directly or
    through a helper of ireec_runtime.h that calls one (e.g. ``ireec_erff``)."""
    helpers = _libm_helpers()
    pattern = re.compile(r"\b(?:" + "|".join(helpers) + r")\s*\(") if helpers else None
    return any(_LIBM.search(text) or (pattern is not None and pattern.search(text))
               for name, text in files.items() if name.endswith(".c"))
