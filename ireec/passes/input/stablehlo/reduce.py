"""StableHLO → linalg patterns: reduce."""
from __future__ import annotations

PATTERNS = {}
