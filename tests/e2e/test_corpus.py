"""IREE's e2e corpus on targets `c` (against the tracked status file) and `openmp` (same outcomes).

Every test function of ``../shared/corpus/iree_e2e`` is run (files in parallel subprocesses,
see ``tests/e2e/corpus.py``) and must have the status ``tests/e2e/corpus_status.md`` records:
a passing test that fails is a regression; a failing one that passes means the file is out of
date (regenerate it with ``python3 -m tests.e2e.corpus --update``). Set
``IREEC_UPDATE_CORPUS_STATUS=1`` to rewrite the file from this run instead of comparing.
"""
from __future__ import annotations

import os

import pytest

from . import corpus

_EXPECTED = corpus.read_status()


@pytest.fixture(scope="session")
def corpus_rows():
    if not corpus.CORPUS.is_dir():
        pytest.skip(f"{corpus.CORPUS} is not present (the shared corpus lives in ../shared)")
    rows = corpus.run_all("c")
    if os.environ.get("IREEC_UPDATE_CORPUS_STATUS"):
        corpus.write_status(rows)
    return {(f, n): (st, reason) for f, n, st, reason in rows}


def test_every_corpus_test_is_in_the_status_file(corpus_rows):
    missing = sorted(set(corpus_rows) - set(_EXPECTED))
    stale = sorted(set(_EXPECTED) - set(corpus_rows))
    assert not missing, f"tests missing from {corpus.STATUS_FILE.name}: {missing[:10]}"
    assert not stale, f"rows of {corpus.STATUS_FILE.name} that no longer exist: {stale[:10]}"


def test_pass_rate_is_at_least_90_percent(corpus_rows):
    passed = sum(1 for st, _ in corpus_rows.values() if st == "pass")
    assert passed >= 0.9 * len(corpus_rows), f"{passed} of {len(corpus_rows)} corpus tests pass"


@pytest.mark.parametrize("key", sorted(_EXPECTED), ids=[f"{f}::{n}" for f, n in sorted(_EXPECTED)])
def test_corpus_function(corpus_rows, key):
    expected, why = _EXPECTED[key]
    actual, reason = corpus_rows.get(key, ("missing", "not run"))
    if expected == "pass":
        assert actual == "pass", f"{key[0]} @{key[1]}: now {actual}: {reason}"
    else:
        assert actual != "pass", (f"{key[0]} @{key[1]} passes now; the status file says {expected} "
                                  f"({why}): regenerate it")
        if actual != expected:
            pytest.xfail(f"{expected} before, {actual} now: {reason}")
        pytest.xfail(f"{expected}: {why}")


def test_openmp_passes_exactly_what_c_passes(corpus_rows):
    """Target `openmp` runs the same kernels over threads: every corpus test has the same
    outcome as on `c` (the checks compare with IREE's tolerances)."""
    omp = {(f, n): st for f, n, st, _ in corpus.run_all("openmp")}
    c = {k: st for k, (st, _) in corpus_rows.items()}
    differ = sorted(k for k in c if (c[k] == "pass") != (omp.get(k) == "pass"))
    assert not differ, f"openmp and c differ on {len(differ)} tests: {differ[:10]}"
