"""The shared union-find: representatives are the smaller key, unseen keys are singletons."""
from ireec.passes.common.union_find import UnionFind


def test_union_find_joins_and_names_sets_by_the_smaller_key():
    u = UnionFind()
    assert u.find(7) == 7
    assert u.union(5, 3) == 3
    assert u.union(9, 5) == 3
    assert [u.find(k) for k in (3, 5, 9)] == [3, 3, 3]
    assert u.union(1, 8) == 1
    assert u.find(8) == 1 and u.find(9) == 3
    assert u.union(8, 9) == 1
    assert {u.find(k) for k in (1, 3, 5, 8, 9)} == {1}
