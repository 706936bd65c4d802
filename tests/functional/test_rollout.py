"""A mixed rollout through the engine (`--consumers vtime:2,baseline:1`), on the real embedded
Redis: each call goes through its caller's door, the draw of who enqueues is the seed's, the
results name the mix and each consumer's calls, and a bad form is one line naming the flag or
the field."""

from __future__ import annotations

import json
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis

from ckviz.cli import main
from ckviz.commands.app import consumers_choice, mix_discipline
from ckviz.commands.root import build_parser
from ckviz.disciplines.registry import make_discipline
from ckviz.errors import ExitCode
from ckviz.inputs import scenario_files
from ckviz.model import lineup as lineup_module
from ckviz.model.lineup import Lineup, enqueuer, parse_lineup
from ckviz.model.matrix import Treatment
from ckviz.model.queue import PlannedRun
from ckviz.model.steps import StepScenario
from ckviz.player.choice import app_choice
from ckviz.player.frames import Setup
from ckviz.player.lanes import Lockstep
from ckviz.sim.cell.session import open_cell, open_step_cell
from ckviz.store.runqueue import RunQueue
from tests.functional.cli_support import without_timing
from tests.functional.test_bad_input import one_error_line

MIX = "vtime:2,baseline:1"
PATHS = ("enqueue", "dequeue", "ack", "nack", "dead_letter", "enqueue_ttl")
SHA_OF = {  # each discipline's scripts, by SHA: which door a call went through
    name: {getattr(make_discipline(name).door, path).sha: path for path in PATHS}
    for name in ("baseline", "vtime")
}


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[tuple[str, str, str]]]:
    """Every script call the queues send, as (discipline, path, first ARGV), recorded on its
    way to the real server (a spy: the commands go out unchanged)."""
    seen: list[tuple[str, str, str]] = []
    execute = RunQueue.execute

    def recording(queue: RunQueue, commands: list[Any]) -> list[Any]:
        for args, _, scripted in commands:
            if scripted:
                for name, paths in SHA_OF.items():
                    if args[1] in paths:
                        seen.append((name, paths[args[1]], str(args[3 + args[2]])))
        return execute(queue, commands)

    monkeypatch.setattr(RunQueue, "execute", recording)
    yield seen


def treatment(form: str = MIX) -> Treatment:
    return Treatment(discipline=parse_lineup(form, 64).label, consumers=form)


def test_each_call_goes_through_its_callers_door_on_the_millisecond_clock(
    client: redis.Redis, prefix: str, calls: list[tuple[str, str, str]]
) -> None:
    scenario = scenario_files.load("ck_skew")
    with open_cell(client, scenario, "seed-b", treatment(), prefix) as driver:
        driver.run()
    service = driver.service()
    assert [c.discipline for c in service] == ["vtime", "vtime", "baseline"]
    assert driver.invariants is not None and driver.reads.state_checks is not None  # vtime's rules
    total = len(driver.workload)
    assert sum(c.enqueued for c in service) == total and all(c.enqueued for c in service)
    assert sum(c.dequeued for c in service) == len(driver.events) == total
    assert all(c.acked <= c.dequeued for c in service)
    per_door = Counter((name, path) for name, path, _ in calls)
    for name in ("vtime", "baseline"):
        mine = [c for c in service if c.discipline == name]
        assert per_door[name, "enqueue"] == sum(c.enqueued for c in mine)
        assert per_door[name, "dequeue"] == sum(c.calls for c in mine)
        assert per_door[name, "ack"] == sum(c.acked for c in mine)
    # the run's enqueuer is the one the seed draws, whatever the order the runs arrive in
    lineup = parse_lineup(MIX, 64).per_consumer
    for name, path, run_id in calls:
        if path == "enqueue":
            assert lineup[enqueuer("seed-b", run_id, 3)] == name


def test_each_call_goes_through_its_callers_door_on_the_step_clock(
    client: redis.Redis, prefix: str, calls: list[tuple[str, str, str]]
) -> None:
    scenario = scenario_files.load_any("micro_skew")
    assert isinstance(scenario, StepScenario)
    with open_step_cell(
        client, scenario, treatment("baseline:1,vtime:2"), prefix, seed="s"
    ) as runner:
        runner.run()
    service = runner.service()
    assert [c.discipline for c in service] == ["baseline", "vtime", "vtime"]
    assert runner.in_redis is not None  # the vtime state is read through c2's door
    per_door = Counter((name, path) for name, path, _ in calls)
    for name in ("vtime", "baseline"):
        mine = [c for c in service if c.discipline == name]
        assert per_door[name, "enqueue"] == sum(c.enqueued for c in mine) > 0
        assert per_door[name, "dequeue"] == sum(c.calls for c in mine) > 0
        assert per_door[name, "ack"] == sum(c.acked for c in mine) > 0
    assert sum(c.enqueued for c in service) == runner.total


