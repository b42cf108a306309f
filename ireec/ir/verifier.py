"""The op verifier (MLIR's ``mlir::verify``): structure, dominance and per-op invariants.

:func:`verify` walks every operation nested in an op once and checks

- structure: an op with the ``terminator`` trait is the last op of its block; successors
  are blocks of the same region;
- dominance: every operand is defined before its use — earlier in the same block, in a
  block that dominates the use's block (multi-block regions), or in an enclosing region;
  regions of ``IsolatedFromAbove`` ops (``isolated`` trait) see nothing from outside;
  graph regions (symbol tables such as ``builtin.module`` and regions of ops ireec does not
  register, as MLIR's ``mayBeGraphRegion``) may refer to any op of the same block;
- the op's own invariants: the ``verify`` function its dialect registered (operand/result
  counts, types, element types, shapes, required attributes, region arity and
  terminators). Unregistered ops are checked only for what their generic form states.

Errors are :class:`CompileError` at the op's location, worded like MLIR's
(``'stablehlo.add' op requires the same element type for all operands and results``).
Cost: linear in the number of ops and operands (one visibility set, scoped per block;
dominator trees are built only for regions with more than one block).

The small reusable checks below (``same_operands_and_result_type``, ``float_like``...)
mirror MLIR's op traits and type constraints; dialect modules compose them into their
verifier tables. Source of the rules: https://mlir.llvm.org/docs/LangRef/ (dominance,
regions) and https://mlir.llvm.org/docs/Traits/.
"""
from __future__ import annotations

from typing import Callable, Dict, Iterable, List, Optional, Sequence, Set

from . import types as T
from .core import Block, BlockArgument, Operation, OpResult, Region, Value
from .diagnostics import UNKNOWN, CompileError
from .registry import OPS, has_trait, load_dialects, register

Verifier = Callable[[Operation], None]


# ------------------------------------------------------------------ diagnostics
def op_location(op: Operation):
    """The op's location, or that of its nearest ancestor with a known one (ops that passes
    create may carry none)."""
    o = op
    while o is not None:
        if o.loc is not UNKNOWN and o.loc.line > 0:
            return o.loc
        o = o.parent_op
    return op.loc


def op_error(op: Operation, message: str, notes: Iterable[str] = ()) -> CompileError:
    """``'<op name>' op <message>`` at the op's location (MLIR's ``emitOpError``)."""
    return CompileError(f"'{op.name}' op {message}", op_location(op), notes=list(notes))


def type_str(t) -> str:
    return f"'{t}'"


# ------------------------------------------------------------------ type helpers
def shape_of(t: T.Type):
    """Shape of a shaped type, () for a scalar, None when unranked."""
    if isinstance(t, T.ShapedType):
        return t.shape
    return ()


def compatible_dims(a: Optional[int], b: Optional[int]) -> bool:
    """Static dims must agree; a dynamic dim (None) is compatible with any."""
    return a is None or b is None or a == b


def compatible_shapes(a, b) -> bool:
    """MLIR's ``verifyCompatibleShape``: unranked matches anything, else equal rank and
    compatible dims."""
    if a is None or b is None:
        return True
    return len(a) == len(b) and all(compatible_dims(x, y) for x, y in zip(a, b))


def compatible_types(a: T.Type, b: T.Type) -> bool:
    """Equal types, or the same kind of shaped type with the same element type and
    compatible shapes (``tensor<?x4xf32>`` vs ``tensor<2x4xf32>``)."""
    if a == b:
        return True
    if isinstance(a, T.TensorType) and isinstance(b, T.TensorType):
        return a.element_type == b.element_type and compatible_shapes(a.shape, b.shape)
    return False


def is_float_like(t: T.Type) -> bool:
    """A float, or a tensor/vector of floats."""
    return isinstance(T.element_type(t), T.FloatType)


def is_int_like(t: T.Type) -> bool:
    """An integer or index, or a tensor/vector of them (MLIR's SignlessIntegerLike, which
    ireec also lets cover signed/unsigned integers)."""
    return isinstance(T.element_type(t), (T.IntegerType, T.IndexType))


