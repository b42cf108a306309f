"""Disjoint sets (union-find) shared by the passes that unify things.

Tarjan's union-find with path halving (R. E. Tarjan, "Efficiency of a good but not linear set
union algorithm", JACM 1975): keys are any hashable values (symbol numbers, ``id()`` of SSA
values); a key never seen is its own set. The representative of a union is the smaller key,
so it is deterministic for ordered keys (the dynamic-dims pass names a symbol by its first
argument dimension this way).
"""
from __future__ import annotations

from typing import Dict, Hashable


class UnionFind:
    """Disjoint sets over hashable, ordered keys (see the module docstring)."""

    def __init__(self) -> None:
        self.parent: Dict[Hashable, Hashable] = {}

    def find(self, k):
        """The representative of ``k``'s set (``k`` itself when never joined)."""
        parent = self.parent
        while parent.get(k, k) != k:
            parent[k] = parent.get(parent[k], parent[k])
            k = parent[k]
        return k

    def union(self, a, b):
        """Join the sets of ``a`` and ``b``; the representative of the union, the smaller
        of the two representatives."""
        a, b = self.find(a), self.find(b)
        if a != b:
            self.parent[max(a, b)] = min(a, b)
        return min(a, b)
