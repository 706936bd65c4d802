"""The run lifecycle wired into the millisecond clock, on the real server: a failing run is
nacked at its retry score and served again, or dead-lettered past its last attempt; a delayed
run waits for its score; a run with a TTL expires behind a backlog (by the sweep, or by a
dequeue meeting it); an offered fast path hands a run straight to a worker. Invariants are on
throughout: the books and Redis agree after every trip."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import redis

from ckviz.cli import main
from ckviz.model.backoff import laid_over_core, retry_delay_ms
from ckviz.model.key_columns import to_rows
from ckviz.model.lifecycle import RetrySettings, TtlSettings
from ckviz.model.scenario import KeySpec, Scenario
from ckviz.sim.cell.session import new_namespace, open_cell
from ckviz.sim.millisecond_clock.driver import Driver
from ckviz.store.lifecycle import LifecycleKeys
from ckviz.store.server import RedisServer
from tests.functional.trust_support import key, treatment


def lifecycle_scenario(*keys: KeySpec, env_limit: int = 2, **tables: object) -> Scenario:
    return Scenario(name="life", env_limit=env_limit, keys=list(keys), **tables)  # type: ignore[arg-type]


def serves_of(driver: Driver, run_id: str) -> list[int]:
    return [e.dequeued_ms for e in driver.events if e.run_id == run_id]


@pytest.mark.parametrize("discipline", ["baseline", "vtime", "vtime-v17", "sfq"])
def test_a_failing_run_is_nacked_at_its_retry_score_and_served_again(
    client: redis.Redis, prefix: str, discipline: str
) -> None:
    retry = RetrySettings(max_attempts=5, factor=2, min_timeout_ms=100, randomize=False)
    flaky = key("flaky", 3, arrival="immediate", hold_ms_mean=20, fail_rate=1.0, fail_attempts=2)
    sc = lifecycle_scenario(flaky, key("steady", 5), retry=retry)
    with open_cell(client, sc, "seed-a", treatment(discipline), prefix) as driver:
        driver.run()
        holds = {r.run_id: r.hold_ms for r in driver.workload}
        for run_id in ("flaky~0#0", "flaky~0#1", "flaky~0#2"):
            first, second, third = serves_of(driver, run_id)
            # each nack waits its backoff (attempt 1: 100 ms, attempt 2: 200 ms) after the hold
            assert second >= first + holds[run_id] + 100
            assert third >= second + holds[run_id] + 200
        tally = driver.outcome().lifecycle
        assert tally is not None
        flaky_tally = tally["flaky"]
        assert (flaky_tally.attempts, flaky_tally.retries, flaky_tally.dead_lettered) == (9, 6, 0)
        assert len(flaky_tally.success_waits) == 3
        assert client.zcard(LifecycleKeys(driver.queue.keys).dead_letter) == 0
    assert driver.ledger.settled == sc.total_runs


def test_past_its_last_attempt_a_run_is_dead_lettered(client: redis.Redis, prefix: str) -> None:
    retry = RetrySettings(max_attempts=2, min_timeout_ms=10, randomize=False)
    doomed = key("doomed", 2, arrival="immediate", hold_ms_mean=5, fail_rate=1.0, fail_attempts=9)
    sc = lifecycle_scenario(doomed, key("ok", 3), retry=retry)
    with open_cell(client, sc, "seed-a", treatment("baseline"), prefix) as driver:
        driver.run()
        dead = client.zrange(LifecycleKeys(driver.queue.keys).dead_letter, 0, -1)
        assert sorted(dead) == ["doomed~0#0", "doomed~0#1"]
        assert driver.ledger.dead_lettered == {"doomed~0#0", "doomed~0#1"}
        assert [len(serves_of(driver, r)) for r in sorted(dead)] == [2, 2]  # max_attempts 2
        tally = driver.outcome().lifecycle
        assert tally is not None and tally["doomed"].dead_lettered == 2
        assert tally["doomed"].success_waits == []
        kinds = [e.kind for e in driver.recent if e.key == "doomed"]  # the app's event log
        assert kinds.count("nack") == 2 and kinds.count("dead") == 2 and "ack" not in kinds


def test_a_delayed_run_waits_for_its_score(client: redis.Redis, prefix: str) -> None:
    sc = lifecycle_scenario(key("later", 2, arrival="immediate", delay_ms=300), key("now", 2))
    with open_cell(client, sc, "seed-a", treatment("vtime"), prefix) as driver:
        driver.run()
        later = [e for e in driver.events if e.key == "later"]
        assert [e.dequeued_ms >= 300 for e in later] == [True, True]
        assert all(e.arrival_ms == 300 for e in later)  # a wait counts from the run's due time
        tally = driver.outcome().lifecycle
        assert tally is not None and tally["later"].delayed == 2 and tally["now"].delayed == 0


@pytest.mark.parametrize("sweep_ms", [100, 0])
def test_runs_expire_behind_a_backlog_by_sweep_or_by_dequeue(
    client: redis.Redis, prefix: str, sweep_ms: int
) -> None:
    backlog = key("backlog", 60, arrival="immediate", hold_ms_mean=20)
    light = key("light", 8, start_at_ms=10, rate_per_sec=50, ttl_ms=150)
    sc = lifecycle_scenario(backlog, light, ttl=TtlSettings(sweep_ms=sweep_ms))
    with open_cell(client, sc, "seed-a", treatment("baseline"), prefix) as driver:
        driver.run()
        tally = driver.outcome().lifecycle
        assert tally is not None
        served = sum(1 for e in driver.events if e.key == "light")
        assert tally["light"].expired > 0 and served + tally["light"].expired == 8
        assert len(driver.ledger.expired) == tally["light"].expired
        expiries = [e for e in driver.recent if e.kind == "expire"]
        assert len(expiries) == tally["light"].expired and {e.key for e in expiries} == {"light"}
        life = driver.life
        swept_or_dropped = life.life.swept | life.life.dropped  # type: ignore[attr-defined]
        assert swept_or_dropped <= driver.ledger.expired
        if sweep_ms == 0:
            assert not life.life.swept  # type: ignore[attr-defined]  # only dequeues met them


@pytest.mark.parametrize("discipline", ["baseline", "drr"])  # drr: a rescoring one reads
def test_an_offered_fast_path_serves_at_once_when_the_env_has_room(  # ckIndex, not projects it
    client: redis.Redis, prefix: str, discipline: str
) -> None:
    fast = key("fast", 5, rate_per_sec=5, hold_ms_mean=10, fast_path=True)
    sc = lifecycle_scenario(fast, key("slow", 5, rate_per_sec=5, hold_ms_mean=10), env_limit=4)
    with open_cell(client, sc, "seed-a", treatment(discipline), prefix) as driver:
        driver.run()
        tally = driver.outcome().lifecycle
        assert tally is not None
        assert (tally["fast"].fast_path, tally["slow"].fast_path) == (5, 0)
        assert all(e.wait_ms == 0 for e in driver.events if e.key == "fast")
        assert client.llen(LifecycleKeys(driver.queue.keys).worker_queue) == 5


def _results(redis_server: RedisServer, path: Path, *args: str) -> dict[str, object]:
    """`ckviz --headless ARGS` on the session's server (not one started for it), its results
    without their timing."""
    root = new_namespace("ckviz-test").rstrip(":").replace(":", "-")
    on = ["--redis-url", redis_server.url, "--prefix", root]
    assert main(["--headless", "--force", "--out", str(path), *on, *args]) in (0, 1)
    data = json.loads(path.read_text())
    data.pop("wall_clock_s")
    for entry in data["scenarios"]:  # type: ignore[union-attr]
        for run in entry["runs"]:
            run["metrics"].pop("wall_clock_ms")
    return data


@pytest.mark.slow
def test_lifecycle_results_are_deterministic_and_plain_ones_carry_none(
    redis_server: RedisServer, tmp_path: Path
) -> None:
    args = ["--scenario", "life_dead_letter", "--seeds", "seed-a", "--discipline", "baseline"]
    first = _results(redis_server, tmp_path / "a.json", *args, "--discipline", "vtime")
    again = _results(redis_server, tmp_path / "b.json", *args, "--discipline", "vtime")
    assert first == again
    rows = to_rows(first["scenarios"][0]["runs"][0]["metrics"]["per_key"])  # type: ignore[index]
    assert {row["key"]: row["lifecycle"]["dead_lettered"] for row in rows}["doomed"] == 12
    plain = _results(
        redis_server, tmp_path / "c.json", "--scenario", "ck_skew", "--seeds", "seed-a"
    )
    assert "lifecycle" not in json.dumps(plain)


def test_the_retry_delays_the_test_expects() -> None:
    opts = laid_over_core(5, 2, 100, None, False)
    assert [retry_delay_ms(opts, a) for a in (1, 2)] == [100, 200]


STEP_LIFE = """
env_limit = 4
[harness]
kind = "steps"
max_count = 4
hold_steps = 2
max_steps = 400
step_ms = 100
[retry]
max_attempts = 4
factor = 2
min_timeout_ms = 200
randomize = false
[ttl]
sweep_ms = 300
[[keys]]
name = "storm"
count = 4
runs = 1
fail_rate = 1.0
fail_attempts = 2
[[keys]]
name = "heavy"
runs = 40
[[keys]]
name = "doomed"
runs = 2
fail_rate = 1.0
fail_attempts = 9
[[keys]]
name = "light"
runs = 6
ttl_ms = 500
[[keys]]
name = "later"
runs = 3
delay_ms = 1000
"""


@pytest.mark.parametrize("discipline", ["baseline", "vtime"])
def test_the_step_clock_runs_the_same_lifecycle(
    redis_server: RedisServer, tmp_path: Path, discipline: str
) -> None:
    """On the step clock a step stands for step_ms: a nack at attempt 1 waits 200 ms (two
    steps), the doomed runs dead-letter at max_attempts, the light runs expire unless served
    within five steps, the delayed ones wait ten; checked every call, the same twice."""
    path = tmp_path / "steps.toml"
    path.write_text(STEP_LIFE, encoding="utf-8")
    args = ["--scenario", str(path), "--discipline", discipline]
    first = _results(redis_server, tmp_path / "a.json", *args)
    assert first == _results(redis_server, tmp_path / "b.json", *args)
    run = first["scenarios"][0]["runs"][0]  # type: ignore[index]
    rows = {row["key"]: row["lifecycle"] for row in to_rows(run["metrics"]["per_key"])}
    assert [rows[f"storm{i}"]["retries"] for i in range(4)] == [2, 2, 2, 2]
    assert rows["doomed"]["dead_lettered"] == 2 and rows["doomed"]["attempts"] == 8
    assert rows["light"]["expired"] + rows["light"]["succeeded"] == 6
    assert rows["later"]["delayed"] == 3 and rows["later"]["succeeded"] == 3
    assert all(row["success_wait_mean"] >= 10 for k, row in rows.items() if k.startswith("st"))


def test_a_sweep_after_a_fast_path_serve(client: redis.Redis, prefix: str) -> None:
    """The fast path pushes onto the worker list; the TTL sweep files its jobs elsewhere (a
    zset): both in one run, neither the other's type."""
    fast = key("fast", 3, rate_per_sec=20, hold_ms_mean=5, fast_path=True)
    short = key("short", 4, arrival="immediate", hold_ms_mean=50, ttl_ms=20)
    sc = lifecycle_scenario(fast, short, env_limit=1, ttl=TtlSettings(sweep_ms=10))
    with open_cell(client, sc, "seed-a", treatment("baseline"), prefix) as driver:
        driver.run()
        keys = LifecycleKeys(driver.queue.keys)
        tally = driver.outcome().lifecycle
        assert tally is not None and tally["fast"].fast_path > 0 and tally["short"].expired > 0
        assert client.llen(keys.worker_queue) == tally["fast"].fast_path
        assert client.zcard(keys.ttl_jobs) == len(driver.life.life.swept)  # type: ignore[attr-defined]


@pytest.mark.parametrize("discipline", ["sfq", "baseline"])
def test_a_run_the_sweep_expires_leaves_the_master_queue_stale_not_broken(
    client: redis.Redis, prefix: str, discipline: str
) -> None:
    # a delayed run whose TTL passes before it is due: the sweep expires it and leaves the
    # master member, and sfq sends no dequeue to fix it (hypothesis found this one)
    spec = KeySpec(name="a", runs=1, arrival="immediate", delay_ms=25, ttl_ms=1)
    sc = Scenario(name="swept", env_limit=1, keys=[spec], ttl=TtlSettings(sweep_ms=25))
    with open_cell(client, sc, "seed-a", treatment(discipline), prefix) as driver:
        driver.run()
        assert driver.ledger.settled == 1 and len(driver.ledger.expired) == 1
