PYTHON ?= python3

.PHONY: install test test-fast bench corpus-status sanitize fuzz clean

install:
	$(PYTHON) -m pip install -e ".[test]"

test:
	$(PYTHON) -m pytest -q

test-fast:
	$(PYTHON) -m pytest -q -x -m "not slow"

# Speed against numpy (and IREE when `pip install -e ".[iree]"` is done); writes
# benchmarks/RESULTS.md. Not part of .ci/run. `make bench BENCH_ARGS=--quick` for a fast pass.
bench:
	$(PYTHON) -m benchmarks $(BENCH_ARGS)

# Rerun IREE's e2e corpus and rewrite tests/e2e/corpus_status.md.
corpus-status:
	$(PYTHON) -m tests.e2e.corpus --update

clean:
	rm -rf build dist *.egg-info .pytest_cache

# Mutation fuzzing of the compiler over ../shared (corpus and models); reproducers of any
# internal error, hang or crash go to build/fuzz. `make fuzz FUZZ_ARGS="--count 5000 --seed 1"`.
fuzz:
	$(PYTHON) -m tests.fuzz.fuzz $(FUZZ_ARGS)
