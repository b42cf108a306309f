"""Generators of inputs for two error classes the mutation fuzzer found, each covering its
class rather than one instance: ``python3 -m tests.fuzz.classes`` compiles them all and
prints the outcomes (as :mod:`tests.fuzz.fuzz` classifies them).

:func:`literal_cases`
    every place a literal's elements are read against a type (``dense<...>`` in
    ``arith.constant``, ``stablehlo.constant``, ``tosa.const``, attribute and type aliases,
    properties, globals and checks; ``dense_resource``; hex blobs; ``array<...>``; scalar
    attributes; ``cf.switch`` case values) times element types that have no integer width
    (complex, tuple, ``none``, quantized and opaque dialect types, nested shaped types,
    function types) or no array form (``i3``), times literal shapes (splat, list, float,
    complex pair, bool, hex, empty). A type that cannot hold the literal must give a located
    error naming it, never an internal one.
:func:`gather_scatter_mutants`
    the ``stablehlo.gather`` and ``stablehlo.scatter`` ops of IREE's e2e tests (and the
    spec's batching example), each with one edit of a dimension-number field, of
    ``slice_sizes``, of an operand or result shape, of the indices' element type or of the
    update computation. A mutant the StableHLO spec rejects must be rejected by the
    verifier with a located error, not reach the lowering.
"""
from __future__ import annotations

import itertools
import random
import re
import sys
from pathlib import Path
from typing import Iterator, List, Tuple

from .fuzz import SHARED, _classify

# ------------------------------------------------------------------- literal typing
ELEMENT_TYPES = ("complex<f32>", "complex<i32>", "complex<f16>", "tuple<i32>", "tuple<>",
                 "tuple<i32, f32>", "none", "!quant.uniform<i8:f32, 1.0>", "!foo.bar",
                 '!foo<"x">', "!stablehlo.token", "vector<2xi32>", "tensor<2xi32>",
                 "memref<2xi32>", "(i32) -> i32", "!tosa.shape<2>", "i3", "ui7", "index",
                 "bf16", "f8E4M3FN", "i1")
LITERALS = ("1", "-1", "[1, 2]", "1.5", "(1, 2)", "[(1, 2), (3, 4)]", "true", '"0x01020304"',
            '"0x0102030405060708"', "", "0x7FC00000", "[[1], [2]]")

_CONSTANT_CONTEXTS = {
    "arith": ("", "arith.constant dense<{l}> : tensor<2x{t}>"),
    "arith_unshaped": ("", "arith.constant dense<{l}> : {t}"),
    "arith_vector": ("", "arith.constant dense<{l}> : vector<2x{t}>"),
    "arith_dynamic": ("", "arith.constant dense<{l}> : tensor<?x{t}>"),
    "arith_scalar": ("", "arith.constant {l} : {t}"),
    "stablehlo": ("", "stablehlo.constant dense<{l}> : tensor<2x{t}>"),
    "stablehlo_generic": ("", '"stablehlo.constant"() {{value = dense<{l}> : tensor<2x{t}>}} '
                              ": () -> tensor<2x{t}>"),
    "properties": ("", '"stablehlo.constant"() <{{value = dense<{l}> : tensor<2x{t}>}}> '
                       ": () -> tensor<2x{t}>"),
    "tosa": ("", '"tosa.const"() {{values = dense<{l}> : tensor<2x{t}>}} : () -> tensor<2x{t}>'),
    "attr_alias": ("#a = dense<{l}> : tensor<2x{t}>\n", "arith.constant #a : tensor<2x{t}>"),
    "type_alias": ("!t = {t}\n", "arith.constant dense<{l}> : tensor<2x!t>"),
    "resource": ("", "arith.constant dense_resource<r> : tensor<2x{t}>"),
    "resource_unshaped": ("", "arith.constant dense_resource<r> : {t}"),
    "array": ("", '"test.op"() {{v = array<{t}: {l}>}} : () -> ()'),
    "scalar_attr": ("", '"test.op"() {{v = {l} : {t}}} : () -> ()'),
}
_GLOBAL_CONTEXTS = {
    "memref_global": 'memref.global "private" constant @g : memref<2x{t}> = dense<{l}>\n',
    "memref_global_unshaped": 'memref.global "private" constant @g : {t} = dense<{l}>\n',
    "memref_global_resource": 'memref.global "private" constant @g : memref<2x{t}> = dense_resource<r>\n',
    "util_global": "util.global private @g = dense<{l}> : tensor<2x{t}>\n",
    "ml_program_global": "ml_program.global private @g(dense<{l}> : tensor<2x{t}>) : tensor<2x{t}>\n",
}
_RESOURCES = ('\n{-#\n  dialect_resources: {\n    builtin: {\n      r: "0x040000000100000002000000"\n'
              "    }\n  }\n#-}\n")


