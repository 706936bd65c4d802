"""Fault injection: the server loses its scripts, dies, restarts, stalls or is not there.

Each test asserts the outcome docs/TRUST.md documents: a script flush is repaired and the run
is unchanged; anything else stops the run with RedisUnavailable (exit 3) and one line.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import redis

from ckviz.errors import ExitCode, RedisUnavailable
from ckviz.inputs import scenario_files
from ckviz.sim.cell.session import open_cell
from tests.functional.trust_support import OwnRedis, own_redis, resumed_after, treatment


def _run_all(client: redis.Redis, prefix: str, flush_at: tuple[int, ...] = ()) -> tuple[list, int]:
    sc = scenario_files.load("ck_skew")
    with open_cell(client, sc, "seed-c", treatment("sfq"), prefix) as driver:
        while not driver.done:
            if driver.step_count in flush_at:
                client.script_flush()
            driver.step()
        return list(driver.events), driver.queue.round_trips


@pytest.mark.slow
def test_a_script_flush_mid_run_is_repaired_and_changes_nothing(redis_binary: Path) -> None:
    with own_redis(binary=redis_binary) as server:
        client = server.client()
        events, trips = _run_all(client, "ckviz-test:plain:")
        flushed, flushed_trips = _run_all(client, "ckviz-test:flushed:", flush_at=(10, 200, 400))
        assert flushed == events and len(events) == 300
        # each flush costs the failed trip's reload and its resend: two more round trips
        assert flushed_trips == trips + 2 * 3
        assert client.keys("ckviz-test:*") == []


@pytest.mark.slow
def test_script_flushes_before_every_step_change_nothing(redis_binary: Path) -> None:
    # sfq's trips carry acks (scripts), then the ckIndex read and the rescore's ZADD: a flush
    # there has the ZADD run ahead of the failed acks, and the repair undoes it first.
    with own_redis(binary=redis_binary) as server:
        client = server.client()
        events, _ = _run_all(client, "ckviz-test:plain:")
        flushed, _ = _run_all(client, "ckviz-test:flushed:", flush_at=tuple(range(1, 120)))
        assert flushed == events and len(events) == 300
        assert client.keys("ckviz-test:*") == []


def _driver_on(server: OwnRedis, prefix: str):  # type: ignore[no-untyped-def]
    sc = scenario_files.load("ck_skew")
    return open_cell(server.client(), sc, "seed-a", treatment("sfq"), prefix)


def test_server_killed_mid_run_stops_with_redis_unavailable(redis_binary: Path) -> None:
    with own_redis(binary=redis_binary) as server, _driver_on(server, "ckviz-test:k:") as driver:
        for _ in range(50):
            driver.step()
        server.kill()  # its socket closes with it: the next trip's write or read fails at once
        with pytest.raises(RedisUnavailable) as caught:
            driver.run()
    assert caught.value.exit_code == ExitCode.REDIS
    assert "lost the Redis server mid-run" in str(caught.value)
    assert "\n" not in str(caught.value)


def test_server_restarted_mid_run_is_not_mistaken_for_the_same_queue(redis_binary: Path) -> None:
    with own_redis(binary=redis_binary) as server:
        with _driver_on(server, "ckviz-test:r:") as driver:
            for _ in range(50):
                driver.step()
            server.restart()  # same socket, empty memory: the queue is gone
            with pytest.raises(RedisUnavailable):
                driver.run()
        assert server.client().keys("*") == []  # nothing half-written on the new server


def test_a_stalled_server_times_out(monkeypatch: pytest.MonkeyPatch, redis_binary: Path) -> None:
    monkeypatch.setenv("CKVIZ_REDIS_TIMEOUT", "0.5")
    with own_redis(binary=redis_binary) as server:
        from ckviz.store.server import connect

        sc = scenario_files.load("ck_skew")
        client = connect(server.url)
        try:
            with open_cell(client, sc, "seed-a", treatment("sfq"), "ckviz-test:t:") as driver:
                for _ in range(20):
                    driver.step()
                server.pause()
                with resumed_after(server, 10), pytest.raises(RedisUnavailable) as caught:
                    driver.run()  # a timeout not kept would see the server back, and go on
        finally:
            client.close()
        assert "timeout" in str(caught.value).lower()


def test_connection_refused_when_opening_a_cell(redis_binary: Path) -> None:
    with own_redis(binary=redis_binary) as server:
        client = server.client()
        server.kill()
        sc = scenario_files.load("ck_skew")
        cell = open_cell(client, sc, "seed-a", treatment("sfq"), "ckviz-test:c:")
        with pytest.raises(RedisUnavailable), cell as driver:
            driver.run()


def test_a_stop_while_a_cell_connects_leaves_no_half_made_connection(
    monkeypatch: pytest.MonkeyPatch, client: redis.Redis, prefix: str
) -> None:
    """Ctrl-C landing inside redis-py's connect (socket open, reply reader not yet made): the
    pool takes that connection back; the cell's cleanup must not trip over it, so the stop
    arrives as a stop and the namespace is still deleted."""
    parser = client.connection_pool.connection_class(
        **client.connection_pool.connection_kwargs
    )._parser.__class__
    real = parser.on_connect
    stops = iter([KeyboardInterrupt()])

    def interrupted(self: object, connection: object) -> None:
        stop = next(stops, None)
        if stop is not None:
            raise stop
        real(self, connection)

    client.connection_pool.disconnect()
    monkeypatch.setattr(parser, "on_connect", interrupted)
    sc = scenario_files.load("ck_skew")
    with (
        pytest.raises(KeyboardInterrupt),
        open_cell(client, sc, "seed-a", treatment("sfq"), prefix),
    ):
        pass
    assert client.ping()
    assert not list(client.scan_iter(match=f"{prefix}*"))
