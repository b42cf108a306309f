"""Affine expressions and maps (``affine_map<(d0, d1)[s0] -> (d0 + s0, d1 floordiv 2)>``).

Semantics follow MLIR's AffineExpr (https://mlir.llvm.org/docs/Dialects/Affine/):
``floordiv``/``ceildiv``/``mod`` round towards -inf / +inf / non-negative remainder.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence, Tuple


class AffineExpr:
    __slots__ = ()

    def __add__(self, o):
        return AffineBinary("+", self, _lift(o))

    def __mul__(self, o):
        return AffineBinary("*", self, _lift(o))


def _lift(o) -> "AffineExpr":
    return AffineConst(o) if isinstance(o, int) else o


@dataclass(frozen=True)
class AffineDim(AffineExpr):
    pos: int

    def __str__(self) -> str:
        return f"d{self.pos}"


@dataclass(frozen=True)
class AffineSymbol(AffineExpr):
    pos: int

    def __str__(self) -> str:
        return f"s{self.pos}"


@dataclass(frozen=True)
class AffineConst(AffineExpr):
    value: int

    def __str__(self) -> str:
        return str(self.value)


_PREC = {"+": 1, "*": 2, "floordiv": 2, "ceildiv": 2, "mod": 2}


@dataclass(frozen=True)
class AffineBinary(AffineExpr):
    """``kind`` is one of '+', '*', 'floordiv', 'ceildiv', 'mod'."""

    kind: str
    lhs: AffineExpr
    rhs: AffineExpr

    def __str__(self) -> str:
        def wrap(e, right):
            if isinstance(e, AffineBinary) and (
                _PREC[e.kind] < _PREC[self.kind] or (right and _PREC[e.kind] == _PREC[self.kind])
            ):
                return f"({e})"
            return str(e)

        if self.kind == "+":
            # a + (-1 * b) prints as a - b, like MLIR.
            r = self.rhs
            if isinstance(r, AffineConst) and r.value < 0:
                return f"{wrap(self.lhs, False)} - {-r.value}"
            if isinstance(r, AffineBinary) and r.kind == "*" and isinstance(r.rhs, AffineConst) and r.rhs.value == -1:
                return f"{wrap(self.lhs, False)} - {wrap(r.lhs, True)}"
        return f"{wrap(self.lhs, False)} {self.kind} {wrap(self.rhs, True)}"


def eval_expr(e: AffineExpr, dims: Sequence[int], syms: Sequence[int] = ()) -> int:
    """Evaluate ``e`` with integer dim and symbol values."""
    if isinstance(e, AffineDim):
        return dims[e.pos]
    if isinstance(e, AffineSymbol):
        return syms[e.pos]
    if isinstance(e, AffineConst):
        return e.value
    a = eval_expr(e.lhs, dims, syms)
    b = eval_expr(e.rhs, dims, syms)
    if e.kind == "+":
        return a + b
    if e.kind == "*":
        return a * b
    if e.kind == "floordiv":
        return a // b
    if e.kind == "ceildiv":
        return -((-a) // b)
    return a % b


@dataclass(frozen=True)
class AffineMap:
    num_dims: int
    num_symbols: int
    results: Tuple[AffineExpr, ...]

    def __str__(self) -> str:
        dims = ", ".join(f"d{i}" for i in range(self.num_dims))
        syms = f"[{', '.join(f's{i}' for i in range(self.num_symbols))}]" if self.num_symbols else ""
        return f"({dims}){syms} -> ({', '.join(str(r) for r in self.results)})"

    @staticmethod
    def identity(n: int) -> "AffineMap":
        return AffineMap(n, 0, tuple(AffineDim(i) for i in range(n)))

    @staticmethod
    def from_dims(num_dims: int, dims: Sequence[int]) -> "AffineMap":
        return AffineMap(num_dims, 0, tuple(AffineDim(d) for d in dims))

    def is_projected_permutation(self) -> bool:
        """True when every result is a distinct dim or the constant 0 (broadcast)."""
        seen = set()
        for r in self.results:
            if isinstance(r, AffineConst) and r.value == 0:
                continue
            if not isinstance(r, AffineDim) or r.pos in seen:
                return False
            seen.add(r.pos)
        return True

    def is_identity(self) -> bool:
        return self.num_symbols == 0 and len(self.results) == self.num_dims and all(
            isinstance(r, AffineDim) and r.pos == i for i, r in enumerate(self.results)
        )

    def evaluate(self, dims: Sequence[int], syms: Sequence[int] = ()) -> Tuple[int, ...]:
        return tuple(eval_expr(r, dims, syms) for r in self.results)