def literal_cases() -> Iterator[Tuple[str, str]]:
    """(name, MLIR text) for every context x element type x literal (see the module
    docstring); the literal is on line 2, or line 1 for the globals."""
    for (name, (pre, body)), t, lit in itertools.product(_CONSTANT_CONTEXTS.items(),
                                                        ELEMENT_TYPES, LITERALS):
        op = body.format(l=lit, t=t)
        returns = name in ("arith", "stablehlo", "stablehlo_generic", "tosa", "attr_alias", "resource")
        rt = f"tensor<2x{t}>"
        head = pre.format(l=lit, t=t)
        src = (f"{head}func.func @f() -> {rt} {{\n  %0 = {op}\n  return %0 : {rt}\n}}\n" if returns
               else f"{head}func.func @f() {{\n  %0 = {op}\n  return\n}}\n")
        if name.startswith("resource"):
            src += _RESOURCES
        yield f"{name}[{t}][{lit}]", src
    for (name, g), t, lit in itertools.product(_GLOBAL_CONTEXTS.items(), ELEMENT_TYPES, LITERALS):
        src = g.format(l=lit, t=t) + "func.func @f() {\n  return\n}\n"
        if "resource" in name:
            src += _RESOURCES
        yield f"{name}[{t}][{lit}]", src
    for t, lit in itertools.product(ELEMENT_TYPES, ("1", "-1", "1.5")):
        yield (f"switch[{t}][{lit}]",
               f"func.func @f(%a: {t}) {{\n  cf.switch %a : {t}, [\n    default: ^bb1,\n"
               f"    {lit}: ^bb1\n  ]\n^bb1:\n  return\n}}\n")
    for t in ELEMENT_TYPES:
        yield (f"check[{t}]",
               f"func.func @f(%a: tensor<2x{t}>) {{\n  check.expect_eq_const(%a, dense<1> : "
               f"tensor<2x{t}>) : tensor<2x{t}>\n  return\n}}\n")


# ---------------------------------------------------------- gather/scatter mutations
GATHER_SCATTER_SEEDS = ("corpus/iree_e2e/tests/e2e/stablehlo_ops/gather.mlir",
                        "corpus/iree_e2e/tests/e2e/stablehlo_ops/scatter.mlir")

# The spec's gather and scatter examples (batching dimensions), as functions of their operands.
SPEC_EXAMPLES = (
    'func.func @spec_gather(%operand: tensor<2x3x4x2xi32>, %start_indices: tensor<2x2x3x2xi64>) '
    '-> tensor<2x2x3x2x2xi32> {\n'
    '  %result = "stablehlo.gather"(%operand, %start_indices) {\n'
    '    dimension_numbers = #stablehlo.gather<\n'
    '      offset_dims = [3, 4],\n      collapsed_slice_dims = [1],\n'
    '      operand_batching_dims = [0],\n      start_indices_batching_dims = [1],\n'
    '      start_index_map = [2, 1],\n      index_vector_dim = 3>,\n'
    '    slice_sizes = array<i64: 1, 1, 2, 2>,\n    indices_are_sorted = false\n'
    '  } : (tensor<2x3x4x2xi32>, tensor<2x2x3x2xi64>) -> tensor<2x2x3x2x2xi32>\n'
    '  return %result : tensor<2x2x3x2x2xi32>\n}\n',
    'func.func @spec_scatter(%input: tensor<2x3x4x2xi64>, %scatter_indices: tensor<2x2x3x2xi64>, '
    '%update: tensor<2x2x3x2x2xi64>) -> tensor<2x3x4x2xi64> {\n'
    '  %result = "stablehlo.scatter"(%input, %scatter_indices, %update) ({\n'
    '    ^bb0(%arg0: tensor<i64>, %arg1: tensor<i64>):\n'
    '      %0 = "stablehlo.add"(%arg0, %arg1) : (tensor<i64>, tensor<i64>) -> tensor<i64>\n'
    '      "stablehlo.return"(%0) : (tensor<i64>) -> ()\n'
    '  }) {\n    scatter_dimension_numbers = #stablehlo.scatter<\n'
    '      update_window_dims = [3, 4],\n      inserted_window_dims = [1],\n'
    '      input_batching_dims = [0],\n      scatter_indices_batching_dims = [1],\n'
    '      scatter_dims_to_operand_dims = [2, 1],\n      index_vector_dim = 3>,\n'
    '    indices_are_sorted = false,\n    unique_indices = false\n'
    '  } : (tensor<2x3x4x2xi64>, tensor<2x2x3x2xi64>, tensor<2x2x3x2x2xi64>) -> tensor<2x3x4x2xi64>\n'
    '  return %result : tensor<2x3x4x2xi64>\n}\n',
)

