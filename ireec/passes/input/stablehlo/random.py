"""StableHLO → linalg patterns: random."""
from __future__ import annotations

PATTERNS = {}
