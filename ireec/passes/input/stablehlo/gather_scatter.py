"""StableHLO → linalg patterns: gather_scatter."""
from __future__ import annotations

PATTERNS = {}
