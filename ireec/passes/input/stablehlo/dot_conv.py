"""StableHLO → linalg patterns: dot_conv."""
from __future__ import annotations

PATTERNS = {}
