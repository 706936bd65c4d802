"""Disciplines as pure objects: orders, service hooks, weights, CoDel's escalation."""

from __future__ import annotations

import re

import pytest

from ckviz.commands.root import build_parser
from ckviz.disciplines.baseline import Baseline
from ckviz.disciplines.codel import CoDel
from ckviz.disciplines.drr import DeficitRoundRobin
from ckviz.disciplines.registry import (
    DEFAULT_DISCIPLINES,
    IN_REDIS,
    REGISTRY,
    RULES,
    SUMMARIES,
    make_discipline,
    tuning_for,
)
from ckviz.disciplines.virtual_clock import sfq, stride
from ckviz.disciplines.vtime import discipline as vtime
from ckviz.disciplines.vtime.door import SCRIPTS as VTIME
from ckviz.disciplines.vtime.knobs import VtimeKnobs
from ckviz.inputs import scenario_files
from ckviz.model.matrix import Treatment
from ckviz.model.queue import IndexEntry
from ckviz.store.keys import ck_member
from ckviz.store.scripts import RUN_QUEUE


def entries(*pairs: tuple[str, float]) -> list[IndexEntry]:
    return [IndexEntry(ck_member(k), k, s) for k, s in pairs]


def keys_of(order: list[str]) -> list[str]:
    return [m.rsplit(":", 1)[-1] for m in order]


def serve(d, active: list[IndexEntry], now: int = 0) -> str:  # type: ignore[no-untyped-def]
    first = keys_of(d.advance(active, now))[0]
    d.on_serviced(first)
    return first


def test_registry_has_the_six_reference_disciplines_and_the_two_native_ones() -> None:
    assert DEFAULT_DISCIPLINES == (
        "baseline",
        "sfq",
        "drr",
        "stride",
        "codel-sfq",
        "codel-baseline",
        "vtime",
        "vtime-v17",
    )
    assert not make_discipline("baseline").door.rescores
    assert all(make_discipline(n).door.rescores for n in DEFAULT_DISCIPLINES[1:6])
    for name in DEFAULT_DISCIPLINES[6:]:  # state in Redis: its own scripts, keys and reads
        door = make_discipline(name).door
        assert not door.rescores and door.reads == VTIME["state"]
        assert door.enqueue == VTIME["enqueue"] and door.dequeue == VTIME["dequeue"]
        assert door.state_keys == ("ckVtime", "ckVtimeFloor", "ckVtimeIdle")
    assert make_discipline("vtime").door.ack == VTIME["ack"]
    assert make_discipline("vtime-v17").door.ack == RUN_QUEUE["ack"]  # as the baseline acks


def test_baseline_is_age_order_ties_by_member() -> None:
    order = Baseline().order(entries(("b", 5.0), ("a", 5.0), ("c", 1.0)), 0)
    assert keys_of(order) == ["c", "a", "b"]


def test_sfq_serves_the_under_served_key_first() -> None:
    d = sfq()
    active = entries(("heavy", 0.0), ("light", 10.0))
    # heavy is older, so it wins the first tie on clock; then light has the lower clock
    assert [serve(d, active) for _ in range(4)] == ["heavy", "light", "heavy", "light"]


def test_sfq_new_key_joins_at_the_floor_not_at_zero() -> None:
    d = sfq()
    for _ in range(5):
        serve(d, entries(("old", 0.0)))
    assert d.clock["old"] == 5.0
    # a newcomer starts at the floor (5), not 0: it does not get 5 runs in a row
    got = [serve(d, entries(("old", 0.0), ("new", 1.0))) for _ in range(4)]
    assert got.count("new") == 2


def test_stride_matches_sfq_with_equal_weights_and_uses_its_stride() -> None:
    a, b = sfq(), stride()
    active = entries(("x", 0.0), ("y", 0.0), ("z", 3.0))
    assert [serve(a, active) for _ in range(6)] == [serve(b, active) for _ in range(6)]
    assert set(b.clock.values()) == {2_000_000.0}


@pytest.mark.parametrize("make", [sfq, stride])
def test_the_first_of_an_order_are_the_orders_first(make) -> None:  # type: ignore[no-untyped-def]
    # the app previews a screenful of the next order without sorting every key
    d = make({"k3": 2.0})
    active = entries(*((f"k{i}", float(i % 4)) for i in range(40)))
    for i in range(60):
        order = d.order(active, 0)
        assert [d.first(active, 0, limit) for limit in (1, 7, 40, 50)] == [
            order[:1],
            order[:7],
            order,
            order,
        ]
        d.on_serviced(keys_of(order)[i % 3])  # clocks apart, and ties on clock among the rest


def test_weighted_sfq_serves_three_to_one() -> None:
    d = sfq({"big": 3.0, "small": 1.0})
    got = [serve(d, entries(("big", 0.0), ("small", 0.0))) for _ in range(40)]
    assert got.count("big") == 30


def test_drr_rotates_through_active_keys() -> None:
    d = DeficitRoundRobin()
    active = entries(("a", 0.0), ("b", 0.0), ("c", 0.0))
    assert [serve(d, active) for _ in range(6)] == ["a", "b", "c", "a", "b", "c"]