def is_shaped_value_type(t: T.Type) -> bool:
    return isinstance(t, (T.TensorType, T.VectorType)) or not isinstance(t, T.ShapedType)


# ------------------------------------------------------------------ trait checks
def num_operands(n: int) -> Verifier:
    """Exactly ``n`` operands (MLIR: ``expected N operands, but found M``)."""
    def check(op):
        if len(op.operands) != n:
            raise op_error(op, f"expected {n} operands, but found {len(op.operands)}")
    return check


def num_results(n: int) -> Verifier:
    """Exactly ``n`` results."""
    def check(op):
        if len(op.results) != n:
            raise op_error(op, f"requires {n} result{'s' if n != 1 else ''}, but found "
                               f"{len(op.results)}")
    return check


def at_least_operands(n: int) -> Verifier:
    """At least ``n`` operands."""
    def check(op):
        if len(op.operands) < n:
            raise op_error(op, f"expected {n} or more operands, but found {len(op.operands)}")
    return check


def _all_types(op: Operation) -> List[T.Type]:
    return [v.type for v in op.operands] + list(op.result_types)


def same_operands_and_result_type(op: Operation) -> None:
    """SameOperandsAndResultType, with compatible (not necessarily equal) dynamic dims."""
    ts = _all_types(op)
    for t in ts[1:]:
        if not compatible_types(ts[0], t):
            raise op_error(op, "requires the same type for all operands and results")


def same_operands_and_result_element_type(op: Operation) -> None:
    """SameOperandsAndResultElementType."""
    ts = _all_types(op)
    if ts:
        e0 = T.element_type(ts[0])
        if any(T.element_type(t) != e0 for t in ts[1:]):
            raise op_error(op, "requires the same element type for all operands and results")


def same_operands_element_type(op: Operation) -> None:
    """SameOperandsElementType."""
    ts = [v.type for v in op.operands]
    if ts and any(T.element_type(t) != T.element_type(ts[0]) for t in ts[1:]):
        raise op_error(op, "requires the same element type for all operands")


def same_operands_and_result_shape(op: Operation) -> None:
    """SameOperandsAndResultShape (compatible shapes; unranked matches anything)."""
    ts = _all_types(op)
    shapes = [shape_of(t) for t in ts]
    for s in shapes[1:]:
        if not compatible_shapes(shapes[0], s):
            raise op_error(op, "requires the same shape for all operands and results")


def same_operands_and_result_shape_or_scalar(op: Operation) -> None:
    """Like :func:`same_operands_and_result_shape`, except that scalar (non-shaped) operands
    are allowed next to shaped ones (``arith.select`` with an i1 condition)."""
    ts = [t for t in _all_types(op) if isinstance(t, T.ShapedType)]
    for t in ts[1:]:
        if not compatible_shapes(ts[0].shape, t.shape):
            raise op_error(op, "requires the same shape for all operands and results")


def all_float_like(op: Operation) -> None:
    """Every operand and result is floating-point-like."""
    _all_kind(op, is_float_like, "floating-point-like")


def all_int_like(op: Operation) -> None:
    """Every operand and result is integer-like (integer or index, scalar or shaped)."""
    _all_kind(op, is_int_like, "signless-integer-like")


def _all_kind(op: Operation, pred, what: str) -> None:
    for i, v in enumerate(op.operands):
        if not pred(v.type):
            raise op_error(op, f"operand #{i} must be {what}, but got {type_str(v.type)}")
    for i, r in enumerate(op.results):
        if not pred(r.type):
            raise op_error(op, f"result #{i} must be {what}, but got {type_str(r.type)}")


def operand_kind(i: int, pred, what: str) -> Verifier:
    """Operand ``i`` satisfies ``pred`` (MLIR: ``operand #i must be <what>, but got 'T'``)."""
    def check(op):
        if i < len(op.operands) and not pred(op.operands[i].type):
            raise op_error(op, f"operand #{i} must be {what}, but got "
                               f"{type_str(op.operands[i].type)}")
    return check


