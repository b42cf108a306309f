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


class Value:
    """An SSA value: an operation result or a block argument."""

    __slots__ = ("type", "uses", "name_hint")

    def __init__(self, type: Type):
        self.type = type
        self.uses: List[tuple] = []  # (Operation, operand index)
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
                    yield from op.walk(pre_order)
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


class Block:
    __slots__ = ("args", "ops", "parent")

    def __init__(self, arg_types: Iterable[Type] = ()):
        self.args: List[BlockArgument] = []
        self.ops: List[Operation] = []
        self.parent: Optional[Region] = None
        for t in arg_types:
            self.add_arg(t)

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
