"""A snapshot carries the rows its view asks for (the app shows a few dozen keys of thousands),
and the same rows, figures and preview as a snapshot of every key; a run to the end without a
frame per step ends where stepping frame by frame ends."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import redis

from ckviz.inputs import scenario_files
from ckviz.metrics import contention
from ckviz.model.matrix import Treatment
from ckviz.model.names import natural_key
from ckviz.model.scenario import Scenario
from ckviz.model.snapshot import SORTS, KeyRow, Snapshot, ViewRequest, Waits
from ckviz.player.frames import Frame, Setup
from ckviz.player.lanes import Lockstep
from ckviz.sim.cell.session import open_cell
from ckviz.sim.millisecond_clock.driver import Driver

LIGHT = "light-3"
SCENARIO = f"""\
description = "A heavy backlog ahead of 40 light keys: most of them wait."
env_limit = 2
light_key = "{LIGHT}"

[[keys]]
name = "heavy"
runs = 60
arrival = "immediate"
hold_ms_mean = 25

[[keys]]
name = "light"
count = 40
runs = 3
arrival = "poisson"
rate_per_sec = 20
hold_ms_mean = 25
"""


@pytest.fixture(scope="module")
def many_keys(tmp_path_factory: pytest.TempPathFactory) -> Scenario:
    path = Path(tmp_path_factory.mktemp("view")) / "view_keys.toml"
    path.write_text(SCENARIO, encoding="utf-8")
    scenario = scenario_files.load(str(path))
    assert isinstance(scenario, Scenario)
    return scenario


def value(row: KeyRow, snap: Snapshot, by: str) -> float:
    """What the per-key table sorts on, largest first (nothing to show: -1)."""
    if by == "queued":
        return row.queued
    if by == "out":
        return row.dequeued
    shown = row.head_age(snap.t, snap.score_base)
    if by == "wait":
        shown = row.wait_so_far(snap.t, snap.score_base)
    return -1.0 if shown is None else shown


def expected_keys(full: Snapshot, view: ViewRequest) -> list[str]:
    """The keys a view should carry, worked out from a snapshot of every key."""
    rows = [r for r in full.keys if view.only is None or r.key in view.only]
    ages = [(a, r.key) for r in full.keys if (a := r.head_age(full.t, full.score_base)) is not None]
    pins = [k for k in view.pinned if any(r.key == k for r in rows)]
    if view.pin_longest_wait and ages:
        oldest = max(ages)[1]
        if oldest not in pins and any(r.key == oldest for r in rows):
            pins.append(oldest)
    rest = [r for r in rows if r.key not in pins]
    if view.sort != SORTS[0]:
        rest.sort(key=lambda r: (-value(r, full, view.sort), natural_key(r.key)))
    return pins + [r.key for r in rest[: view.limit]]


def stepped(driver: Driver, instants: int) -> Driver:
    for _ in range(instants):
        driver.step_instant()
    return driver


def test_a_view_asked_for_waits_carries_every_matched_keys_wait_not_only_its_rows(
    client: redis.Redis, prefix: str, many_keys: Scenario
) -> None:
    # Compare mode's wait CDF is over every key; the view's 5 rows are not enough for it.
    with open_cell(client, many_keys, "seed-a", Treatment(discipline="baseline"), prefix) as d:
        full = stepped(d, 30).snapshot()
        waits = {r.key: r.wait_so_far(full.t, full.score_base) for r in full.keys}
        every = sorted(w for w in waits.values() if w is not None)
        part = d.snapshot(ViewRequest(limit=5, waits=True))
        assert len(part.keys) == 5 and part.every_key.waits == Waits.of(every)
        assert len(every) > 5 and max(every) > 0
        only = tuple(k for k in full.every_key.key_names if k.startswith("light-1"))
        some = d.snapshot(ViewRequest(limit=5, only=only, waits=True)).every_key.waits
        assert some == Waits.of(sorted(w for k, w in waits.items() if k in only and w is not None))
        assert d.snapshot(ViewRequest(limit=5)).every_key.waits is None


@pytest.mark.parametrize("discipline", ["baseline", "sfq"])
def test_a_view_carries_its_pinned_and_sorted_rows_as_a_full_snapshot_has_them(
    client: redis.Redis, prefix: str, many_keys: Scenario, discipline: str
) -> None:
    with open_cell(client, many_keys, "seed-a", Treatment(discipline=discipline), prefix) as d:
        for _ in range(3):
            stepped(d, 15)
            full = d.snapshot()
            oldest = full.every_key.longest_wait
            assert oldest is not None and oldest[0] != LIGHT  # the pin below is a second key
            for sort in SORTS:
                view = ViewRequest(
                    sort=sort, limit=7, pinned=(LIGHT,), pin_longest_wait=True, index_limit=5
                )
                part = d.snapshot(view)
                assert [r.key for r in part.keys] == expected_keys(full, view)
                assert [r.key for r in part.keys][:2] == [LIGHT, oldest[0]]
                by_key = {r.key: r for r in full.keys}
                assert all(by_key[r.key] == r for r in part.keys)
                assert all(by_key[k] == r for k, r in part.rows.items())
                assert part.every_key == full.every_key  # figures over every key, not the rows
                assert len(full.keys) == full.every_key.matched == 41
                assert part.index_read == full.index_read[:5]
                assert part.every_key.index_size == len(full.index_read)
                assert part.next_order == full.next_order[:5]
                assert all(part.rows[e.key] == by_key[e.key] for e in part.index_read)
                shown = dict(part.discipline_state.per_key)
                assert set(shown) <= set(part.rows)
                assert all(dict(full.discipline_state.per_key)[k] == v for k, v in shown.items())


def test_a_filter_keeps_only_its_keys_in_scenario_order_pins_included(
    client: redis.Redis, prefix: str, many_keys: Scenario
) -> None:
    with open_cell(client, many_keys, "seed-a", Treatment(discipline="sfq"), prefix) as d:
        full = stepped(d, 20).snapshot()
        only = ("heavy", "light-1", "light-2", "light-10")  # in the scenario's order
        view = ViewRequest(pinned=(LIGHT,), pin_longest_wait=True, only=only)
        part = d.snapshot(view)
        assert [r.key for r in part.keys] == expected_keys(full, view)
        assert {r.key for r in part.keys} <= set(only)  # the light key is not let through
        assert part.every_key.matched == 4
        longest = ViewRequest(sort="age", limit=2, only=only)
        assert [r.key for r in d.snapshot(longest).keys] == expected_keys(full, longest)


def server_state(client: redis.Redis, namespace: str) -> dict[str, Any]:
    """Every key under `namespace` (the namespace cut off) and what it holds."""
    state: dict[str, Any] = {}
    for name in client.scan_iter(match=f"{namespace}*", count=1000):
        kind = client.type(name)
        read = {
            "string": client.get,
            "zset": lambda n: client.zrange(n, 0, -1, withscores=True),
            "hash": client.hgetall,
            "set": lambda n: sorted(client.smembers(n)),
            "list": lambda n: client.lrange(n, 0, -1),
        }[kind]
        state[name[len(namespace) :]] = (kind, read(name))
    return state


def final(frame: Frame) -> list[tuple[Any, ...]]:
    """What a lane's end must agree on: clock, rounds, every dequeue, per-key rows, shares."""
    weights = frame.setup.scenario.weights()
    return [
        (s.t, s.step, s.done, list(s.events), s.keys, s.held, contention(s.events, weights))
        for s in frame.snapshots
    ]


