PYTHON ?= python3

.PHONY: help install test test-fast bench bench-igemm gpu-test bench-gpu corpus-status sanitize fuzz compare-generated clean

# `make help`: every target of this file, one line each (the text after `##` on its rule line).
help: ## list the targets
	@awk -F':' '/^[A-Za-z][A-Za-z0-9_-]*:/ { d = $$0; sub(/^[^#]*(## ?)?/, "", d); if (d == $$0) d = ""; printf "  %-15s %s\n", $$1, d }' $(MAKEFILE_LIST)

install: ## pip install -e ".[test]" (the package and its test dependencies)
	$(PYTHON) -m pip install -e ".[test]"

test: ## the whole test suite (what .ci/run runs)
	$(PYTHON) -m pytest -q

test-fast: ## the test suite without the tests marked slow, stopping at the first failure
	$(PYTHON) -m pytest -q -x -m "not slow"

# Speed against numpy (and IREE when `pip install -e ".[iree]"` is done); writes
# benchmarks/RESULTS.md. Not part of .ci/run. `make bench BENCH_ARGS=--quick` for a fast pass.
bench: ## time the benchmarks against numpy (and IREE); writes benchmarks/RESULTS.md
	$(PYTHON) -m benchmarks $(BENCH_ARGS)

# The int8 GEMM section of `make bench` alone (1024^3 through ireec_uk_igemm on openmp, 1 and
# 2 threads, against the VNNI peak), replaced in benchmarks/RESULTS.md.
bench-igemm: ## time the int8 GEMM against the VNNI peak; updates its section of RESULTS.md
	$(PYTHON) -m benchmarks --only igemm

# The tests marked `gpu` (tests/e2e/test_cuda.py): seeds, models and corpus built for
# --target=cuda and run on the GPU; they skip with the reason when no GPU is visible.
gpu-test: ## run the GPU tests (--target=cuda on an NVIDIA GPU; skipped without one)
	$(PYTHON) -m pytest -q -m gpu -rs

# ireec's cuda target against torch (eager, torch.compile), cuBLAS and the copy bandwidth;
# writes benchmarks/RESULTS-gpu.md. Prints why and does nothing without a GPU.
bench-gpu: ## time --target=cuda on the GPU; writes benchmarks/RESULTS-gpu.md
	$(PYTHON) -m benchmarks.gpu $(BENCH_ARGS)

# Rerun IREE's e2e corpus and rewrite tests/e2e/corpus_status.md.
corpus-status: ## rerun IREE's e2e corpus and rewrite tests/e2e/corpus_status.md
	$(PYTHON) -m tests.e2e.corpus --update

# The generated C of every model and of a corpus subset, built with
# -fsanitize=address,undefined and run in Pythons started with LD_PRELOAD of the sanitizer
# runtimes (see tests/e2e/sanitize.py). `make sanitize SANITIZE_ARGS=--corpus=all` for the
# whole corpus. Not part of .ci/run.
sanitize: ## run the models and a corpus subset under ASan+UBSan (SANITIZE_ARGS=--corpus=all)
	$(PYTHON) -m tests.e2e.sanitize $(SANITIZE_ARGS)

# Mutation fuzzing of the compiler over ../shared (corpus and models); reproducers of any
# internal error, hang or crash go to build/fuzz. `make fuzz FUZZ_ARGS="--count 5000 --seed 1"`.
fuzz: ## mutation-fuzz the compiler over the corpus and models (FUZZ_ARGS="--count 5000 --seed 1")
	$(PYTHON) -m tests.fuzz.fuzz $(FUZZ_ARGS)

# Every generated source (models, corpus, benchmarks/cases on c, openmp and cuda) of this tree
# against those of another commit, byte for byte. `make compare-generated REV=main~3`.
REV ?= HEAD
compare-generated: ## compare the generated C of the working tree with that of commit REV (default HEAD)
	$(PYTHON) -m tests.e2e.compare_generated --against $(REV)

clean: ## remove build outputs and caches
	rm -rf build dist *.egg-info .pytest_cache
