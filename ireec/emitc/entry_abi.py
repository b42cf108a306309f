"""What the public entry of a host function needs beyond its signature, read from the
attributes the pipeline leaves on its ``func.func`` and copies onto its ``emitc.func``:
the dynamic dimensions the entry loops over (``ireec.dynamic_dims``, set by
``ireec-map-dynamic-dims``, ireec/passes/input/map_dynamic_dims.py) and those it stages
padded to their bounds (``ireec.padded_dims``, set by ``ireec-pad-dynamic-dims-to-bounds``,
ireec/passes/input/pad_dynamic_dims_to_bounds.py).
"""
from __future__ import annotations

from typing import Optional

from ..ir.core import Operation


def dynamic_dims_of(f: Operation) -> Optional[dict]:
    """The ``ireec.dynamic_dims`` of function ``f`` as plain Python: {'symbols': [(arg,
    dim)], 'arg_dims': [(arg, dim, symbol)], 'args': [[symbol...]], 'results': [[symbol...]],
    'checks': [(symbol, C comparison, constant)]}; None for a static function."""
    a = f.attributes.get("ireec.dynamic_dims")
    if a is None:
        return None
    d = a.as_dict()
    return {
        "symbols": [tuple(x.value) for x in d["symbols"]],
        "arg_dims": [tuple(x.value) for x in d["arg_dims"]],
        "args": [list(x.value) for x in d["args"]],
        "results": [list(x.value) for x in d["results"]],
        "checks": [(c.value[0].value, c.value[1].value, c.value[2].value) for c in d["checks"]],
    }


def padded_dims_of(f: Operation) -> Optional[dict]:
    """The ``ireec.padded_dims`` of function ``f`` as plain Python: {'symbols': [(arg, dim,
    bound)], 'args': [{dim: symbol}], 'results': [{dim: symbol}], 'extents': [argument index
    of the symbol's hidden extent, or -1], 'staging': [bytes per argument then result],
    'checks': [(symbol, C comparison, constant)]}; None when nothing is padded."""
    a = f.attributes.get("ireec.padded_dims")
    if a is None:
        return None
    d = a.as_dict()

    def pairs(x) -> dict:
        v = list(x.value)
        return dict(zip(v[0::2], v[1::2]))

    return {
        "symbols": [tuple(x.value) for x in d["symbols"]],
        "args": [pairs(x) for x in d["args"]],
        "results": [pairs(x) for x in d["results"]],
        "extents": [int(x) for x in d["extents"].value],
        "staging": [int(x) for x in d["staging"].value],
        "checks": [(c.value[0].value, c.value[1].value, c.value[2].value) for c in d["checks"]],
    }