def result_kind(i: int, pred, what: str) -> Verifier:
    """Result ``i`` satisfies ``pred``."""
    def check(op):
        if i < len(op.results) and not pred(op.results[i].type):
            raise op_error(op, f"result #{i} must be {what}, but got "
                               f"{type_str(op.results[i].type)}")
    return check


def required_attr(name: str, kind=None, what: str = "") -> Verifier:
    """Attribute ``name`` is present (and an instance of ``kind`` when given)."""
    def check(op):
        a = op.attributes.get(name)
        if a is None:
            raise op_error(op, f"requires attribute '{name}'")
        if kind is not None and not isinstance(a, kind):
            raise op_error(op, f"attribute '{name}' failed to satisfy constraint: {what}")
    return check


def optional_attr(name: str, kind, what: str) -> Verifier:
    """Attribute ``name``, when present, is an instance of ``kind``."""
    def check(op):
        a = op.attributes.get(name)
        if a is not None and not isinstance(a, kind):
            raise op_error(op, f"attribute '{name}' failed to satisfy constraint: {what}")
    return check


def num_regions(n: int) -> Verifier:
    """Exactly ``n`` regions."""
    def check(op):
        if len(op.regions) != n:
            raise op_error(op, f"requires {n} region{'s' if n != 1 else ''}")
    return check


def single_block_terminated(terminators: Sequence[str], region_indices=None,
                            allow_empty: bool = False) -> Verifier:
    """Each (or each listed) region has one block ending in one of ``terminators``
    (MLIR's SingleBlockImplicitTerminator)."""
    def check(op):
        idxs = range(len(op.regions)) if region_indices is None else region_indices
        for ri in idxs:
            if ri >= len(op.regions):
                raise op_error(op, f"requires {ri + 1} regions")
            blocks = op.regions[ri].blocks
            if not blocks and allow_empty:
                continue
            if len(blocks) != 1:
                raise op_error(op, f"expects region #{ri} to have 0 or 1 blocks")
            term = blocks[0].terminator
            if term is None or term.name not in terminators:
                found = f"'{term.name}'" if term is not None else "an empty block"
                want = " or ".join(f"'{n}'" for n in terminators)
                raise op_error(op, f"expects regions to end with {want}, found {found}")
    return check


def all_of(*checks: Verifier) -> Verifier:
    """A verifier running ``checks`` in order."""
    def check(op):
        for c in checks:
            c(op)
    return check


def register_verifiers(table: Dict[str, Verifier]) -> None:
    """Attach each ``{op name: verify fn}`` of ``table`` to the op registry."""
    for name, fn in table.items():
        register(name, verify=fn)


# ------------------------------------------------------------------ the walk
def verify(root: Operation) -> None:
    """Verify ``root`` and everything nested in it; raise CompileError on the first
    violation (at the offending op's location)."""
    load_dialects()
    visible: Set[Value] = set()
    _SYMBOLS.clear()
    try:
        _verify_op(root, visible)
    finally:
        _SYMBOLS.clear()


def _is_graph_region(op: Operation, defn) -> bool:
    # MLIR: builtin.module (and IREE's executables) hold graph regions; an unregistered op
    # may too (mayBeGraphRegion).
    return defn is None or "symbol_table" in defn.traits


def _verify_op(op: Operation, visible: Set[Value]) -> None:
    for i, v in enumerate(op.operands):
        if v not in visible:
            raise _dominance_error(op, i, v)
    defn = OPS.get(op.name)
    if defn is not None and defn.verify is not None:
        defn.verify(op)
    if not op.regions:
        return
    if defn is not None and "isolated" in defn.traits:
        visible = set()
    graph = _is_graph_region(op, defn)
    for region in op.regions:
        _verify_region(op, region, visible, graph)