def test_every_consumer_can_send_every_doors_calls_even_after_a_script_flush(
    client: redis.Redis, prefix: str
) -> None:
    """c1 runs the baseline, so opening the namespace on its connection must load the vtime
    doors' scripts too; and a trip sent on any consumer's connection after a flush reloads
    the scripts of every door its calls go through."""
    scenario = scenario_files.load("ck_trickle")
    mix = treatment("baseline:1,vtime-v17:1,vtime:1")
    with open_cell(client, scenario, "seed-a", mix, prefix) as driver:
        off, v17, head = (c.queue for c in driver.turns.consumers)
        for flush in (False, True):
            if flush:
                client.script_flush()
            trip = off.trip()  # sent on the flag-off consumer's connection
            for i, on in enumerate((v17, head)):
                trip.by(on).enqueue(PlannedRun("x", f"x-{flush}-{i}", 0, 0), 1)
                trip.by(on).ack(f"x-{flush}-{i}", "x")
            trip.send()
        assert client.zcard(off.keys.ck_queue("x")) == 0


def test_nacks_and_dead_letters_go_through_the_holders_door(
    client: redis.Redis, prefix: str, calls: list[tuple[str, str, str]]
) -> None:
    """The lifecycle's finishing calls come with the rollout: each by the consumer that took
    the run, through its discipline's scripts."""
    scenario = scenario_files.load("life_dead_letter")
    with open_cell(client, scenario, "seed-a", treatment("vtime:1,baseline:2"), prefix) as driver:
        driver.run()
    service = driver.service()
    per_door = Counter((name, path) for name, path, _ in calls)
    for name in ("vtime", "baseline"):
        mine = [c for c in service if c.discipline == name]
        assert per_door[name, "nack"] == sum(c.nacked for c in mine) > 0
        assert per_door[name, "dead_letter"] == sum(c.dead_lettered for c in mine) > 0
        assert per_door[name, "ack"] == sum(c.acked for c in mine) > 0


@pytest.mark.parametrize("discipline", ["vtime", "baseline"])
def test_a_mix_of_one_discipline_serves_as_that_many_consumers_of_it(
    client: redis.Redis, prefix: str, discipline: str
) -> None:
    """Who enqueues changes nothing when every door is the same: the same serves, in order."""
    scenario = scenario_files.load("ck_trickle")
    plain = Treatment(discipline=discipline, consumers=3)
    with open_cell(client, scenario, "seed-a", plain, f"{prefix}p:") as one:
        one.run()
    with open_cell(client, scenario, "seed-a", treatment(f"{discipline}:3"), f"{prefix}m:") as mix:
        mix.run()
    assert mix.events == one.events
    assert [c.dequeued for c in mix.service()] == [c.dequeued for c in one.service()]


