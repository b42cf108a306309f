"""ireec's benchmarks: ``python3 -m benchmarks`` (or ``make bench``) times the cases of
``benchmarks/cases`` and the JAX models of ``../shared/models`` for the ``c`` and ``openmp``
targets against numpy and, when installed (``pip install -e ".[iree]"``), IREE, and writes
``benchmarks/RESULTS.md``. See ``benchmarks/run.py``."""
