"""The compiler scales linearly with the program: a cheap guard against quadratic passes.

Compiles benchmarks/gen_chain.py's StableHLO chains (tanh, add, a 64x64 dot_general every
fourth op) of 500 and 2,000 ops to C and compares their CPU times: 4x the ops should cost
about 4x the time (16x if a pass were quadratic). A ratio, not an absolute threshold, so a
slow or loaded machine does not fail it; the minimum of a few runs filters out noise.
The absolute comparison with iree-compile lives in benchmarks/RESULTS.md
(``python3 -m benchmarks --only compile-time``).
"""
import time

from benchmarks.compile_time import replace_section
from benchmarks.gen_chain import chain_mlir
from ireec.compiler import compile_source
from ireec.frontend.parser import parse_source

SMALL, LARGE = 500, 2000
#: Largest accepted time ratio for LARGE/SMALL = 4x the ops (linear: 4, quadratic: 16).
MAX_RATIO = 6.0


def _cpu_seconds(text: str, repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        t0 = time.process_time()
        out = compile_source(text, "chain.mlir", target="c", module_name="chain")
        best = min(best, time.process_time() - t0)
        assert out.files  # compiled to the end
    return best


def test_chain_generator_states_what_it_generates():
    text = chain_mlir(8)
    module = parse_source(text, "chain.mlir")
    names = [op.name for op in module.walk()]
    assert names.count("stablehlo.tanh") == 4
    assert names.count("stablehlo.add") == 2
    assert names.count("stablehlo.dot_general") == 2
    assert names.count("func.func") == 1
    assert chain_mlir(8) == text  # deterministic


def test_compile_time_grows_linearly_with_ops():
    small, large = chain_mlir(SMALL), chain_mlir(LARGE)
    _cpu_seconds(small, 1)  # warm caches (imports, templates)
    t_small = _cpu_seconds(small, 3)
    t_large = _cpu_seconds(large, 2)
    ratio = t_large / t_small
    assert ratio < MAX_RATIO, (
        f"{LARGE} ops took {t_large:.2f} s CPU, {SMALL} ops {t_small:.2f} s: {ratio:.1f}x for "
        f"{LARGE // SMALL}x the ops (a pass is superlinear in the number of ops)")


def test_replace_section_keeps_other_sections():
    text = "# t\n\n## A\n\na\n\n## B\n\nold\n\n## How measured\n\nm\n"
    new = replace_section(text, "## B", ["## B", "", "new"])
    assert new == "# t\n\n## A\n\na\n\n## B\n\nnew\n\n## How measured\n\nm\n"
    added = replace_section("# t\n\n## How measured\n\nm\n", "## B", ["## B", "", "x"])
    assert added == "# t\n\n## B\n\nx\n\n## How measured\n\nm\n"
    last = replace_section("# t\n\n## B\n\nold\n", "## B", ["## B", "", "y"])
    assert last == "# t\n\n## B\n\ny\n"
