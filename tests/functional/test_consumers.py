"""Several consumers taking turns at the dequeue (--consumers), on the real embedded Redis:
the books stay whole, turns follow the seeded order, and results are deterministic."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import redis

from ckviz.cli import main
from ckviz.errors import ExitCode
from ckviz.inputs import scenario_files
from ckviz.model.invariants import HEAD_FIRST, ONE_PLACE, BrokenInvariant
from ckviz.model.matrix import Treatment
from ckviz.model.scenario import Caps
from ckviz.model.steps import StepScenario
from ckviz.sim.cell.session import new_namespace, open_cell, open_step_cell
from ckviz.sim.engine.consumers import consumer_name, turn_order
from ckviz.sim.millisecond_clock.driver import Driver
from ckviz.store.server import RedisServer
from tests.functional.cli_support import ckviz_here, without_timing
from tests.functional.test_bad_input import one_error_line

RESCORING = ["sfq", "drr", "stride", "codel-sfq", "codel-baseline"]
IN_REDIS = ["baseline", "vtime", "vtime-v17"]


def run(
    client: redis.Redis,
    prefix: str,
    discipline: str,
    consumers: int,
    seed: str = "seed-a",
    scenario: str = "ck_skew",
    **treatment: int,
) -> Driver:
    sc = scenario_files.load(scenario)
    cell = open_cell(
        client,
        sc,
        seed,
        Treatment(discipline=discipline, **treatment),
        f"{prefix}{discipline}:{consumers}:{seed}:",
        consumers=consumers,
    )
    with cell as driver:
        driver.run()
    return driver


@pytest.mark.parametrize("discipline", IN_REDIS + RESCORING)
def test_every_run_served_once_within_limits_and_every_consumer_counted(
    client: redis.Redis, prefix: str, discipline: str
) -> None:
    driver = run(client, prefix, discipline, 3)
    checker = driver.invariants
    assert checker is not None and checker.checks > 0  # the books were held against Redis
    assert checker.dequeued == len(driver.events) == len(driver.workload)
    assert checker.held_ids == set(driver.ledger.holds)  # it keeps only the runs held
    service = driver.turns.service()
    assert [c.name for c in service] == ["c1", "c2", "c3"]
    assert sum(c.dequeued for c in service) == len(driver.events)
    assert all(c.dequeued > 0 for c in service)
    assert all(c.calls == c.dequeued + c.empty_calls for c in service)  # max count 1
    # each consumer's trips went on its own connection
    assert all(c.queue.round_trips > 0 for c in driver.turns.consumers)
    assert driver.round_trips == sum(c.queue.round_trips for c in driver.turns.consumers)


@pytest.mark.parametrize("discipline", ["baseline", "sfq", "vtime"])
def test_caps_and_batches_hold_with_several_consumers(
    client: redis.Redis, prefix: str, discipline: str
) -> None:
    sc = scenario_files.load("ck_skew").model_copy(update={"caps": Caps(per_key=2, total=3)})
    cell = open_cell(
        client, sc, "seed-b", Treatment(discipline=discipline), prefix, max_count=2, consumers=4
    )
    with cell as driver:
        driver.run()
    assert driver.invariants is not None  # within_limits ran on every dequeue
    assert driver.invariants.dequeued == sc.total_runs
    assert driver.invariants.held_ids == set(driver.ledger.holds)  # only the runs held
    assert sum(c.dequeued for c in driver.turns.service()) == sc.total_runs
    assert any(c.dequeued > c.calls - c.empty_calls for c in driver.turns.service())  # batches


def test_a_run_taken_outside_the_turns_is_caught(client: redis.Redis, prefix: str) -> None:
    sc = scenario_files.load("ck_skew")
    with open_cell(
        client, sc, "seed-a", Treatment(discipline="sfq"), prefix, consumers=3
    ) as driver:
        for _ in range(40):
            driver.step()
        heavy = driver.queue.keys.ck_queue("heavy")
        (stolen,) = client.zrange(heavy, 0, 0)
        client.zrem(heavy, stolen)  # a fourth client the books do not know of
        with pytest.raises(BrokenInvariant) as caught:
            driver.run()
    assert caught.value.invariant in (ONE_PLACE, HEAD_FIRST)
    assert caught.value.keys == ("heavy",)


@pytest.mark.parametrize("discipline", IN_REDIS)
def test_state_in_redis_serves_the_same_runs_whoever_calls(
    client: redis.Redis, prefix: str, discipline: str
) -> None:
    """Turns are serialised and the order lives in Redis: N consumers make the one consumer's
    decisions, only the callers differ."""
    one = run(client, prefix, discipline, 1)
    three = run(client, prefix, discipline, 3)
    assert three.events == one.events


@pytest.mark.parametrize("discipline", ["sfq", "drr"])
def test_client_side_state_is_each_consumers_own(
    client: redis.Redis, prefix: str, discipline: str
) -> None:
    """Each consumer ranks from its own copy of the discipline, which learns only of its own
    serves: the runs served differ from one consumer's (else the copies would be shared)."""
    one = run(client, prefix, discipline, 1)
    three = run(client, prefix, discipline, 3)
    assert three.events != one.events
    assert len(three.events) == len(one.events)
    copies = {id(c.discipline) for c in three.turns.consumers}
    assert len(copies) == 3


