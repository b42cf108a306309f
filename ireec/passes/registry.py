"""The pass registry: every pass of the pipeline by its ``name`` (the iree-opt / mlir-opt
flag spelling, e.g. ``iree-flow-outline-dispatch-regions``), and the parser of the
``--pass-pipeline`` strings ``ireec opt`` takes.

A pipeline is a comma-separated list of pass names. MLIR's textual pipeline syntax
(``mlir/lib/Pass/PassRegistry.cpp``: ``builtin.module(func.func(canonicalize), cse)``) is
accepted too: the op anchors it nests passes under are flattened, because every ireec pass
runs on the whole module. Pass options (``name{key=value}``) are refused: no ireec pass takes
any.
"""
from __future__ import annotations

import re
from typing import Dict, List, Type

from .pass_base import PASSES, Pass
from .pipeline import PIPELINE

#: Op names MLIR pipelines nest passes under (``builtin.module(...)``, ``func.func(...)``).
ANCHORS = ("builtin.module", "module", "func.func", "util.func", "any")


class PassPipelineError(ValueError):
    """A ``--pass-pipeline`` string that names an unknown pass or is malformed."""


def pass_registry() -> Dict[str, Type[Pass]]:
    """Pass name → pass class: the pipeline's passes in pipeline order, then any other
    pass registered with :func:`ireec.passes.pass_base.register_pass`."""
    registry: Dict[str, Type[Pass]] = {}
    for _phase, cls, _why in PIPELINE:
        registry.setdefault(cls.name, cls)
    for name in sorted(PASSES):
        registry.setdefault(name, PASSES[name])
    return registry


def pass_descriptions() -> Dict[str, str]:
    """Pass name → one line saying what it does: the pipeline table's reason, else the
    first line of the pass class's docstring."""
    why = {cls.name: f"[{phase}] {reason}" for phase, cls, reason in PIPELINE}
    out: Dict[str, str] = {}
    for name, cls in pass_registry().items():
        doc = (cls.__doc__ or "").strip().splitlines()
        out[name] = why.get(name) or (doc[0] if doc else "")
    return out


_TOKEN = re.compile(r"\s*(?:([A-Za-z0-9_.\-]+)|([(),{}]))")


def parse_pass_pipeline(text: str) -> List[Type[Pass]]:
    """The pass classes named by ``text`` (``a,b`` or ``builtin.module(a,func.func(b))``),
    in order. Raises PassPipelineError naming the known passes for an unknown name, and
    for unbalanced parentheses, empty names or pass options."""
    registry = pass_registry()
    names: List[str] = []
    depth = 0
    pos = 0
    expect_name = True
    text = text.strip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m or m.end() == pos:
            raise PassPipelineError(f"malformed pass pipeline '{text}' at column {pos + 1}")
        pos = m.end()
        word, punct = m.group(1), m.group(2)
        if word is not None:
            if not expect_name:
                raise PassPipelineError(f"malformed pass pipeline '{text}': expected ',' "
                                        f"before '{word}'")
            nxt = text[pos:].lstrip()[:1]
            if nxt == "(":
                if word not in ANCHORS:
                    raise PassPipelineError(
                        f"'{word}(...)' in pass pipeline '{text}': ireec passes run on the "
                        f"whole module; nest them only under {', '.join(ANCHORS[:3])}")
            else:
                if word not in registry:
                    raise PassPipelineError(f"unknown pass '{word}'; known passes: "
                                            + ", ".join(registry))
                names.append(word)
                expect_name = False
        elif punct == "(":
            depth += 1
            expect_name = True
        elif punct == ")":
            depth -= 1
            if depth < 0:
                raise PassPipelineError(f"malformed pass pipeline '{text}': unbalanced ')'")
            expect_name = False
        elif punct == ",":
            if expect_name:
                raise PassPipelineError(f"malformed pass pipeline '{text}': empty pass name")
            expect_name = True
        else:  # '{'
            raise PassPipelineError(f"pass options ('{{...}}') are not supported in '{text}': "
                                    "ireec passes take none")
    if depth != 0:
        raise PassPipelineError(f"malformed pass pipeline '{text}': unbalanced '('")
    if not names:
        raise PassPipelineError("the pass pipeline names no pass; known passes: " + ", ".join(registry))
    return [registry[n] for n in names]
