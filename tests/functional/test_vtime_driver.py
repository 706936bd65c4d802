"""vtime in the logical-millisecond driver: through the door, its state only in Redis, its
rules checked after every trip (and a tampered state caught)."""

from __future__ import annotations

from typing import Any

import pytest
import redis

from ckviz.disciplines.vtime.door import state_keys
from ckviz.disciplines.vtime.values import VtimeView
from ckviz.inputs import scenario_files
from ckviz.metrics import run_metrics
from ckviz.model.invariants import FLOOR_MONOTONE, TAG_MONOTONE, TAGS_KNOWN, BrokenInvariant
from ckviz.model.matrix import Treatment
from ckviz.sim.cell.session import open_cell
from ckviz.sim.millisecond_clock.driver import Driver
from ckviz.store.keys import ck_member
from ckviz.store.runqueue import Trip
from tests.functional.servers import redis_server  # noqa: F401  (6.2 and 7)

VTIME = ("vtime", "vtime-v17")
# every bundled ms scenario but ck_many_keys (10,000 keys: the driver's speed is benched)
SCENARIOS = ("ck_skew", "ck_balanced", "ck_trickle", "ck_sybil", "ck_heavy_idle", "ck_weighted")


def events(
    client: redis.Redis, prefix: str, scenario: str, discipline: str, **knobs: Any
) -> list[tuple[str, str, int]]:
    sc = scenario_files.load(scenario)
    with open_cell(
        client, sc, "seed-a", Treatment(discipline=discipline, **knobs), prefix
    ) as driver:
        driver.run()
        assert len(driver.events) == sc.total_runs  # every run served, every trip checked
        assert driver.reads.state_checks is not None and driver.reads.state_checks.checks > 0
        return [(e.key, e.run_id, e.dequeued_ms) for e in driver.events]


@pytest.mark.parametrize("discipline", VTIME)
@pytest.mark.parametrize("scenario", SCENARIOS)
def test_vtime_runs_every_bundled_scenario_deterministically(
    client: redis.Redis, prefix: str, scenario: str, discipline: str
) -> None:
    first = events(client, f"{prefix}1:", scenario, discipline)
    assert first == events(client, f"{prefix}2:", scenario, discipline)


def test_the_knobs_reach_the_ms_driver(client: redis.Redis, prefix: str) -> None:
    # quantum 1 vs 1000 with arrival cap 0: the same tie-by-name rounds, so the same serves;
    # a window of 1 and HEAD vs V17 on ck_balanced are what may differ: at least run them
    plain = events(client, f"{prefix}a:", "ck_skew", "vtime")
    assert plain == events(client, f"{prefix}b:", "ck_skew", "vtime", vtime_quantum=1000.0)
    events(client, f"{prefix}c:", "ck_balanced", "vtime", vtime_window=1, vtime_arrival_cap=0.0)


def test_vtime_shares_the_light_key_better_than_the_baseline(
    client: redis.Redis, prefix: str
) -> None:
    # ck_skew: a heavy backlog is always oldest, so the baseline serves it first; virtual time
    # serves by tag, so the light keys are served while the backlog waits
    sc = scenario_files.load("ck_skew")
    shares = {}
    for name in ("baseline", "vtime"):
        with open_cell(client, sc, "seed-a", Treatment(discipline=name), f"{prefix}{name}:") as d:
            d.run()
            shares[name] = run_metrics(d.events, sc.weights()).contention_worst_share_over_weight
    assert shares["vtime"] > 2 * shares["baseline"]


def test_python_never_writes_a_vtime_key(
    client: redis.Redis, prefix: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    sent: list[tuple[Any, ...]] = []
    add = Trip._add

    def recording(self: Trip, args: tuple[Any, ...], decode: Any, scripted: bool) -> int:
        sent.append(args)
        return add(self, args, decode, scripted)

    monkeypatch.setattr(Trip, "_add", recording)
    sc = scenario_files.load("ck_skew")
    with open_cell(client, sc, "seed-a", Treatment(discipline="vtime"), prefix) as driver:
        driver.run()
    plain = [a for a in sent if a[0] != "EVALSHA"]
    assert all(a[0] in ("ZRANGE",) for a in plain)  # reads only: no rescore, no vtime write
    scripts = {a[1] for a in sent}
    assert len(scripts) >= 4  # vtime enqueue, dequeue, ack, state read (and the digest)
    assert client.exists(f"{prefix}x") == 0  # nothing left outside the run's namespace


class Tampered(Driver):
    """Damages the vtime state in Redis once some serves have happened."""

    damage = ""

    def step(self) -> None:
        if len(self.events) >= 40 and self.damage:
            k, c = self.queue.keys, self.queue.client
            if self.damage == "floor":  # the floor goes down, with the tags it is read from
                c.set(state_keys(k).floor, "-5")
                tags = {m: -5 for m in c.zrange(state_keys(k).tags, 0, -1)}
                c.zadd(state_keys(k).tags, tags, xx=True)
            elif self.damage == "tag":  # two keys with runs queued rewind (above the floor):
                # a call serves one key, so the other shows the rewind
                floor = float(c.get(state_keys(k).floor) or 0)
                ahead = [
                    m
                    for m, t in c.zrange(state_keys(k).tags, 0, -1, withscores=True)
                    if t >= floor + 0.5 and self.ledger.books[m.rsplit(":", 1)[1]].queued
                ]
                if len(ahead) < 2:  # not yet: try on the next step
                    super().step()
                    return
                c.zadd(state_keys(k).tags, dict.fromkeys(ahead, floor + 0.25), xx=True)
            else:
                c.zadd(state_keys(k).tags, {ck_member("nobody"): 1e6})
            self.damage = ""
        super().step()


@pytest.mark.parametrize(
    ("damage", "invariant"),
    [("floor", FLOOR_MONOTONE), ("tag", TAG_MONOTONE), ("stranger", TAGS_KNOWN)],
)
def test_a_tampered_vtime_state_is_caught(
    client: redis.Redis, prefix: str, damage: str, invariant: str
) -> None:
    sc = scenario_files.load("ck_skew")
    with open_cell(client, sc, "seed-a", Treatment(discipline="vtime"), prefix) as driver:
        tampered = Tampered(driver.config, driver.workload, driver.discipline, driver.queue)
        tampered.damage = damage
        with pytest.raises(BrokenInvariant) as caught:
            tampered.run()
    assert caught.value.invariant == invariant


def test_the_trace_is_asked_for_only_when_traced(client: redis.Redis, prefix: str) -> None:
    sc = scenario_files.load("ck_skew")
    for trace in (False, True):
        cell = open_cell(
            client, sc, "seed-a", Treatment(discipline="vtime"), f"{prefix}{trace}:", trace=trace
        )
        with cell as driver:
            for _ in range(30):
                driver.step()
            view = driver.snapshot().discipline_state.detail
            assert isinstance(view, VtimeView) and view.calls > 0
            assert view.state is not None and view.state.tags
            assert bool(view.visits) == trace
            if trace:
                assert {v.fate for v in view.visits} <= {
                    "served",
                    "limit",
                    "not-ready",
                    "empty",
                    "expired",
                    "orphan",
                    "outside-window",
                    "batch-full",
                    "discovered",
                }
