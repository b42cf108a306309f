"""The header every generated C module includes (ireec_runtime.h)."""
