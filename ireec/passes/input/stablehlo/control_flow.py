"""StableHLO → linalg patterns: control_flow."""
from __future__ import annotations

PATTERNS = {}