def test_turns_are_deterministic_and_the_seed_moves_them(client: redis.Redis, prefix: str) -> None:
    a1 = run(client, prefix + "x:", "sfq", 3, "seed-a")
    a2 = run(client, prefix + "y:", "sfq", 3, "seed-a")
    b = run(client, prefix, "sfq", 3, "seed-b")
    assert a1.events == a2.events and a1.turns.service() == a2.turns.service()
    split = [c.dequeued for c in a1.turns.service()]
    assert split != [c.dequeued for c in b.turns.service()]
    # the seeded order gives each consumer the first turn of some instants
    firsts = {turn_order("seed-a", t, 3)[0] for t in range(50)}
    assert firsts == {0, 1, 2}


def test_one_consumer_is_the_single_consumer_driver(client: redis.Redis, prefix: str) -> None:
    """A scenario's `consumers = 1` changes nothing: same runs, same round trips."""
    sc = scenario_files.load("ck_skew")
    explicit = sc.model_copy(update={"consumers": 1})
    runs = []
    for i, scenario in enumerate((sc, explicit)):
        with open_cell(
            client, scenario, "seed-c", Treatment(discipline="baseline"), f"{prefix}{i}:"
        ) as driver:
            driver.run()
            runs.append((driver.events, driver.round_trips, len(driver.turns)))
    assert runs[0] == runs[1] and runs[0][2] == 1


def test_the_step_harness_calls_each_consumer_once_a_step_in_seeded_order(
    client: redis.Redis, prefix: str
) -> None:
    sc = scenario_files.load_any("micro_balanced")
    assert isinstance(sc, StepScenario)
    with open_step_cell(
        client, sc, Treatment(discipline="vtime"), prefix, seed="seed-b", consumers=3
    ) as runner:
        runner.run()
    served = [e.run_id for e in runner.events]
    assert len(served) == len(set(served)) == sum(k.runs * (k.count or 1) for k in sc.keys)
    by_step: dict[int, list[str]] = {}
    for call in runner.calls:
        by_step.setdefault(call.step, []).append(call.consumer)
    for step, callers in by_step.items():
        assert callers == [consumer_name(i) for i in turn_order("seed-b", step, 3)]
    service = runner.service()
    assert sum(c.dequeued for c in service) == len(served)
    assert sum(c.calls for c in service) == sum(call.called for call in runner.calls)


def on(redis_server: RedisServer) -> tuple[str, ...]:
    """The session's server, under a root of the run's own: ckviz in this process starts none."""
    root = new_namespace("ckviz-test").rstrip(":").replace(":", "-")
    return ("--redis-url", redis_server.url, "--prefix", root)


@pytest.mark.slow
def test_headless_results_are_deterministic_across_jobs(
    redis_server: RedisServer, tmp_path: Path
) -> None:
    args = (
        "--headless",
        "--scenario",
        "ck_skew",
        "--scenario",
        "micro_skew",
        "--consumers",
        "3",
        "--seeds",
        "seed-a",  # six cells, in another order by two workers
        "--discipline",
        "baseline",
        "--discipline",
        "sfq",
        "--discipline",
        "vtime",
    )
    files = []
    for jobs in ("1", "2", "2"):
        out = tmp_path / f"r{len(files)}.json"
        proc = ckviz_here(*args, *on(redis_server), "--jobs", jobs, "--out", str(out))
        assert proc.returncode == 0, proc.stderr
        files.append(json.loads(out.read_text()))
    assert without_timing(files[0]) == without_timing(files[1]) == without_timing(files[2])
    results = files[0]
    assert results["matrix"]["consumers"] == 3
    for scenario in results["scenarios"]:
        for r in scenario["runs"]:
            assert r["consumers"] == 3
            served = [c["dequeued"] for c in r["metrics"]["per_consumer"]]
            assert sum(served) == r["metrics"]["total_dequeued"]
    assert "runs per consumer" in proc.stdout


