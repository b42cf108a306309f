"""StableHLO → linalg patterns: complex_ops."""
from __future__ import annotations

PATTERNS = {}
