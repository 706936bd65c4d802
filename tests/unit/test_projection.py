"""The ckIndex projection a rescoring discipline ranks: the O(K) path after a rescore gives the
same index as applying the writes and sorting, and steps aside when its premise fails.
(Against Redis, every projection is compared with the read the same trip carries:
tests/functional/test_invariants.py, test_faults.py and the conformance runs.)"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from ckviz.model.arithmetic import rescore_scores
from ckviz.model.queue import IndexEntry
from ckviz.sim.engine.ledger import KeyBook
from ckviz.sim.millisecond_clock.projection import IndexProjection
from ckviz.store.keys import ck_member

WALL_NOW = 1_701_000_000_000
KEYS = [f"k{i}" for i in range(12)]


def _index(scores: dict[str, float]) -> tuple[IndexEntry, ...]:
    ranked = sorted((s, ck_member(k), k) for k, s in scores.items())
    return tuple(IndexEntry(m, k, s) for s, m, k in ranked)


def _books(heads: dict[str, int | None]) -> dict[str, KeyBook]:
    books = {k: KeyBook(1.0) for k in KEYS}
    for key, head in heads.items():
        if head is not None:
            books[key].queued = [(head, f"{key}~0#0")]
    return books


@given(
    st.lists(st.sampled_from(KEYS), min_size=1, unique=True),
    st.dictionaries(st.sampled_from(KEYS), st.one_of(st.none(), st.integers(0, 10**12))),
    st.randoms(use_true_random=False),
)
def test_the_path_after_a_rescore_equals_the_sort(
    indexed: list[str], heads: dict[str, int | None], rnd: object
) -> None:
    read = _index({k: float(i) for i, k in enumerate(indexed)})
    order = [e.member for e in read]
    rnd.shuffle(order)  # type: ignore[attr-defined]
    projection = IndexProjection()
    projection.rescored(order, rescore_scores(len(order), WALL_NOW))
    projection.reheaded.update(heads)
    books = _books(heads)
    fast = projection._after_rescore(len(read), books)
    assert fast is not None  # every head sits below the rescore's scores
    assert fast == projection._sorted(read, books)
    assert projection.project(read, books).pairs == fast


def test_a_head_above_the_rescore_falls_back_to_the_sort() -> None:
    read = _index({"k0": 1.0, "k1": 2.0})
    projection = IndexProjection()
    projection.rescored([ck_member("k1"), ck_member("k0")], [10, 11])
    projection.reheaded.add("k2")
    books = _books({"k2": 50})
    assert projection._after_rescore(len(read), books) is None
    members, scores = projection.project(read, books).pairs
    assert members == [ck_member("k1"), ck_member("k0"), ck_member("k2")]
    assert scores == [10.0, 11.0, 50.0]
