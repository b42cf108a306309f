"""The core IR: values, operations, blocks and regions (MLIR's structure, in Python).

An :class:`Operation` has a name (``dialect.op``), operands, typed results, an attribute
dictionary, regions and successor blocks, and the source :class:`Location` it came from.
Use lists are kept on values so rewrites can replace all uses in O(uses).
"""
from __future__ import annotations

from typing import Dict, Iterable, Iterator, List, Optional, Sequence

from .attributes import Attribute, OpAttributes
from .diagnostics import UNKNOWN, Location
from .types import Type


class UseList:
    """The uses of a value: ``(Operation, operand index)`` pairs in the order they were added,
    iterated, counted and tested like a list; ``append``/``remove`` are O(1) (an insertion-
    ordered dict keyed by ``(id(op), index)``), so rewriting the uses of a value with n
    users costs O(n), not O(n²)."""

    __slots__ = ("_d",)

    def __init__(self):
        self._d: Dict[tuple, tuple] = {}

    def append(self, use: tuple) -> None:
        self._d[(id(use[0]), use[1])] = use

    def remove(self, use: tuple) -> None:
        """Remove ``use``; ValueError when absent (as ``list.remove``)."""
        key = (id(use[0]), use[1])
        if self._d.get(key, (None,))[0] is not use[0]:
            raise ValueError("use not in list")
        del self._d[key]

    def clear(self) -> None:
        self._d.clear()

    def __iter__(self):
        return iter(self._d.values())

    def __len__(self) -> int:
        return len(self._d)

    def __bool__(self) -> bool:
        return bool(self._d)

    def __contains__(self, use) -> bool:
        return self._d.get((id(use[0]), use[1]), (None,))[0] is use[0]

    def __getitem__(self, i: int) -> tuple:
        """The ``i``-th use (O(i); O(1) for 0 and -1)."""
        n = len(self._d)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError("use index out of range")
        if i == n - 1:
            return next(reversed(self._d.values()))
        for k, use in enumerate(self._d.values()):
            if k == i:
                return use
        raise IndexError("use index out of range")  # unreachable

    def __repr__(self) -> str:
        return f"UseList({list(self._d.values())!r})"


class Value:
    """An SSA value: an operation result or a block argument."""

    __slots__ = ("type", "uses", "name_hint")

    def __init__(self, type: Type):
        self.type = type
        self.uses = UseList()  # (Operation, operand index)
        self.name_hint: Optional[str] = None

    @property
    def owner(self):
        """The defining Operation (results) or Block (arguments)."""
        return None

    def replace_all_uses_with(self, new: "Value") -> None:
        if new is self:
            return
        for op, i in list(self.uses):
            op.set_operand(i, new)

    def replace_uses_if(self, new: "Value", pred) -> None:
        for op, i in list(self.uses):
            if pred(op):
                op.set_operand(i, new)

    @property
    def users(self) -> List["Operation"]:
        seen, out = set(), []
        for op, _ in self.uses:
            if id(op) not in seen:
                seen.add(id(op))
                out.append(op)
        return out

    @property
    def has_one_use(self) -> bool:
        return len(self.uses) == 1


class OpResult(Value):
    __slots__ = ("op", "index")

    def __init__(self, type: Type, op: "Operation", index: int):
        super().__init__(type)
        self.op = op
        self.index = index

    @property
    def owner(self) -> "Operation":
        return self.op

    def __repr__(self) -> str:
        return f"<result {self.index} of {self.op.name}: {self.type}>"


class BlockArgument(Value):
    __slots__ = ("block", "index")

    def __init__(self, type: Type, block: "Block", index: int):
        super().__init__(type)
        self.block = block
        self.index = index

    @property
    def owner(self) -> "Block":
        return self.block

    def __repr__(self) -> str:
        return f"<arg {self.index}: {self.type}>"


