"""ckIndex as columns: the same sequence of entries the disciplines used to get, and the GC
room a run takes is given back."""

from __future__ import annotations

import gc
import threading

from hypothesis import given
from hypothesis import strategies as st

from ckviz.disciplines.base import by_priority
from ckviz.disciplines.registry import make_discipline
from ckviz.model.queue import IndexColumns, IndexEntry, columns_of
from ckviz.sim.engine.collector import YOUNG_THRESHOLD, roomy_young_generation

entries = st.lists(
    st.tuples(st.sampled_from("abcdefgh"), st.integers(0, 50)), unique_by=lambda t: t[0], min_size=1
).map(lambda pairs: [IndexEntry(f"ck:{k}", k, float(s)) for k, s in pairs])


def as_columns(index: list[IndexEntry]) -> IndexColumns:
    return IndexColumns(*map(list, zip(*index, strict=True)))


@given(entries)
def test_columns_are_the_entries(index: list[IndexEntry]) -> None:
    columns = as_columns(index)
    assert list(columns) == index
    assert len(columns) == len(index)
    assert columns == tuple(index)
    assert [columns[i] for i in range(len(index))] == index
    assert list(columns[1:3]) == index[1:3]
    assert columns_of(columns) == columns_of(index)


@given(entries, st.lists(st.sampled_from("abcdefgh"), max_size=12))
def test_disciplines_rank_columns_as_entries(index: list[IndexEntry], served: list[str]) -> None:
    """Every rescoring discipline, fed the same services, ranks columns as it ranks entries."""
    for name in ("sfq", "stride", "drr", "codel-sfq", "codel-baseline"):
        on_entries, on_columns = make_discipline(name), make_discipline(name)
        for key in served:
            on_entries.on_serviced(key)
            on_columns.on_serviced(key)
        now = 120
        assert on_columns.advance(as_columns(index), now) == on_entries.advance(index, now)
        assert on_columns.state() == on_entries.state()
    priority = {k: i % 3 for i, k in enumerate("hgfedcba")}.__getitem__
    assert by_priority(as_columns(index), priority) == by_priority(index, priority)


def test_a_run_makes_room_and_gives_it_back() -> None:
    before = gc.get_threshold()
    with roomy_young_generation():
        assert gc.get_threshold()[0] == max(before[0], YOUNG_THRESHOLD)
        with roomy_young_generation():  # nested (or another thread's run): still roomy
            assert gc.get_threshold()[0] >= YOUNG_THRESHOLD
        assert gc.get_threshold()[0] >= YOUNG_THRESHOLD
    assert gc.get_threshold() == before


def test_overlapping_runs_in_threads_restore_the_first_thresholds() -> None:
    before = gc.get_threshold()
    inside, leave = threading.Barrier(2), threading.Event()

    def run() -> None:
        with roomy_young_generation():
            inside.wait()
            leave.wait()

    other = threading.Thread(target=run)
    other.start()
    with roomy_young_generation():
        inside.wait()
    assert gc.get_threshold()[0] >= YOUNG_THRESHOLD  # the other run is still inside
    leave.set()
    other.join()
    assert gc.get_threshold() == before