def _verify_block_ops(block: Block, visible: Set[Value], graph: bool, added: List[Value]) -> None:
    for a in block.args:
        visible.add(a)
        added.append(a)
    if graph:
        for o in block.ops:
            for r in o.results:
                visible.add(r)
                added.append(r)
    ops = block.ops
    last = len(ops) - 1
    for k, o in enumerate(ops):
        if o.parent is not block:
            raise op_error(o, "has an incorrect parent block (the IR was rewritten without "
                              "updating it)")
        d = OPS.get(o.name)
        if k != last and d is not None and "terminator" in d.traits:
            raise op_error(o, "must be the last operation in the parent block")
        for s in o.successors:
            if s.parent is not block.parent:
                raise op_error(o, "reference to block defined in another region")
        _verify_op(o, visible)
        if not graph:
            for r in o.results:
                visible.add(r)
                added.append(r)


def _verify_region(op: Operation, region: Region, visible: Set[Value], graph: bool) -> None:
    blocks = region.blocks
    for b in blocks:
        if b.parent is not region:
            raise op_error(op, "has a block whose parent is not its region")
    if not blocks:
        return
    if len(blocks) == 1 or graph:
        for b in blocks:
            added: List[Value] = []
            _verify_block_ops(b, visible, graph, added)
            for v in added:
                visible.discard(v)
        return
    if _preds_of(blocks)[id(blocks[0])]:
        raise op_error(op, "entry block of region may not have predecessors")
    children, unreachable = _dominator_tree(blocks)

    def visit(b: Block) -> None:
        added: List[Value] = []
        _verify_block_ops(b, visible, False, added)
        for c in children.get(id(b), ()):
            visit(c)
        for v in added:
            visible.discard(v)

    visit(blocks[0])
    # Unreachable blocks: MLIR accepts any dominance there; check them with everything of
    # the region visible.
    if unreachable:
        extra: List[Value] = []
        for b in blocks:
            for a in b.args:
                if a not in visible:
                    visible.add(a)
                    extra.append(a)
            for o in b.ops:
                for r in o.results:
                    if r not in visible:
                        visible.add(r)
                        extra.append(r)
        for b in unreachable:
            added: List[Value] = []
            _verify_block_ops(b, visible, True, added)
        for v in extra:
            visible.discard(v)


def _preds_of(blocks: Sequence[Block]) -> Dict[int, List[Block]]:
    preds: Dict[int, List[Block]] = {id(b): [] for b in blocks}
    for b in blocks:
        t = b.terminator
        if t is not None:
            for s in t.successors:
                if id(s) in preds:
                    preds[id(s)].append(b)
    return preds


def _dominator_tree(blocks: Sequence[Block]):
    """Children lists of the dominator tree of a CFG region (entry = ``blocks[0]``) and the
    unreachable blocks. Cooper, Harvey & Kennedy, "A Simple, Fast Dominance Algorithm"."""
    # Reverse post-order from the entry.
    order: List[Block] = []
    seen = {id(blocks[0])}
    stack = [(blocks[0], iter(_succs(blocks[0])))]
    while stack:
        b, it = stack[-1]
        nxt = next(it, None)
        if nxt is None:
            order.append(b)
            stack.pop()
        elif id(nxt) not in seen and nxt.parent is b.parent:
            seen.add(id(nxt))
            stack.append((nxt, iter(_succs(nxt))))
    order.reverse()
    rpo = {id(b): i for i, b in enumerate(order)}
    preds = _preds_of(blocks)
    idom: Dict[int, Block] = {id(order[0]): order[0]}

    def intersect(a: Block, b: Block) -> Block:
        while a is not b:
            while rpo[id(a)] > rpo[id(b)]:
                a = idom[id(a)]
            while rpo[id(b)] > rpo[id(a)]:
                b = idom[id(b)]
        return a

    changed = True
    while changed:
        changed = False
        for b in order[1:]:
            new = None
            for p in preds[id(b)]:
                if id(p) in idom and id(p) in rpo:
                    new = p if new is None else intersect(p, new)
            if new is not None and idom.get(id(b)) is not new:
                idom[id(b)] = new
                changed = True
    children: Dict[int, List[Block]] = {}
    for b in order[1:]:
        children.setdefault(id(idom[id(b)]), []).append(b)
    unreachable = [b for b in blocks if id(b) not in rpo]
    return children, unreachable


