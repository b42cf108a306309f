"""StableHLO → linalg patterns: elementwise."""
from __future__ import annotations

PATTERNS = {}