@pytest.mark.slow
def test_one_consumer_writes_no_consumer_fields(redis_server: RedisServer, tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    proc = ckviz_here(
        "--headless",
        *on(redis_server),
        "--scenario",
        "ck_balanced",
        "--seeds",
        "seed-a",
        "--discipline",
        "sfq",
        "--out",
        str(out),
    )
    assert proc.returncode == 0, proc.stderr
    text = out.read_text()
    assert "consumer" not in text and "runs per consumer" not in proc.stdout


RANGE = "--consumers: must be 1 to 64"
NOT_A_COUNT = "--consumers: expected a whole number (1 to 64) or a mix such as vtime:2,baseline:1"


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--headless", "--consumers", "0"], RANGE),
        (["--headless", "--consumers", "-3"], RANGE),
        (["--headless", "--consumers", "65"], RANGE),
        (["--headless", "--consumers", "100000000000000000000"], RANGE),
        (["--headless", "--consumers", "1.5"], NOT_A_COUNT),
        (["--headless", "--consumers", "three"], NOT_A_COUNT),
        (["--consumers", "0"], RANGE),  # the app, before any server starts
        (["--consumers", "2.0"], NOT_A_COUNT),
    ],
)
def test_bad_consumer_flags(
    args: list[str], needle: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "r.json"
    assert main([*args, "--out", str(out)] if "--headless" in args else args) == ExitCode.USAGE
    assert needle in one_error_line(capsys)
    assert not out.exists()


SCENARIO = '[[keys]]\nname = "a"\nruns = 3\n'
STEPS = '[harness]\nkind = "steps"\n[[keys]]\nname = "a"\nruns = 3\n'
MATRIX = 'scenarios = ["ck_skew"]\n'


@pytest.mark.parametrize(
    ("kind", "text", "needle"),
    [
        ("scenario", "consumers = 0\n" + SCENARIO, "consumers: must be 1 to 64"),
        ("scenario", "consumers = 1.5\n" + SCENARIO, "consumers: expected a whole number"),
        ("scenario", 'consumers = "3"\n' + SCENARIO, "consumers: a count is a whole number"),
        ("scenario", "consumers = 65\n" + SCENARIO, "consumers: must be 1 to 64"),
        ("scenario", "consumers = -1\n" + STEPS, "consumers: must be 1 to 64"),
        ("matrix", MATRIX + 'disciplines = ["sfq"]\nconsumers = 0\n', "consumers: Input should"),
        ("matrix", MATRIX + "consumers = 1e9\n" + 'disciplines = ["sfq"]\n', "consumers: Input"),
        (
            "matrix",
            MATRIX + '[[treatments]]\ndiscipline = "sfq"\nconsumers = 1000\n',
            "treatments[0].consumers: must be 1 to 64",
        ),
    ],
)
def test_bad_consumer_fields_name_the_file_and_field(
    kind: str, text: str, needle: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / f"{kind}.toml"
    path.write_text(text, encoding="utf-8")
    flag = "--scenario" if kind == "scenario" else "--matrix"
    out = tmp_path / "r.json"
    assert main(["--headless", flag, str(path), "--out", str(out)]) == ExitCode.USAGE
    line = one_error_line(capsys)
    assert needle in line and str(path) in line
    assert not out.exists()


@pytest.mark.slow
def test_matrix_and_treatment_consumers_reach_the_cells(
    redis_server: RedisServer, tmp_path: Path
) -> None:
    """The matrix's `consumers` applies to a treatment without its own; the flag to all."""
    path = tmp_path / "m.toml"
    path.write_text(
        'scenarios = ["ck_balanced"]\nseeds = ["seed-a"]\nconsumers = 2\n'
        '[[treatments]]\ndiscipline = "sfq"\n'
        '[[treatments]]\nlabel = "sfq x4"\ndiscipline = "sfq"\nconsumers = 4\n',
        encoding="utf-8",
    )
    counts = {}
    for flag in ([], ["--consumers", "3"]):
        out = tmp_path / f"r{len(counts)}.json"
        proc = ckviz_here(
            "--headless", "--matrix", str(path), *on(redis_server), *flag, "--out", str(out)
        )
        assert proc.returncode == 0, proc.stderr
        runs = json.loads(out.read_text())["scenarios"][0]["runs"]
        counts[tuple(flag)] = {r["treatment"]: len(r["metrics"]["per_consumer"]) for r in runs}
    assert counts[()] == {"sfq": 2, "sfq x4": 4}
    assert counts[("--consumers", "3")] == {"sfq": 3, "sfq x4": 3}
