"""ireec: an ahead-of-time compiler from MLIR (StableHLO, TOSA, linalg) to runtimeless C."""
__version__ = "0.1.0"