_OP = re.compile(r'"stablehlo\.(gather|scatter)"\(.*?\}\s*:\s*\([^()]*\)\s*->\s*tensor<[^>]*>', re.S)
_FIELD = re.compile(r"\b(offset_dims|collapsed_slice_dims|operand_batching_dims|"
                    r"start_indices_batching_dims|start_index_map|update_window_dims|"
                    r"inserted_window_dims|input_batching_dims|scatter_indices_batching_dims|"
                    r"scatter_dims_to_operand_dims)\s*=\s*\[([^\]]*)\]")
_IVD = re.compile(r"\bindex_vector_dim\s*=\s*(-?\d+)")
_SIZES = re.compile(r"slice_sizes\s*=\s*array<i64:\s*([^>]*)>")
_TENSOR = re.compile(r"tensor<((?:\d+x)*)(i\d+|f\d+)>")
_LITERAL = re.compile(r"(util\.unfoldable_constant\s+)dense<.*?>(\s*:\s*tensor<)", re.S)
_BLOCK_ARG = re.compile(r"(\^bb0\(%\w+: )tensor<(i\d+|f\d+)>")


def gather_scatter_seeds(shared: Path = SHARED) -> List[Tuple[str, str]]:
    """(name, function text) per gather/scatter test function: constants become splats
    (any shape stays well-formed) and the function returns the op's result right after it."""
    out = [(re.search(r"@(\w+)", t).group(1), t) for t in SPEC_EXAMPLES]
    for rel in GATHER_SCATTER_SEEDS:
        path = shared / rel
        if not path.is_file():
            continue
        for chunk in re.split(r"\n(?=func\.func)", path.read_text()):
            m = _OP.search(chunk)
            if not m:
                continue
            head = _LITERAL.sub(r"\1dense<1>\2", chunk[: m.end()])
            res = re.search(r"(%\w+)\s*=\s*$", chunk[: m.start()]).group(1)
            rt = re.search(r"->\s*(tensor<[^>]*>)$", head).group(1)
            head = re.sub(r"^(func\.func @\w+\(\))", rf"\1 -> {rt}", head)
            out.append((re.search(r"@(\w+)", chunk).group(1), f"{head}\n  return {res} : {rt}\n}}\n"))
    return out


def _edit_list(rng: random.Random, items: List[str]) -> Tuple[List[str], str]:
    kind = rng.choice(("replace", "replace", "drop", "add", "swap", "duplicate", "clear"))
    v = str(rng.choice((-1, 0, 1, 2, 3, 4, 5)))
    if kind == "replace" and items:
        i = rng.randrange(len(items))
        return items[:i] + [v] + items[i + 1:], f"replace element {i} by {v}"
    if kind == "drop" and items:
        i = rng.randrange(len(items))
        return items[:i] + items[i + 1:], f"drop element {i}"
    if kind == "swap" and len(items) > 1:
        return items[::-1], "reverse"
    if kind == "duplicate" and items:
        return items + [items[-1]], "duplicate the last element"
    if kind == "clear":
        return [], "clear"
    i = rng.randrange(len(items) + 1)
    return items[:i] + [v] + items[i:], f"insert {v} at {i}"


