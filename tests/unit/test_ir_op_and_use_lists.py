"""Block op lists and value use lists behave exactly like Python lists (their positions
and removals are only faster): checked against a plain list under random edits."""
import random

import pytest

from ireec.ir import types as T
from ireec.ir.core import Block, Operation, OpList, UseList


def _ops(n):
    return [Operation(f"test.op{i}") for i in range(n)]


@pytest.mark.parametrize("seed", range(20))
def test_op_list_matches_list_under_random_edits(seed):
    rng = random.Random(seed)
    pool = _ops(60)
    ref = list(pool[:20])
    ol = OpList(ref)
    spare = pool[20:]
    for _ in range(400):
        kind = rng.choice(["index", "index", "insert", "remove", "append", "pop", "del",
                           "delslice", "set", "extend"])
        if kind == "index" and ref:
            op = rng.choice(ref)
            assert ol.index(op) == ref.index(op)
        elif kind == "insert" and spare:
            op = spare.pop()
            i = rng.randint(-len(ref) - 2, len(ref) + 2)
            ref.insert(i, op)
            ol.insert(i, op)
        elif kind == "remove" and ref:
            op = rng.choice(ref)
            ref.remove(op)
            ol.remove(op)
            spare.append(op)
        elif kind == "append" and spare:
            op = spare.pop()
            ref.append(op)
            ol.append(op)
        elif kind == "pop" and ref:
            i = rng.randint(-len(ref), len(ref) - 1)
            spare.append(ref.pop(i))
            assert ol.pop(i) is spare[-1]
        elif kind == "del" and ref:
            i = rng.randint(-len(ref), len(ref) - 1)
            spare.append(ref[i])
            del ref[i]
            del ol[i]
        elif kind == "delslice" and len(ref) > 2:
            a = rng.randint(0, len(ref) - 1)
            spare.extend(ref[a:a + 2])
            del ref[a:a + 2]
            del ol[a:a + 2]
        elif kind == "set" and ref and spare:
            i = rng.randint(0, len(ref) - 1)
            op = spare.pop()
            spare.append(ref[i])
            ref[i] = op
            ol[i] = op
        elif kind == "extend" and len(spare) > 1:
            ops = [spare.pop(), spare.pop()]
            ref.extend(ops)
            ol.extend(ops)
        assert list(ol) == ref
    for op in spare:
        with pytest.raises(ValueError):
            ol.index(op)


def test_block_ops_assignment_keeps_an_op_list():
    b = Block()
    ops = _ops(3)
    b.ops = ops[:2]
    assert isinstance(b.ops, OpList)
    b.append(ops[2])
    assert b.ops.index(ops[2]) == 2 and ops[2].parent is b


def test_use_list_keeps_order_and_list_behaviour():
    v = Block([T.index]).args[0]
    users = _ops(4)
    for op in users:
        op.set_operands([v, v])
    assert isinstance(v.uses, UseList)
    assert list(v.uses) == [(op, i) for op in users for i in (0, 1)]
    assert len(v.uses) == 8 and v.uses[0] == (users[0], 0) and v.uses[-1] == (users[3], 1)
    assert v.uses[3] == (users[1], 1)
    users[1].drop_operands()
    assert list(v.uses) == [(op, i) for op in (users[0], users[2], users[3]) for i in (0, 1)]
    assert (users[1], 0) not in v.uses and (users[2], 1) in v.uses
    with pytest.raises(ValueError):
        v.uses.remove((users[1], 0))
    assert v.users == [users[0], users[2], users[3]]
    v.uses.clear()
    assert not v.uses and len(v.uses) == 0