class Operation:
    """A generic MLIR operation. Dialect-specific behaviour lives in ``ireec.dialects``."""

    def __init__(self, name: str, operands: Sequence[Value] = (), result_types: Sequence[Type] = (),
                 attributes: Optional[Dict[str, Attribute]] = None, regions: Sequence["Region"] = (),
                 successors: Sequence["Block"] = (), loc: Optional[Location] = None):
        self.name = name
        self._operands: List[Value] = []
        for v in operands:
            self._append_operand(v)
        self.results: List[OpResult] = [OpResult(t, self, i) for i, t in enumerate(result_types)]
        self.attributes: Dict[str, Attribute] = dict(attributes or {})
        self.regions: List[Region] = []
        for r in regions:
            self.add_region(r)
        self.successors: List[Block] = list(successors)
        self.loc = loc or UNKNOWN
        self.parent: Optional[Block] = None

    # Operands -----------------------------------------------------------------
    def _append_operand(self, v: Value) -> None:
        if not isinstance(v, Value):
            raise TypeError(f"operand of {self.name} is not a Value: {v!r}")
        v.uses.append((self, len(self._operands)))
        self._operands.append(v)

    @property
    def operands(self) -> List[Value]:
        return self._operands

    def set_operand(self, i: int, v: Value) -> None:
        old = self._operands[i]
        old.uses.remove((self, i))
        self._operands[i] = v
        v.uses.append((self, i))

    def set_operands(self, vals: Sequence[Value]) -> None:
        self.drop_operands()
        for v in vals:
            self._append_operand(v)

    def drop_operands(self) -> None:
        for i, v in enumerate(self._operands):
            try:
                v.uses.remove((self, i))
            except ValueError:
                pass
        self._operands = []

    # Results and attributes -------------------------------------------------
    @property
    def result(self) -> OpResult:
        if len(self.results) != 1:
            raise ValueError(f"{self.name} has {len(self.results)} results, not one")
        return self.results[0]

    @property
    def result_types(self) -> List[Type]:
        return [r.type for r in self.results]

    @property
    def attributes(self) -> Dict[str, Attribute]:
        """Name → attribute; reading a missing name is a located error (see OpAttributes)."""
        return self._attributes

    @attributes.setter
    def attributes(self, items) -> None:
        self._attributes = OpAttributes(self, items or {})

    def attr(self, name: str, default=None):
        return self.attributes.get(name, default)

    @property
    def dialect(self) -> str:
        return self.name.split(".", 1)[0]

    # Regions ------------------------------------------------------------------
    def add_region(self, r: "Region") -> "Region":
        r.parent = self
        self.regions.append(r)
        return r

    @property
    def body(self) -> "Block":
        """The single block of the first region (module, func, linalg.generic...)."""
        return self.regions[0].blocks[0]

    # Structure ----------------------------------------------------------------
    @property
    def parent_op(self) -> Optional["Operation"]:
        b = self.parent
        if b is None or b.parent is None:
            return None
        return b.parent.parent

    def ancestor(self, name: str) -> Optional["Operation"]:
        p = self.parent_op
        while p is not None and p.name != name:
            p = p.parent_op
        return p

    def walk(self, pre_order: bool = True) -> Iterator["Operation"]:
        """All operations nested in this one, including itself."""
        if pre_order:
            yield self
        for r in self.regions:
            for b in r.blocks:
                for op in list(b.ops):
                    if op.regions:
                        yield from op.walk(pre_order)
                    else:  # a leaf: no nested generator
                        yield op
        if not pre_order:
            yield self

    def erase(self) -> None:
        """Remove from its block and drop operand uses. Results must be unused."""
        for r in self.results:
            if r.uses:
                raise ValueError(f"erasing {self.name} whose result still has uses")
        self.drop_operands()
        for r in self.regions:
            for b in r.blocks:
                for op in list(b.ops):
                    op.drop_all_references()
        if self.parent is not None:
            self.parent.ops.remove(self)
            self.parent = None

    def drop_all_references(self) -> None:
        self.drop_operands()
        for r in self.regions:
            for b in r.blocks:
                for op in b.ops:
                    op.drop_all_references()

    def detach(self) -> "Operation":
        if self.parent is not None:
            self.parent.ops.remove(self)
            self.parent = None
        return self

    def replace_with(self, values: Sequence[Value]) -> None:
        """Replace all uses of the results with ``values`` and erase this op."""
        for r, v in zip(self.results, values):
            r.replace_all_uses_with(v)
        self.erase()

    def clone(self, mapping: Optional[Dict[Value, Value]] = None) -> "Operation":
        """Deep copy; operands are looked up in ``mapping`` (updated with new results)."""
        if mapping is None:
            mapping = {}
        new = Operation(self.name, [mapping.get(v, v) for v in self._operands],
                        [r.type for r in self.results], dict(self.attributes),
                        successors=list(self.successors), loc=self.loc)
        for old_r, new_r in zip(self.results, new.results):
            mapping[old_r] = new_r
            new_r.name_hint = old_r.name_hint
        for r in self.regions:
            new.add_region(r.clone(mapping))
        return new

    def __repr__(self) -> str:
        return f"<op {self.name} at {self.loc}>"


