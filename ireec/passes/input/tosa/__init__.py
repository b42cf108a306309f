"""Patterns of the TOSA → linalg conversion.

Each module defines ``PATTERNS: dict[str, Callable[[Operation, Builder], list[Value] | None]]``.
"""
from __future__ import annotations

from typing import Callable, Dict

PATTERNS: Dict[str, Callable] = {}
