"""`ckviz stress` against the embedded server: real concurrency passes its checks on every
Redis-side discipline, and deliberately broken consumers are caught. Stress results are not
deterministic, so these tests assert only what must hold on every run."""

from __future__ import annotations

import re
import threading
from typing import Any

import pytest
import redis

from ckviz.cli import main
from ckviz.disciplines.vtime.door import state_keys
from ckviz.errors import ExitCode
from ckviz.inputs.scenario_files import load_any
from ckviz.inputs.workload import PlannedRun
from ckviz.model import invariants as inv
from ckviz.model.queue import DequeuedRun
from ckviz.model.steps import StepScenario
from ckviz.store.prefix import count_prefix
from ckviz.store.runqueue import RunQueue
from ckviz.store.server import RedisServer
from ckviz.stress.ops import QueueOps
from ckviz.stress.plan import plan_for
from ckviz.stress.run import StressReport, run_stress


def _stress(
    client: redis.Redis,
    prefix: str,
    scenario: Any,
    discipline: str,
    consumers: int = 2,
    hook: Any = None,
) -> StressReport:
    return run_stress(client, prefix, scenario, discipline, consumers, 1.0, hook=hook)


@pytest.mark.parametrize("discipline", ["baseline", "vtime", "vtime-v17"])
def test_the_reference_concurrency_case_holds_every_check(
    client: redis.Redis, prefix: str, discipline: str
) -> None:
    report = _stress(client, prefix, load_any("stress_reference"), discipline)
    assert report.ok, report.ledger.examples
    produced = len(report.ledger.produced)  # the scenario's runs, round after round for
    assert 180 * (report.rounds - 1) < produced <= 180 * report.rounds  # --seconds, the last cut
    assert report.served == produced and sum(report.serves) == produced
    assert len(report.serves) == 2
    assert report.ledger.checks[inv.DEQUEUED_ONCE] == produced
    assert report.ledger.checks[inv.ENDS_EMPTY] == 1
    if discipline != "baseline":
        assert report.ledger.checks[inv.FLOOR_MONOTONE] > 0
    assert count_prefix(client, prefix) == 0  # swept
    assert not [t for t in threading.enumerate() if t.name.startswith("ckviz-stress-")]


@pytest.mark.parametrize("discipline", ["vtime", "vtime-v17"])
def test_arrivals_between_calls_under_four_consumers(
    client: redis.Redis, prefix: str, discipline: str
) -> None:
    report = _stress(client, prefix, load_any("vtime_drain_reregister"), discipline, 4)
    assert report.ok, report.ledger.examples
    assert report.refeeds > 0 and report.served == len(report.ledger.produced)


def _held_scenario(env_limit: int = 2) -> StepScenario:
    """Runs held 3 calls: while a consumer holds the env's only slot, the state stands still."""
    return StepScenario.model_validate(
        {
            "name": "held",
            "env_limit": env_limit,
            "harness": {"kind": "steps", "max_count": 5, "hold_steps": 3},
            "keys": [{"name": "k", "count": 3, "runs": 20}],
        }
    )


def test_a_double_delivery_is_caught(client: redis.Redis, prefix: str) -> None:
    """A consumer that puts a run it was served back in the queue: served twice. Held for 3
    calls (not acked right away, whose defensive ZREM could race the copy away), the copy is
    the head of its key and every call serves every key with work: it is served again."""
    done: set[str] = set()

    def redeliver(queue: RunQueue, ops: QueueOps, run: DequeuedRun) -> None:
        if len(done) < 3 and run.run_id not in done:
            done.add(run.run_id)
            trip = queue.trip()
            ops.enqueue(trip, PlannedRun(run.key, run.run_id, 0, 0), 0)
            trip.send()

    report = _stress(client, prefix, _held_scenario(), "vtime", hook=redeliver)
    assert not report.ok
    assert report.ledger.violations[inv.DEQUEUED_ONCE] >= 1
    assert "served by consumers" in report.ledger.examples[inv.DEQUEUED_ONCE][0]


def test_a_leaked_slot_is_caught(client: redis.Redis, prefix: str) -> None:
    """A consumer that drops its runs from the env's held set: the server lets more in."""

    def leak(queue: RunQueue, ops: QueueOps, run: DequeuedRun) -> None:
        queue.client.srem(queue.keys.env_held, run.run_id)
        queue.client.srem(queue.keys.ck_held(run.key), run.run_id)

    report = _stress(client, prefix, _held_scenario(), "baseline", hook=leak)
    assert report.ledger.violations[inv.ENV_LIMIT] >= 1
    assert not report.ok