class OpList(list):
    """The ops of a block: a ``list`` whose ``index``/``remove``/``insert`` of an op avoid the
    linear search. Positions are cached (``id(op)`` → index) and valid below ``_valid``;
    a mutation at index i only invalidates positions ≥ i, and a lookup past the valid
    prefix extends it, so a rewrite walking the block in either direction costs O(1)
    amortized per lookup besides the list's own memmove. Mutations not listed below
    invalidate the whole cache."""

    __slots__ = ("_pos", "_valid")

    def __init__(self, ops: Iterable["Operation"] = ()):
        super().__init__(ops)
        self._pos: Dict[int, int] = {}
        self._valid = 0

    def _invalidate(self, i: int = 0) -> None:
        if i < self._valid:
            self._valid = max(i, 0)

    def index(self, op, *args) -> int:  # type: ignore[override]
        if args:
            return super().index(op, *args)
        i = self._pos.get(id(op))
        if i is not None and i < self._valid and list.__getitem__(self, i) is op:
            return i
        pos, n = self._pos, len(self)
        for j in range(self._valid, n):
            o = list.__getitem__(self, j)
            pos[id(o)] = j
            if o is op:
                self._valid = j + 1
                return j
        self._valid = n
        raise ValueError(f"{op!r} is not in the block")

    def remove(self, op) -> None:  # type: ignore[override]
        i = self.index(op)
        list.__delitem__(self, i)
        self._pos.pop(id(op), None)
        self._invalidate(i)

    def insert(self, i: int, op) -> None:  # type: ignore[override]
        n = len(self)
        i = max(0, min(n, i + n if i < 0 else i))
        list.insert(self, i, op)
        self._invalidate(i)

    def append(self, op) -> None:  # type: ignore[override]
        list.append(self, op)
        if self._valid == len(self) - 1:
            self._pos[id(op)] = self._valid
            self._valid += 1

    def pop(self, i: int = -1):  # type: ignore[override]
        n = len(self)
        op = list.pop(self, i)
        self._invalidate(i + n if i < 0 else i)
        return op

    def _first_touched(self, i) -> int:
        """Lowest index a mutation at ``i`` (int or slice) can move."""
        n = len(self)
        if isinstance(i, slice):
            start, stop, step = i.indices(n)
            return min(start, stop) if step > 0 else 0
        return i + n if i < 0 else i

    def __delitem__(self, i) -> None:
        first = self._first_touched(i)
        list.__delitem__(self, i)
        self._invalidate(first)

    def __setitem__(self, i, v) -> None:
        first = self._first_touched(i)
        list.__setitem__(self, i, v)
        self._invalidate(first)

    def __iadd__(self, other):
        self.extend(other)
        return self

    def __imul__(self, n):
        self._invalidate()
        return list.__imul__(self, n)

    def extend(self, ops) -> None:  # type: ignore[override]
        list.extend(self, ops)

    def clear(self) -> None:  # type: ignore[override]
        list.clear(self)
        self._pos.clear()
        self._valid = 0

    def sort(self, *a, **k) -> None:  # type: ignore[override]
        list.sort(self, *a, **k)
        self._invalidate()

    def reverse(self) -> None:  # type: ignore[override]
        list.reverse(self)
        self._invalidate()