def test_drr_drops_inactive_keys_and_appends_new_ones() -> None:
    d = DeficitRoundRobin()
    serve(d, entries(("a", 0.0), ("b", 0.0)))
    assert d.ring == ["a", "b"]
    serve(d, entries(("b", 0.0), ("c", 0.0)))
    assert d.ring == ["b", "c"]


def test_drr_cursor_wraps_to_the_ring_start_when_the_last_key_is_served() -> None:
    d = DeficitRoundRobin()
    abc = entries(("a", 0.0), ("b", 0.0), ("c", 0.0))
    assert [serve(d, abc) for _ in range(3)] == ["a", "b", "c"]
    assert d.cursor == 0  # wrapped at once, not left at 3
    # right after the serve, b leaves and d, e join: the turn is a's, not a newcomer's
    assert serve(d, entries(("a", 0.0), ("c", 0.0), ("d", 0.0), ("e", 0.0))) == "a"
    assert d.ring == ["a", "c", "d", "e"]


def test_drr_a_key_joining_after_the_last_serve_waits_its_turn() -> None:
    d = DeficitRoundRobin()
    ab = entries(("a", 0.0), ("b", 0.0))
    assert [serve(d, ab) for _ in range(2)] == ["a", "b"]
    got = [serve(d, entries(("a", 0.0), ("b", 0.0), ("c", 0.0))) for _ in range(3)]
    assert got == ["a", "b", "c"]


def test_drr_weight_tops_up_more_credit() -> None:
    d = DeficitRoundRobin(weights={"big": 3.0})
    got = [serve(d, entries(("big", 0.0), ("small", 0.0))) for _ in range(8)]
    assert got == ["big", "big", "big", "small"] * 2


def test_codel_hoists_a_key_after_the_interval_and_forgets_it_under_target() -> None:
    d = CoDel(Baseline())
    active = entries(("fresh", 1000.0), ("old", 1050.0))  # fresh is older by score
    assert keys_of(d.advance(active, 1100))[0] == "fresh"  # nobody above target yet
    # at now=1300 both are above target (1300-1050=250 > 200): the clock starts
    assert keys_of(d.advance(active, 1300))[0] == "fresh"
    assert d.above_since == {"fresh": 1300, "old": 1300}
    # fresh drops under target (a new head score), old stays above for >= interval
    later = entries(("fresh", 1390.0), ("old", 1050.0))
    assert keys_of(d.advance(later, 1400)) == ["old", "fresh"]
    assert d.escalating == ["old"]
    assert "fresh" not in d.above_since
    # old leaves: forgotten
    d.advance(entries(("fresh", 1390.0)), 1500)
    assert "old" not in d.above_since


@pytest.mark.parametrize("name", DEFAULT_DISCIPLINES)
def test_order_is_a_pure_preview_of_advance(name: str) -> None:
    # what the app previews (order) is what the next serve commits to (advance), and asking
    # changes nothing: no copy of a discipline is needed to preview it
    d = make_discipline(name, {"a": 2.0})
    rounds = [entries(("a", 0.0), ("b", 5.0), ("c", 9.0)), entries(("b", 5.0), ("c", 400.0))]
    for now in range(0, 1200, 100):
        active = rounds[now // 100 % 2]
        before = d.state()
        preview = d.order(active, now)
        assert d.order(active, now) == preview and d.state() == before
        assert d.advance(active, now) == preview
        d.on_serviced(keys_of(preview)[0])


def test_every_discipline_is_described_once_in_the_registry() -> None:
    # --help's list, the docs' table, the app's decision line and picker read these
    for name, listed in REGISTRY.items():
        assert listed.summary and listed.rule, name
        assert SUMMARIES[name] == listed.summary and RULES[name] == listed.rule
    # a Redis-side discipline's entries come from its own package, in one registry line
    assert {n: REGISTRY[n] for n in vtime.LISTED} == vtime.LISTED
    assert IN_REDIS == ("baseline", "vtime", "vtime-v17")  # the order lives in Redis


def test_the_discipline_flag_names_no_count_that_can_drift() -> None:
    (help_text,) = [a.help for a in build_parser()._actions if "--discipline" in a.option_strings]
    assert help_text and not re.search(r"\b(all|every) (\d+|one|two|six|seven|eight)\b", help_text)


def test_a_cells_knobs_come_through_the_registry() -> None:
    scenario = scenario_files.load("ck_skew")
    treated = Treatment(discipline="vtime", vtime_quantum=2.0)
    tuning = tuning_for("vtime", scenario, treated, trace=True)
    assert tuning.trace and tuning.knobs == VtimeKnobs(quantum=2.0)
    assert tuning_for("sfq", scenario, Treatment(discipline="sfq")).knobs is None
    door = make_discipline("vtime", tuning=tuning).door
    assert door.argv[:2] == ("head", "2") and door.argv[-1] == 1  # version, quantum ... trace