@pytest.mark.parametrize("discipline", ["vtime", "vtime-v17"])
@pytest.mark.slow
def test_a_tampered_floor_and_tags_are_caught(
    client: redis.Redis, prefix: str, discipline: str
) -> None:
    """Test-only hook: once runs flow, every tag and the floor are rewritten below zero (env
    limit 1: the tampering consumer holds the only slot, so nothing moves meanwhile)."""
    fired = threading.Event()

    def tamper(queue: RunQueue, ops: QueueOps, run: DequeuedRun) -> None:
        if fired.is_set() or len(tampered_after) < 20:
            tampered_after.append(run.run_id)
            return
        fired.set()
        k = queue.keys
        threading.Event().wait(0.05)  # let the watcher read the honest tags first
        tags = queue.client.zrange(state_keys(k).tags, 0, -1)
        if tags:  # (an empty ckVtime would make the test fail below)
            queue.client.zadd(state_keys(k).tags, dict.fromkeys(tags, -100), xx=True)
        queue.client.set(state_keys(k).floor, -100)
        threading.Event().wait(0.05)  # and the rewound ones before the next serve

    tampered_after: list[str] = []
    report = _stress(client, prefix, _held_scenario(env_limit=1), discipline, hook=tamper)
    assert fired.is_set()
    assert report.ledger.violations[inv.FLOOR_MONOTONE] >= 1
    assert report.ledger.violations[inv.TAG_MONOTONE] >= 1
    assert not report.ok


def test_the_plan_of_the_reference_case() -> None:
    plan = plan_for(load_any("stress_reference"))
    assert (plan.max_count, plan.env_limit, len(plan.declared)) == (5, 10, 180)
    assert len({a.run.key for a in plan.declared}) == 6


@pytest.mark.slow
def test_cli_runs_and_sweeps(
    redis_server: RedisServer, client: redis.Redis, capsys: pytest.CaptureFixture[str]
) -> None:
    root = f"ckviz-stress-{threading.get_ident()}"
    args = [
        "stress",
        "--redis-url",
        redis_server.url,
        "--prefix",
        root,
        "--consumers",
        "3",
        "--seconds",
        "1",  # rounds enough for what is asserted; each second holds a test worker
    ]
    assert main(args) == ExitCode.OK
    out = capsys.readouterr().out
    assert "not deterministic" in out and "dequeues/s" in out and "all checks held" in out
    served = re.search(r"served (\d+) of (\d+) runs \((\d+) rounds of the scenario\)", out)
    assert served is not None and served[1] == served[2], out
    assert 180 * (int(served[3]) - 1) < int(served[2]) <= 180 * int(served[3]), out
    assert count_prefix(client, f"{root}:") == 0


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--discipline", "sfq"], "two concurrent consumers would rewrite the same scores"),
        (["--discipline", "drr"], "rescores ckIndex"),
        (["--discipline", "nope"], "unknown discipline"),
        (["--consumers", "0"], "--consumers"),
        (["--seconds", "0"], "--seconds"),
        (["--seconds", "nan"], "--seconds"),
        (["--consumers", "x"], "--consumers"),
        (["no_such_scenario"], "unknown scenario"),
    ],
)
def test_bad_stress_flags_are_one_line(
    args: list[str], needle: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["stress", *args]) == ExitCode.USAGE
    err = capsys.readouterr().err
    assert needle in err and len(err.strip().splitlines()) == 1


def test_later_rounds_are_newer_and_ready_by_the_dequeues_now() -> None:
    """A second of stress on an idle machine sends over 100 rounds; at 10^7 ms a round they
    passed WALL_NOW, were future heads, and ended unserved."""
    from ckviz.stress.agents import RoundsSpan

    plan = plan_for(load_any("stress_reference"))
    rounds = RoundsSpan.of(plan)
    assert rounds.ready_by_wall_now(10_000)
    last_of_round_0 = max(
        [a.offset_ms for a in plan.declared] + [plan.fresh_start + plan.fresh_batches]
    )
    for r in (1, 2, 500):
        earlier = (
            max(a.offset_ms for a in rounds.again(plan.declared, r - 1))
            if r > 1
            else last_of_round_0
        )
        assert min(a.offset_ms for a in rounds.again(plan.declared, r)) > earlier
