"""StableHLO → linalg patterns: sort."""
from __future__ import annotations

PATTERNS = {}
