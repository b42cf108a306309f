"""Dialects: one module per MLIR dialect, each registering its ops' syntax and traits."""