def _succs(b: Block) -> List[Block]:
    t = b.terminator
    return list(t.successors) if t is not None else []


def _dominance_error(op: Operation, i: int, v: Value) -> CompileError:
    """Why operand ``i`` of ``op`` is not visible there, worded as MLIR's verifier."""
    if isinstance(v, OpResult):
        d = v.op
        if d.parent is None:
            return op_error(op, f"operand #{i} does not dominate this use (its defining "
                                f"'{d.name}' op is no longer in the IR)")
        where = f"'{d.name}' at {op_location(d)}"
        def_block = d.parent
    elif isinstance(v, BlockArgument):
        where, def_block = None, v.block
    else:
        return op_error(op, f"operand #{i} is not defined by any operation or block")
    # Crossing an IsolatedFromAbove op?
    anc = op
    while anc is not None:
        blk = anc.parent
        if blk is def_block:
            break
        p = anc.parent_op
        if p is not None and has_trait(p, "isolated") and _encloses(def_block, p):
            return op_error(op, "using value defined outside the region",
                            [f"required by region isolation constraints of '{p.name}' at "
                             f"{op_location(p)}"])
        anc = p
    notes = [f"operand defined here by {where}"] if where is not None else []
    return op_error(op, f"operand #{i} does not dominate this use", notes)


def _encloses(block: Optional[Block], op: Operation) -> bool:
    """Whether ``block`` is an ancestor block of ``op``."""
    b = op.parent
    while b is not None:
        if b is block:
            return True
        p = b.parent_op
        b = p.parent if p is not None else None
    return False


def blocks_end_with_terminators(op: Operation) -> None:
    """Every block of every region of ``op`` ends with an op that is (or, unregistered, may
    be) a terminator (MLIR: ``block with no terminator``)."""
    for r in op.regions:
        for b in r.blocks:
            t = b.terminator
            if t is None:
                raise op_error(op, "empty block: expect at least a terminator")
            d = OPS.get(t.name)
            if d is not None and "terminator" not in d.traits:
                raise op_error(t, f"block with no terminator, has '{t.name}' last (a "
                                  "terminator must end the block)")


_SYMBOLS: Dict[int, Dict[str, Operation]] = {}


def referenced_global(op: Operation, global_op: str) -> Operation:
    """The ``global_op`` (e.g. ``util.global``) that ``op``'s ``global`` attribute names in
    the enclosing symbol table; an op error ("requires attribute 'global'", "undefined
    global: @g", as MLIR's ``SymbolUserOpInterface`` verifiers say) otherwise."""
    ref = op.attributes.get("global")
    if ref is None:
        raise op_error(op, "requires attribute 'global'")
    g = lookup_symbol(op, ref)
    if g is None or g.name != global_op:
        raise op_error(op, f"undefined global: {ref}")
    return g


def lookup_symbol(op: Operation, ref) -> Optional[Operation]:
    """The op named by symbol reference ``ref`` (its root name) in the nearest enclosing
    symbol table of ``op``, or None. The table is indexed once per verification."""
    if getattr(ref, "nested", ()):
        return None
    name = getattr(ref, "root", None) or str(ref).lstrip("@")
    table = op.parent_op
    while table is not None and not has_trait(table, "symbol_table"):
        table = table.parent_op
    if table is None or not table.regions or not table.regions[0].blocks:
        return None
    idx = _SYMBOLS.get(id(table))
    if idx is None:
        idx = {}
        for o in table.regions[0].blocks[0].ops:
            s = o.attributes.get("sym_name")
            if s is not None and hasattr(s, "value"):
                idx.setdefault(s.value, o)
        _SYMBOLS[id(table)] = idx
    return idx.get(name)
