"""What keeps a dequeue's cost independent of the key count: no whole-ckIndex read in the
serve loop of an age-ordered discipline, a snapshot reading it only when asked, and
dequeues sure to take one run riding with the next trip when nobody watches."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
import redis

from ckviz.inputs import scenario_files
from ckviz.model.matrix import Treatment
from ckviz.sim.cell.session import open_cell
from ckviz.store import runqueue
from ckviz.store.scripts import load_scripts


@contextmanager
def sent_commands(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[tuple[Any, ...]]]:
    sent: list[tuple[Any, ...]] = []
    original = runqueue.RunQueue._roundtrip

    def kept(self: runqueue.RunQueue, commands: Any) -> list[Any]:
        sent.extend(c[0] for c in commands)
        return original(self, commands)

    monkeypatch.setattr(runqueue.RunQueue, "_roundtrip", kept)
    yield sent


def index_reads(sent: list[tuple[Any, ...]], ck_index: str) -> int:
    """Whole-ckIndex reads: a ZRANGE 0 -1, or an inspect call asked to return the index."""
    inspect = load_scripts()["inspect"].sha
    plain = sum(1 for c in sent if c[0] == "ZRANGE" and c[1] == ck_index and c[2:4] == (0, -1))
    # EVALSHA sha numkeys KEYS(4) prefix master limit read ...: the read flag is ARGV 4
    inspected = sum(1 for c in sent if c[0] == "EVALSHA" and c[1] == inspect and c[10] == 1)
    return plain + inspected


@pytest.mark.parametrize("check", [True, False])
def test_the_baseline_serve_loop_never_reads_the_whole_index(
    client: redis.Redis, prefix: str, monkeypatch: pytest.MonkeyPatch, check: bool
) -> None:
    sc = scenario_files.load("ck_skew")
    with sent_commands(monkeypatch) as sent:
        cell = open_cell(client, sc, "seed-a", Treatment(discipline="baseline"), prefix, 1, check)
        with cell as driver:
            driver.run()
            assert len(driver.events) == sc.total_runs
            assert index_reads(sent, driver.queue.keys.ck_index) == 0


def test_a_rescoring_discipline_still_reads_it_before_each_rescore(
    client: redis.Redis, prefix: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    sc = scenario_files.load("ck_skew")
    cell = open_cell(client, sc, "seed-a", Treatment(discipline="sfq"), prefix)
    with sent_commands(monkeypatch) as sent, cell as driver:
        driver.run()
        assert index_reads(sent, driver.queue.keys.ck_index) >= sc.total_runs


def test_a_baseline_snapshot_reads_the_index_as_redis_holds_it_without_counting_a_trip(
    client: redis.Redis, prefix: str
) -> None:
    sc = scenario_files.load("ck_skew")
    with open_cell(client, sc, "seed-a", Treatment(discipline="baseline"), prefix) as driver:
        for _ in range(30):
            driver.step()
            trips = driver.queue.round_trips
            snap = driver.snapshot()
            assert driver.queue.round_trips == trips == snap.round_trips
            held = client.zrange(driver.queue.keys.ck_index, 0, -1, withscores=True)
            assert [(e.member, e.score) for e in snap.index_read] == held
            assert snap.next_order == tuple(e.key for e in snap.index_read)


@pytest.mark.slow
def test_unwatched_runs_send_the_same_commands_in_fewer_trips(
    client: redis.Redis, prefix: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    sc = scenario_files.load("ck_trickle")
    streams, trips, events = [], [], []
    for mode in ("step", "run"):
        with sent_commands(monkeypatch) as sent:
            namespace = f"{prefix}{mode}:"
            cell = open_cell(client, sc, "seed-b", Treatment(discipline="baseline"), namespace)
            with cell as driver:
                if mode == "run":
                    driver.run()
                while not driver.done:
                    driver.step()
                trips.append(driver.queue.round_trips)
                events.append(driver.events)
        writes = [c for c in sent if c[1] != load_scripts()["inspect"].sha]  # digests: reads
        streams.append([tuple(str(a).replace(f"{prefix}{mode}:", "") for a in c) for c in writes])
    assert streams[0] == streams[1]  # byte for byte, namespaces aside (digests ride per trip)
    assert events[0] == events[1]
    assert trips[1] < trips[0]
