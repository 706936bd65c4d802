"""A process's cells share their connections (headless/cells.py `Clients`): the next cell
finds the last one's open, never one left half-way through a trip."""

from __future__ import annotations

import signal
from collections.abc import Iterator

import pytest
import redis

from ckviz.headless.cells import Cell, Clients, run_cell
from ckviz.inputs import scenario_files
from ckviz.model.matrix import Treatment
from ckviz.store.runqueue import RunQueue, _keep
from ckviz.store.server import RedisServer


def connections_made(client: redis.Redis) -> int:
    return int(client.info("stats")["total_connections_received"])


def test_the_next_cell_of_a_process_opens_no_connection(
    redis_server: RedisServer, client: redis.Redis, prefix: str
) -> None:
    scenario = scenario_files.load("ck_skew")
    cells = [
        Cell(i, scenario, "seed-a", Treatment(discipline=name), 1, f"{prefix}{i}:")
        for i, name in enumerate(["baseline", "sfq", "baseline"])
    ]
    clients = Clients()
    try:
        first = run_cell(redis_server.url, cells[0], clients)
        before = connections_made(client)
        later = [run_cell(redis_server.url, cell, clients) for cell in cells[1:]]
        assert connections_made(client) == before
    finally:
        clients.close()
    alone = run_cell(redis_server.url, cells[2])  # a client of its own, as the app's export
    assert all(o.result is not None for o in [first, *later, alone])
    assert alone.result == later[1].result.model_copy(update={"metrics": alone.result.metrics})
    assert alone.result.metrics.redis_round_trips == later[1].result.metrics.redis_round_trips


@pytest.fixture
def queue(client: redis.Redis, prefix: str) -> Iterator[RunQueue]:
    q = RunQueue(client, prefix, 4)
    q.open()
    yield q
    q.close()


def test_a_trip_stopped_before_its_replies_closes_its_connection(
    queue: RunQueue, client: redis.Redis, prefix: str
) -> None:
    def stop(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    # BLPOP on an empty list answers after a second: the stop comes while the trip waits
    waiting = ((("BLPOP", f"{prefix}never", 1), _keep, False),)
    conn = queue._connection
    assert conn is not None
    previous = signal.signal(signal.SIGALRM, stop)
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.1)
        with pytest.raises(KeyboardInterrupt):
            queue.execute(list(waiting))
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert conn._sock is None  # closed: its late reply reaches no one
    queue.close()
    queue.connect()  # the pool's next connection answers its own trip, not the old one's
    assert queue.execute([(("PING",), _keep, False)]) == ["PONG"]
