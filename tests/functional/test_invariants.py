"""Invariants after every trip: on by default, free in round trips, and they catch a queue
that was tampered with (each tamper breaks one rule, and the report names it)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
import redis

from ckviz.inputs import scenario_files
from ckviz.model.clock import SCORE_BASE
from ckviz.model.invariants import (
    CK_INDEX,
    DEQUEUED_ONCE,
    ENV_LIMIT,
    INDEX_AT_HEAD,
    LENGTH_COUNTER,
    ONE_PLACE,
    PER_KEY_LIMIT,
    BrokenInvariant,
)
from ckviz.model.matrix import Treatment
from ckviz.sim.cell.session import open_cell
from ckviz.sim.engine import invariants as invariants_module
from ckviz.sim.millisecond_clock.config import DriverConfig
from ckviz.sim.millisecond_clock.driver import Driver
from ckviz.sim.millisecond_clock.projection import IndexProjection, Projected
from ckviz.store import pages
from ckviz.store.keys import ck_member
from ckviz.store.runqueue import RunQueue
from tests.functional.trust_support import key, scenario, treatment


def test_checks_are_on_by_default() -> None:
    assert DriverConfig("s", "seed-a", 4, {}).check_invariants


@pytest.mark.parametrize("discipline", ["baseline", "sfq", "codel-baseline"])
def test_every_trip_is_checked_and_checking_costs_no_round_trip(
    client: redis.Redis, prefix: str, discipline: str
) -> None:
    sc = scenario_files.load("ck_skew")
    runs = {}
    held: dict[bool, set[str]] = {}
    for check in (True, False):
        cell = open_cell(
            client,
            sc,
            "seed-b",
            Treatment(discipline=discipline),
            f"{prefix}{check}:",
            check_invariants=check,
        )
        with cell as driver:
            setup_trips = driver.queue.round_trips
            driver.run()
            runs[check] = (driver.events, driver.queue.round_trips, driver.invariants)
            held[check] = set(driver.ledger.holds)
    events_on, trips_on, checker = runs[True]
    events_off, trips_off, no_checker = runs[False]
    assert events_on == events_off and len(events_on) == sc.total_runs
    assert trips_on == trips_off
    assert no_checker is None and checker is not None
    assert checker.checks == trips_on - setup_trips  # one digest per trip the driver sent
    assert checker.dequeued == sc.total_runs and checker.held_ids == held[True]


@pytest.mark.parametrize("listing_limit", [64, 0])
def test_digest_counts_what_redis_holds(
    client: redis.Redis, prefix: str, listing_limit: int
) -> None:
    sc = scenario(key("a", 6, arrival="immediate", hold_ms_mean=500), key("b:c", 2))
    with open_cell(client, sc, "seed-a", treatment(), prefix) as driver:
        for _ in range(3):
            driver.step()
        trip = driver.queue.trip()
        slot = trip.inspect(["a", "b:c", "never-seen"], listing_limit)
        digest = trip.send()[slot]
        k = driver.queue.keys
        assert digest.env_held == client.scard(k.env_held) > 0
        assert digest.env_queued == client.zcard(k.env_queue) > 0
        assert digest.index_size == client.zcard(k.ck_index) > 0
        assert digest.length_counter == int(client.get(driver.queue.lifecycle.length_counter))
        assert digest.length_counter == digest.env_queued
        assert digest.index_listed == (listing_limit > 0)
        assert digest.master_has_member == (client.zcard(k.master_queue) == 1)
        assert digest.queues["a"] == (client.zcard(k.ck_queue("a")), client.scard(k.ck_held("a")))
        in_index = client.zscore(k.ck_index, ck_member("b:c")) is not None
        b_queued = client.zcard(k.ck_queue("b:c")) if in_index else -1
        assert digest.queues["b:c"] == (b_queued, client.scard(k.ck_held("b:c")))
        assert digest.queues["never-seen"] == (-1, 0)
        assert len(digest.queues) == 3


@pytest.mark.parametrize("listing_limit", [64, 0])
def test_a_digest_read_in_pages_is_the_digest_read_in_one_call(
    client: redis.Redis, prefix: str, monkeypatch: pytest.MonkeyPatch, listing_limit: int
) -> None:
    sc = scenario(key("a", 6, arrival="immediate", hold_ms_mean=500), key("b", 2, count=5))
    asked = ["a", "b-0", "b-1", "b-2", "b-3", "b-4", "never-seen"]
    with open_cell(client, sc, "seed-a", treatment(), prefix) as driver:
        for _ in range(5):
            driver.step()
        whole = driver.queue.trip()
        slot = whole.inspect(asked, listing_limit)
        one_call = whole.send()[slot]
        monkeypatch.setattr(pages, "READ_PAGE", 2)
        paged = driver.queue.trip()
        slot = paged.inspect(asked, listing_limit)
        assert len(paged) == 4  # seven keys, two a call
        assert paged.send()[slot] == one_call


Tamper = Callable[[redis.Redis, RunQueue, Driver], None]


def _extra_held_run(client: redis.Redis, q: RunQueue, d: Driver) -> None:
    client.sadd(q.keys.ck_held("heavy"), "ghost~0#0")


def _queued_run_lost(client: redis.Redis, q: RunQueue, d: Driver) -> None:
    last = str(client.zrange(q.keys.ck_queue("heavy"), -1, -1)[0])
    client.zrem(q.keys.ck_queue("heavy"), last)  # the env queue still has it


def _stranger_in_ck_index(client: redis.Redis, q: RunQueue, d: Driver) -> None:
    # scored above the dequeue's `now`, so no script ever looks at it
    client.zadd(q.keys.ck_index, {ck_member("stranger"): 9e12})


def _run_outside_ck_index(client: redis.Redis, q: RunQueue, d: Driver) -> None:
    client.zadd(q.keys.ck_queue("stray"), {"stray~0#0": SCORE_BASE})
    client.zadd(q.keys.env_queue, {"stray~0#0": SCORE_BASE})


def _length_counter_off(client: redis.Redis, q: RunQueue, d: Driver) -> None:
    client.incr(q.lifecycle.length_counter)  # a run counted that never joined a queue


TAMPERS: list[tuple[Tamper, str, str | None]] = [
    (_extra_held_run, ONE_PLACE, "heavy"),
    (_queued_run_lost, ONE_PLACE, "heavy"),
    (_stranger_in_ck_index, CK_INDEX, "stranger"),
    (_run_outside_ck_index, ONE_PLACE, None),
    (_length_counter_off, LENGTH_COUNTER, None),
]


@pytest.mark.parametrize("listing", ["listed", "touched", "paged"])
@pytest.mark.parametrize(("tamper", "invariant", "named"), TAMPERS)
def test_a_tampered_queue_is_caught(
    client: redis.Redis,
    prefix: str,
    monkeypatch: pytest.MonkeyPatch,
    tamper: Tamper,
    invariant: str,
    named: str | None,
    listing: str,
) -> None:
    if listing != "listed":  # as past the listing limit: only keys a trip touches are counted
        monkeypatch.setattr(invariants_module, "LISTING_LIMIT", 0)
        named = None if named == "stranger" else named  # the ckIndex size catches it, no key
    if listing == "paged":  # and as past a page of them: one key per call
        monkeypatch.setattr(pages, "READ_PAGE", 1)
    sc = scenario_files.load("ck_skew")
    with open_cell(client, sc, "seed-a", treatment("baseline"), prefix) as driver:
        for _ in range(40):
            driver.step()
        checks_before = driver.invariants.checks if driver.invariants else 0
        tamper(client, driver.queue, driver)
        with pytest.raises(BrokenInvariant) as caught:
            driver.run()
    err = caught.value
    assert err.invariant == invariant or (listing != "listed" and err.invariant == CK_INDEX)
    assert checks_before > 0
    assert f"t={err.t} ms" in str(err) and f"invariant {err.invariant}" in str(err)
    if named:
        assert named in err.keys and repr(named) in str(err)


def test_many_keys_are_checked_by_what_each_trip_touches(client: redis.Redis, prefix: str) -> None:
    sc = scenario(key("k", 2, count=100, arrival="immediate", hold_ms_mean=5), env_limit=4)
    with open_cell(client, sc, "seed-a", treatment("baseline"), prefix) as driver:
        driver.run()
        assert len(driver.events) == 200 and driver.invariants is not None
        assert driver.invariants.checks > 0


def test_without_checks_the_same_tamper_goes_unnoticed(client: redis.Redis, prefix: str) -> None:
    sc = scenario_files.load("ck_skew")
    cell = open_cell(client, sc, "seed-a", treatment("baseline"), prefix, check_invariants=False)
    with cell as driver:
        for _ in range(40):
            driver.step()
        _extra_held_run(client, driver.queue, driver)
        driver.run()  # the ghost only eats one of heavy's slots
        assert len(driver.events) == sc.total_runs


def test_a_per_key_limit_the_lua_does_not_enforce_is_caught(
    client: redis.Redis, prefix: str
) -> None:
    sc = scenario(key("a", 4, arrival="immediate", hold_ms_mean=100), key("b", 1))
    with open_cell(client, sc, "seed-a", treatment("baseline", per_key_cap=1), prefix) as driver:
        client.set(driver.queue.keys.queue_limit, 4)  # the Lua now lets `a` hold 4
        with pytest.raises(BrokenInvariant) as caught:
            driver.run()
    assert caught.value.invariant == PER_KEY_LIMIT and caught.value.keys == ("a",)


@pytest.mark.parametrize("max_count", [1, 4])
def test_an_env_limit_the_lua_does_not_enforce_is_caught(
    client: redis.Redis, prefix: str, max_count: int
) -> None:
    keys = [key(f"k{i}", 2, arrival="immediate", hold_ms_mean=100) for i in range(4)]
    sc = scenario(*keys, env_limit=2)
    with open_cell(client, sc, "seed-a", treatment("baseline"), prefix, max_count) as driver:
        client.set(driver.queue.keys.env_limit, 8)  # the Lua now admits 8
        with pytest.raises(BrokenInvariant) as caught:
            driver.run()
    assert caught.value.invariant == ENV_LIMIT


def test_a_run_handed_out_twice_is_caught(client: redis.Redis, prefix: str) -> None:
    sc = scenario(key("a", 3, arrival="immediate", hold_ms_mean=1000))
    with open_cell(client, sc, "seed-a", treatment("baseline"), prefix) as driver:
        driver.step()
        (first,) = driver.events
        k = driver.queue.keys
        client.zadd(k.ck_queue("a"), {first.run_id: 0})  # back in its queue, at the head
        client.zadd(k.env_queue, {first.run_id: 0})
        client.zadd(k.ck_index, {ck_member("a"): 0})
        with pytest.raises(BrokenInvariant) as caught:
            driver.run()
    assert caught.value.invariant == DEQUEUED_ONCE
    assert first.run_id in str(caught.value)


@pytest.mark.parametrize("check", [True, False])
def test_a_projected_ck_index_redis_disagrees_with_is_reported(
    client: redis.Redis, prefix: str, monkeypatch: pytest.MonkeyPatch, check: bool
) -> None:
    # A rescoring discipline ranks ckIndex as projected from its last read and the writes it
    # queued (sim/millisecond_clock/projection.py); the same trip reads it before the rescore. A projection
    # off by one point in one score must be reported, checked or not: the rescore built on
    # it cannot be followed.
    project = IndexProjection.project

    def off_by_one(self: IndexProjection, read, books):  # type: ignore[no-untyped-def]
        projected = project(self, read, books)
        members, scores = projected.pairs
        return Projected(projected.entries, (members, [scores[0] + 1, *scores[1:]]))

    sc = scenario_files.load("ck_skew")
    cell = open_cell(client, sc, "seed-a", treatment("sfq"), prefix, check_invariants=check)
    with cell as driver:
        for _ in range(40):
            driver.step()
        monkeypatch.setattr(IndexProjection, "project", off_by_one)
        with pytest.raises(BrokenInvariant) as caught:
            driver.run()
    assert caught.value.invariant == INDEX_AT_HEAD
    assert "entry 0: Redis has" in str(caught.value) and caught.value.keys
