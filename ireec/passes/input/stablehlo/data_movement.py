"""StableHLO → linalg patterns: data_movement."""
from __future__ import annotations

PATTERNS = {}