def test_headless_results_name_the_mix_and_repeat_byte_for_byte(tmp_path: Path) -> None:
    outs = [tmp_path / "a.json", tmp_path / "b.json"]
    for out in outs:
        args = ["--headless", "--scenario", "ck_trickle", "--seeds", "seed-c", "--quiet"]
        assert main([*args, "--consumers", MIX, "--out", str(out)]) == 0
    first, second = (without_timing(json.loads(o.read_text())) for o in outs)
    assert first == second
    assert isinstance(first, dict)
    assert first["matrix"]["consumers"] == MIX
    assert first["matrix"]["disciplines"] == ["vtime:2+baseline:1"]
    run = first["scenarios"][0]["runs"][0]
    assert (run["discipline"], run["treatment"]) == ("vtime:2+baseline:1",) * 2
    assert (run["consumers"], run["lineup"]) == (3, MIX)
    per = run["metrics"]["per_consumer"]
    assert [c["discipline"] for c in per] == ["vtime", "vtime", "baseline"]
    assert sum(c["enqueued"] for c in per) == sum(c["dequeued"] for c in per)


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every mix text parsed, wherever ckviz parses one (a spy: the parser still answers)."""
    seen: list[str] = []

    def counting(text: str, most: int) -> Lineup:
        seen.append(text)
        return parse_lineup(text, most)

    for module in list(sys.modules.values()):  # every ckviz module that reads a mix
        if module.__name__.startswith("ckviz") and vars(module).get("parse_lineup") is parse_lineup:
            monkeypatch.setattr(module, "parse_lineup", counting)
    assert lineup_module.parse_lineup is counting
    return seen


SPACED = "vtime:2, baseline:1"  # the flag as typed: its form (MIX) is not the same text


def test_the_flags_mix_is_read_once_on_a_headless_run(tmp_path: Path, reads: list[str]) -> None:
    out = tmp_path / "r.json"
    args = ["--headless", "--scenario", "ck_trickle", "--seeds", "seed-c", "--quiet"]
    assert main([*args, "--consumers", SPACED, "--out", str(out)]) == 0
    assert reads == [SPACED]  # its form, carried, is never read again
    assert json.loads(out.read_text())["matrix"]["consumers"] == MIX


def test_the_flags_mix_is_read_once_on_the_apps_run(
    client: redis.Redis, prefix: str, reads: list[str]
) -> None:
    ns = build_parser().parse_args(["ck_trickle", "--consumers", SPACED])
    consumers, mix = consumers_choice(ns)
    scenario, _, seed = app_choice(ns)
    assert mix is not None
    setup = Setup(scenario_files.load_any(scenario), seed, (mix_discipline(mix),), True, consumers)
    lanes = Lockstep(client, prefix)
    try:
        lanes.start(setup)
        frame = lanes.step_round()
        assert frame is not None and frame.snapshots[0].dequeued > 0
        assert [c.discipline for c in frame.snapshots[0].consumers] == ["vtime"] * 2 + ["baseline"]
    finally:
        lanes.close()
    assert reads == [SPACED]


def test_the_rollout_matrix_sweeps_the_flag_on_fraction_over_three_consumers() -> None:
    matrix = scenario_files.load_matrix("rollout")
    fractions = []
    for t in matrix.treatments:
        lineup = t.lineup
        assert lineup is not None and len(lineup) == 3
        assert set(lineup.names) <= {"vtime", "baseline"}
        fractions.append(lineup.per_consumer.count("vtime"))
    assert fractions == [0, 1, 2, 3]
    assert any("sybil" in s for s in matrix.scenarios) and any(
        "skew" in s for s in matrix.scenarios
    )


BAD_FLAGS = [
    ("vtime:0", "--consumers: 'vtime:0': a discipline needs at least 1 consumer"),
    ("vtime:x,baseline:1", "--consumers: 'vtime:x': the count after ':' must be a whole number"),
    ("vtime:1,,baseline:1", "--consumers: empty discipline in"),
    ("vtime:1,vtime:2", "--consumers: 'vtime' is listed twice"),
    ("vtime:40,baseline:30", "--consumers: 70 consumers in all; at most 64"),
    ("nope:1,baseline:1", "--consumers: unknown discipline 'nope'"),
    ("sfq:1,baseline:1", "--consumers: 'sfq' ranks in each consumer's own process"),
    ("three", "--consumers: expected a whole number (1 to 64) or a mix"),
]


@pytest.mark.parametrize(("form", "needle"), BAD_FLAGS)
def test_a_bad_mix_on_the_command_line_is_one_line_naming_the_flag(
    form: str, needle: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "r.json"
    assert main(["--headless", "--consumers", form, "--out", str(out)]) == ExitCode.USAGE
    assert needle in one_error_line(capsys)
    assert not out.exists()


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--headless", "--discipline", "vtime"], "--consumers: a mix (name:count,...) names"),
        (["--headless", "--matrix", "caps"], "--consumers: matrix 'caps' lists its own"),
        (["--discipline", "vtime"], "--consumers: a mix (name:count,...) names"),  # the app
        (["--compare", "vtime,baseline"], "--consumers: a mix runs in one lane; drop --compare"),
    ],
)
def test_a_mix_with_what_it_would_override_is_refused(
    args: list[str], needle: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = ["--out", str(tmp_path / "r.json")] if "--headless" in args else []
    assert main([*args, "--consumers", MIX, *out]) == ExitCode.USAGE
    assert needle in one_error_line(capsys)


MATRIX = 'scenarios = ["ck_skew"]\n'


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ('[[treatments]]\nconsumers = "vtime:zero"\n', "treatments[0].consumers: "),
        (
            '[[treatments]]\nconsumers = "sfq:2,baseline:1"\n',
            "treatments[0].consumers: 'sfq' ranks",
        ),
        (
            '[[treatments]]\ndiscipline = "vtime"\nconsumers = "vtime:1,baseline:1"\n',
            "drop 'discipline'",
        ),
        ('disciplines = ["vtime"]\nconsumers = "vtime:1,baseline:1"\n', "consumers: Input should"),
    ],
)
def test_a_bad_mix_in_a_matrix_file_names_the_file_and_field(
    text: str, needle: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "m.toml"
    path.write_text(MATRIX + text, encoding="utf-8")
    out = tmp_path / "r.json"
    assert main(["--headless", "--matrix", str(path), "--out", str(out)]) == ExitCode.USAGE
    line = one_error_line(capsys)
    assert needle in line and str(path) in line
    assert main(["validate", str(path)]) != 0
    capsys.readouterr()