@pytest.mark.parametrize("disciplines", [("baseline",), ("sfq",), ("baseline", "vtime")])
def test_running_to_the_end_ends_where_stepping_frame_by_frame_ends(
    client: redis.Redis, prefix: str, disciplines: tuple[str, ...]
) -> None:
    setup = Setup(scenario_files.load("ck_skew"), "seed-b", disciplines)
    ends, states = [], []
    for mode in ("step", "run"):
        namespace = f"{prefix}{mode}:"
        lockstep = Lockstep(client, namespace)
        try:
            (last,) = lockstep.start(setup)
            if mode == "step":
                while (frame := lockstep.step_instant()) is not None:
                    last = frame
            else:
                *_, last = lockstep.run_to_end(lambda: False)  # (and frames on the way)
            assert last.done
            ends.append(final(last))
            states.append(server_state(client, namespace))
        finally:
            lockstep.close()
    assert ends[0] == ends[1]
    assert states[0] == states[1] and states[0]  # Redis holds the same, key for key


def test_a_cancelled_run_to_the_end_stops_where_it_is(
    client: redis.Redis, prefix: str, many_keys: Scenario
) -> None:
    lockstep = Lockstep(client, prefix)
    try:
        (first,) = lockstep.start(Setup(many_keys, "seed-a", ("baseline",)))
        *_, stopped = lockstep.run_to_end(lambda: True)
        assert final(stopped) == final(first) and not stopped.done
        looks = iter([False] * 5 + [True])  # asked before each instant: five, then stopped
        *_, partway = lockstep.run_to_end(lambda: next(looks))
        assert partway.snapshots[0].step >= 5 and not partway.done
        looks = iter([False] * 3 + [True])  # stopped by a quit: no frame is made
        assert lockstep.run_to_end(lambda: next(looks), closing=lambda: True) == []
        assert lockstep.lanes[0].driver.step_count > partway.snapshots[0].step
    finally:
        lockstep.close()