def _mutate_op(text: str, rng: random.Random) -> Tuple[str, str]:
    """One edit of the gather/scatter op in ``text`` (a seed function)."""
    m = _OP.search(text)
    op_s, op_e = m.span()
    op = text[op_s:op_e]
    kind = rng.choice(("field", "field", "field", "ivd", "sizes", "shape", "shape", "index_type",
                       "block_arg"))
    if kind == "field":
        fields = list(_FIELD.finditer(op))
        f = rng.choice(fields)
        items = [x.strip() for x in f.group(2).split(",") if x.strip()]
        new, what = _edit_list(rng, items)
        op = op[: f.start(2)] + ", ".join(new) + op[f.end(2):]
        return text[:op_s] + op + text[op_e:], f"{f.group(1)}: {what}"
    if kind == "ivd":
        f = _IVD.search(op)
        v = str(rng.choice((-1, 0, 1, 2, 3, 4)))
        if f is None:
            i = op.index("#stablehlo.") + op[op.index("#stablehlo."):].index("<") + 1
            op = op[:i] + f"index_vector_dim = {v}, " + op[i:]
        else:
            op = op[: f.start(1)] + v + op[f.end(1):]
        return text[:op_s] + op + text[op_e:], f"index_vector_dim = {v}"
    if kind == "sizes":
        f = _SIZES.search(op)
        if f is not None:
            items = [x.strip() for x in f.group(1).split(",") if x.strip()]
            new, what = _edit_list(rng, items)
            op = op[: f.start(1)] + ", ".join(new) + op[f.end(1):]
            return text[:op_s] + op + text[op_e:], f"slice_sizes: {what}"
    if kind == "block_arg":
        args = list(_BLOCK_ARG.finditer(text))
        if args:
            a = rng.choice(args)
            new = rng.choice(("tensor<2xi32>", "f16", "tensor<f64>"))
            return text[: a.start()] + a.group(1) + new + text[a.end():], f"update computation argument -> {new}"
    # A shape or element type, changed everywhere in the function (operands stay consistent).
    types = sorted(set(x.group(0) for x in _TENSOR.finditer(op)))
    t = rng.choice(types)
    tm = _TENSOR.fullmatch(t)
    dims = [d for d in tm.group(1).split("x") if d]
    et = tm.group(2)
    if kind == "index_type":
        et, what = rng.choice((("f32", "float indices"), ("i8", "i8 elements"), ("i1", "i1 elements")))
    else:
        edit = rng.choice(("grow", "shrink", "drop", "add", "one"))
        i = rng.randrange(len(dims) + (1 if edit == "add" else 0)) if (dims or edit == "add") else None
        if i is None:
            edit, i = "add", 0
        if edit == "grow":
            dims[i] = str(int(dims[i]) + rng.choice((1, 2)))
        elif edit == "shrink":
            dims[i] = str(max(0, int(dims[i]) - 1))
        elif edit == "drop":
            del dims[i]
        elif edit == "add":
            dims.insert(i, str(rng.choice((1, 2, 3))))
        else:
            dims[i] = "1"
        what = f"{edit} dimension {i}"
    new_t = "tensor<" + "".join(d + "x" for d in dims) + et + ">"
    if rng.random() < 0.5:  # only in the op's signature: the result, or operands by their uses
        return text[:op_s] + op.replace(t, new_t) + text[op_e:], f"{t} -> {new_t} in the op: {what}"
    return text.replace(t, new_t), f"{t} -> {new_t}: {what}"


def gather_scatter_mutants(count: int, seed: int, shared: Path = SHARED) -> List[Tuple[str, str]]:
    """``count`` (description, MLIR text) mutants; sample ``i`` draws from
    ``random.Random(f"{seed}:{i}")``, so the list is deterministic."""
    seeds = gather_scatter_seeds(shared)
    out = []
    for i in range(count):
        rng = random.Random(f"{seed}:{i}")
        name, text = seeds[rng.randrange(len(seeds))]
        new, what = _mutate_op(text, rng)
        out.append((f"[{i}] @{name}: {what}", new))
    return out


def main(argv=None) -> int:
    """Compile every literal case and ``--count`` gather/scatter mutants; print the outcome
    counts and each internal error. Exit status 1 when there is one."""
    import argparse

    ap = argparse.ArgumentParser(prog="python3 -m tests.fuzz.classes", description=__doc__.split("\n\n")[0])
    ap.add_argument("--count", type=int, default=2000, help="gather/scatter mutants (default 2000)")
    ap.add_argument("--seed", type=int, default=1, help="random seed of the mutants (default 1)")
    args = ap.parse_args(argv)
    bad = 0
    for title, cases in (("literals", list(literal_cases())),
                         ("gather/scatter", gather_scatter_mutants(args.count, args.seed))):
        counts = {}
        for name, src in cases:
            outcome, detail = _classify(src, "t.mlir")
            counts[outcome] = counts.get(outcome, 0) + 1
            if outcome != "ok" and outcome != "located":
                bad += 1
                print(f"{outcome}: {name}: {detail}")
        print(f"{title}: {len(cases)} inputs, " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