class Block:
    __slots__ = ("args", "_ops", "parent")

    def __init__(self, arg_types: Iterable[Type] = ()):
        self.args: List[BlockArgument] = []
        self._ops = OpList()
        self.parent: Optional[Region] = None
        for t in arg_types:
            self.add_arg(t)

    @property
    def ops(self) -> OpList:
        """The block's operations in order (an :class:`OpList`)."""
        return self._ops

    @ops.setter
    def ops(self, ops: Iterable[Operation]) -> None:
        self._ops = ops if isinstance(ops, OpList) else OpList(ops)

    def add_arg(self, t: Type) -> BlockArgument:
        a = BlockArgument(t, self, len(self.args))
        self.args.append(a)
        return a

    def erase_arg(self, i: int) -> None:
        a = self.args.pop(i)
        if a.uses:
            raise ValueError("erasing a block argument that still has uses")
        for j, b in enumerate(self.args):
            b.index = j

    def append(self, op: Operation) -> Operation:
        op.parent = self
        self.ops.append(op)
        return op

    def insert(self, i: int, op: Operation) -> Operation:
        op.parent = self
        self.ops.insert(i, op)
        return op

    def insert_before(self, anchor: Operation, op: Operation) -> Operation:
        return self.insert(self.ops.index(anchor), op)

    def insert_after(self, anchor: Operation, op: Operation) -> Operation:
        return self.insert(self.ops.index(anchor) + 1, op)

    @property
    def terminator(self) -> Optional[Operation]:
        return self.ops[-1] if self.ops else None

    @property
    def parent_op(self) -> Optional[Operation]:
        return self.parent.parent if self.parent else None

    def __repr__(self) -> str:
        return f"<block with {len(self.args)} args, {len(self.ops)} ops>"


class Region:
    __slots__ = ("blocks", "parent")

    def __init__(self, blocks: Iterable[Block] = ()):
        self.blocks: List[Block] = []
        self.parent: Optional[Operation] = None
        for b in blocks:
            self.add_block(b)

    def add_block(self, b: Block) -> Block:
        b.parent = self
        self.blocks.append(b)
        return b

    def clone(self, mapping: Dict[Value, Value]) -> "Region":
        new = Region()
        bmap = {}
        for b in self.blocks:
            nb = Block()
            for a in b.args:
                na = nb.add_arg(a.type)
                na.name_hint = a.name_hint
                mapping[a] = na
            bmap[b] = nb
            new.add_block(nb)
        for b in self.blocks:
            nb = bmap[b]
            for op in b.ops:
                c = op.clone(mapping)
                c.successors = [bmap.get(s, s) for s in c.successors]
                nb.append(c)
        return new

    @property
    def empty(self) -> bool:
        return not self.blocks


def make_module(loc: Optional[Location] = None) -> Operation:
    """An empty ``builtin.module`` with one block and no resources."""
    m = Operation("builtin.module", regions=[Region([Block()])], loc=loc)
    m.resources = {}
    return m


class Builder:
    """Creates operations at an insertion point (before ``index`` in ``block``)."""

    def __init__(self, block: Block, index: Optional[int] = None, loc: Optional[Location] = None):
        self.block = block
        self.index = len(block.ops) if index is None else index
        self.loc = loc

    @staticmethod
    def before(op: Operation) -> "Builder":
        return Builder(op.parent, op.parent.ops.index(op), op.loc)

    @staticmethod
    def after(op: Operation) -> "Builder":
        return Builder(op.parent, op.parent.ops.index(op) + 1, op.loc)

    @staticmethod
    def at_end(block: Block, loc=None) -> "Builder":
        return Builder(block, None, loc)

    def insert(self, op: Operation) -> Operation:
        if self.loc is not None and op.loc is UNKNOWN:
            op.loc = self.loc
        self.block.insert(self.index, op)
        self.index += 1
        return op

    def create(self, name: str, operands: Sequence[Value] = (), result_types: Sequence[Type] = (),
               attributes: Optional[Dict[str, Attribute]] = None, regions: Sequence[Region] = (),
               successors: Sequence[Block] = ()) -> Operation:
        return self.insert(Operation(name, operands, result_types, attributes, regions, successors, self.loc))