def test_a_rescoring_run_to_the_end_hears_a_stop_between_serve_attempts(
    client: redis.Redis, prefix: str, many_keys: Scenario
) -> None:
    lockstep = Lockstep(client, prefix)
    try:
        (first,) = lockstep.start(Setup(many_keys, "seed-a", ("sfq",)))
        looks = iter([False] + [True] * 3)  # an instant begun, stopped after its first attempt
        (stopped,) = lockstep.run_to_end(lambda: next(looks))
        driver = lockstep.lanes[0].driver
        assert stopped.snapshots[0].step == 1 and stopped.times == first.times
        assert isinstance(driver, Driver) and driver.instant_open  # stopped mid-instant
        (rest,) = lockstep.advance(instant=True)  # the instant goes on from there
        assert rest.snapshots[0].step > 2 and rest.times > first.times
    finally:
        lockstep.close()


def test_a_frame_made_again_for_another_view_keeps_its_this_step(
    client: redis.Redis, prefix: str
) -> None:
    # A sort or a filter asks for the live frame again: what the step took must not vanish.
    setup = Setup(scenario_files.load("ck_skew"), "seed-a", ("sfq",))
    lockstep = Lockstep(client, prefix)
    try:
        lockstep.start(setup)
        frame = None
        while frame is None or not frame.snapshots[0].taken:
            frame = lockstep.step_instant()
            assert frame is not None
        lockstep.set_view(ViewRequest(sort="queued", limit=3))
        (again,) = lockstep.reframe()
        assert again.snapshots[0].taken == frame.snapshots[0].taken
        assert len(again.snapshots[0].keys) == 3
        nxt = lockstep.step_instant()
        assert nxt is not None and nxt.snapshots[0].taken_from == frame.snapshots[0].dequeued
    finally:
        lockstep.close()


@pytest.mark.parametrize(
    ("scenario", "discipline"),
    [
        ("many_keys", "sfq"),
        ("life_retry_storm", "baseline"),  # nacked runs queued again
        ("life_ttl_light", "baseline"),  # queued runs expire
        ("life_delayed_cohort", "baseline"),  # runs due later: their keys wait from then
    ],
)
def test_the_longest_wait_deepest_queue_and_waits_kept_step_by_step_are_a_walk_over_every_key(
    client: redis.Redis, prefix: str, many_keys: Scenario, scenario: str, discipline: str
) -> None:
    # The key view keeps them from the keys whose queue changed; a walk is the definition.
    loaded = many_keys if scenario == "many_keys" else scenario_files.load(scenario)
    assert isinstance(loaded, Scenario)
    with open_cell(client, loaded, "seed-a", Treatment(discipline=discipline), prefix) as d:
        seen = set()
        while not d.done:
            d.step_instant()
            figures = d.snapshot(ViewRequest(limit=1, waits=True)).every_key
            walked = d.key_view.walk_extremes(d.t, d.score_base)
            assert (figures.longest_wait, figures.deepest) == walked
            rows = d.snapshot().keys
            waits = (r.wait_so_far(d.t, d.score_base) for r in rows)
            assert figures.waits == Waits.of(sorted(w for w in waits if w is not None))
            seen.add(walked)
        ledger = d.ledger
        assert len(seen) > 20
        assert scenario in ("many_keys", "life_delayed_cohort") or ledger.nacks or ledger.expired
