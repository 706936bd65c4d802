"""The step harness on the embedded Redis: the published anchor, the starvation shapes,
determinism, the per-call invariants, and bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import redis

from ckviz.cli import main
from ckviz.disciplines.vtime.door import state_keys
from ckviz.disciplines.vtime.knobs import VtimeKnobs, knobs_for
from ckviz.disciplines.vtime.values import VtimeDequeue
from ckviz.errors import ExitCode
from ckviz.inputs.scenario_files import load_any
from ckviz.metrics import step_figures
from ckviz.model.invariants import (
    FLOOR_MONOTONE,
    ONE_PLACE,
    TAG_MONOTONE,
    TAGS_KNOWN,
    BrokenInvariant,
)
from ckviz.model.matrix import Treatment
from ckviz.model.results import Results
from ckviz.model.steps import StepScenario, VtimeSettings
from ckviz.sim.cell.session import open_step_cell
from ckviz.sim.step_clock.runner import StepRunner
from ckviz.store.keys import ck_member
from tests.functional.cli_support import without_timing
from tests.functional.servers import redis_server  # noqa: F401  (6.2 and 7)
from tests.functional.test_bad_input import one_error_line

# SPEC-vtime section 7, ckSkew (baseline / vtime): the public anchor.
ANCHOR = {
    "baseline": dict(first=480, p50=556, p95=628, p99=636, jain="0.34", drain=636),
    "vtime": dict(first=4, p50=96, p95=188, p99=196, jain="1.00", drain=636),
}


def step_scenario(name: str) -> StepScenario:
    scenario = load_any(name)
    assert isinstance(scenario, StepScenario)
    return scenario


def run(client: redis.Redis, prefix: str, name: str, treatment: Treatment) -> StepRunner:
    with open_step_cell(client, step_scenario(name), treatment, prefix) as runner:
        runner.run()
    return runner


def key_serves(runner: StepRunner) -> dict[str, int]:
    """Serves per declared key, minted keys together, as the run's outcome counts them."""
    steps = runner.outcome().steps
    assert steps is not None
    return steps.key_serves


@pytest.mark.parametrize("discipline", ["baseline", "vtime", "vtime-v17"])
def test_the_published_ck_skew_row(client: redis.Redis, prefix: str, discipline: str) -> None:
    runner = run(client, prefix, "micro_skew", Treatment(discipline=discipline))
    steps = runner.outcome().steps
    assert steps is not None
    f = step_figures(runner.events, steps.victims, steps.contention, steps.drain_step, steps.calls)
    want = ANCHOR["baseline" if discipline == "baseline" else "vtime"]  # V17 = HEAD here
    got = dict(
        first=f.victim_first_serve,
        p50=f.victim_wait_p50,
        p95=f.victim_wait_p95,
        p99=f.victim_wait_p99,
        jain=f"{f.jain_nonzero:.2f}",
        drain=f.drain_step,
    )
    assert got == want


def test_v17_starves_a_backlog_against_draining_keys_head_gives_it_its_share(
    client: redis.Redis, prefix: str
) -> None:
    shares = {}
    for discipline in ("vtime", "vtime-v17"):
        runner = run(
            client,
            f"{prefix}{discipline}:",
            "vtime_drain_reregister",
            Treatment(discipline=discipline),
        )
        serves = key_serves(runner)
        shares[discipline] = serves["backlog"] / sum(serves.values())
        # every call has the backlog plus the refed trickle keys to choose from
        keys = len(runner.scenario.key_names())
    fair = 1 / keys
    assert shares["vtime"] >= 0.9 * fair
    assert shares["vtime-v17"] < 0.1 * fair


@pytest.mark.slow
def test_an_uncapped_arrival_lets_the_backlog_through_a_fresh_key_flood(
    client: redis.Redis, prefix: str
) -> None:
    at_floor = Treatment(discipline="vtime", vtime_arrival_cap=0.0)
    floor_runner = run(client, f"{prefix}floor:", "vtime_fresh_flood", at_floor)
    head_runner = run(client, f"{prefix}head:", "vtime_fresh_flood", Treatment(discipline="vtime"))
    calls = head_runner.scenario.harness.max_steps
    # one run per key per call: a key that is never outranked is served once per call
    assert key_serves(head_runner)["backlog"] == calls
    assert key_serves(floor_runner)["backlog"] < calls / 10
    assert floor_runner.in_redis is not None and floor_runner.in_redis.floor == 0.0  # pinned


def test_the_trace_says_what_each_pass_looked_at(client: redis.Redis, prefix: str) -> None:
    runner = run(client, prefix, "micro_sybil", Treatment(discipline="vtime"))
    first = runner.calls[0]
    assert isinstance(first.report, VtimeDequeue)  # the door's reader made it
    visits = first.report.visits
    served = [v.key for v in visits if v.fate == "served"]
    assert list(first.served) == served
    assert {v.passno for v in visits} <= {1, 2}
    assert all(v.tag == 1.0 for v in visits if v.fate == "served")


@pytest.mark.slow
def test_micro_matrix_is_deterministic(tmp_path: Path) -> None:
    outs = []
    for jobs in ("1", "2"):
        out = tmp_path / f"r{jobs}.json"
        code = main(["--headless", "--matrix", "micro", "--jobs", jobs, "--out", str(out)])
        assert code == ExitCode.OK
        outs.append(without_timing(json.loads(out.read_text())))
    assert outs[0] == outs[1]
    results = Results.model_validate(json.loads((tmp_path / "r1.json").read_text()))
    assert [s.name for s in results.scenarios] == list(results.matrix.scenarios)
    assert all(r.metrics.steps is not None for s in results.scenarios for r in s.runs)


class Tamper(StepRunner):
    """A runner that damages the vtime state between two calls, as a bug in the Lua would."""

    damage: str = ""

    def step(self) -> None:
        if self.t == 5:
            k = self.queue.keys
            # After two calls (env limit 1: a call every 4 steps): heavy 1, light0 1, the
            # other lights 0, floor 0; the next call serves light1.
            if self.damage == "floor":  # a floor lowered with the tags it is repaired from
                self.queue.client.set(state_keys(k).floor, "-1")
                lights = {ck_member(f"light{i}"): -1 for i in (1, 2, 3)}
                self.queue.client.zadd(state_keys(k).tags, lights, xx=True)
            elif self.damage == "tag":  # rewound, but not below the key the call serves
                self.queue.client.zadd(state_keys(k).tags, {ck_member("heavy"): 0.5}, xx=True)
            else:
                self.queue.client.zadd(state_keys(k).tags, {ck_member("nobody"): 99})
        super().step()


@pytest.mark.parametrize(
    ("damage", "invariant"),
    [("floor", FLOOR_MONOTONE), ("tag", TAG_MONOTONE), ("stranger", TAGS_KNOWN)],
)
def test_the_checks_catch_a_damaged_vtime_state(
    client: redis.Redis, prefix: str, damage: str, invariant: str
) -> None:
    with open_step_cell(
        client, step_scenario("micro_skew"), Treatment(discipline="vtime"), prefix
    ) as runner:
        tamper = Tamper(runner.scenario, "vtime", runner.queue)
        tamper.damage = damage
        with pytest.raises(BrokenInvariant) as caught:
            tamper.run()
    assert caught.value.invariant == invariant


class LoseARun(StepRunner):
    """A runner whose server loses a queued run of `heavy` between two calls."""

    def step(self) -> None:
        if self.t == 5:
            self.queue.client.zrem(self.queue.keys.ck_queue("heavy"), "heavy-119")
        super().step()


def test_the_step_clock_holds_its_books_against_each_calls_digest(
    client: redis.Redis, prefix: str
) -> None:
    with open_step_cell(
        client, step_scenario("micro_skew"), Treatment(discipline="baseline"), prefix
    ) as runner:
        lossy = LoseARun(runner.scenario, "baseline", runner.queue)
        with pytest.raises(BrokenInvariant) as caught:
            lossy.run()
    assert caught.value.invariant == ONE_PLACE and caught.value.keys == ("heavy",)
    assert "at step 8" in str(caught.value)  # the next call's (env limit 1: one every 4 steps)


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--vtime-quantum", "0"], "--vtime-quantum: must be above 0"),
        (["--vtime-quantum", "nan"], "--vtime-quantum: must be a finite number"),
        (["--vtime-quantum", "x"], "--vtime-quantum: invalid float value"),
        (["--vtime-window", "0"], "--vtime-window: must be at least 1"),
        (["--vtime-window", "1.5"], "--vtime-window: invalid int value"),
        (["--vtime-arrival-cap", "-1"], "--vtime-arrival-cap: must be at least 0"),
        (["--vtime-arrival-cap", "inf"], "--vtime-arrival-cap: must be a finite number"),
        (["--scenario", "micro_skew", "--discipline", "sfq"], "none of the disciplines"),
    ],
)
def test_bad_vtime_flags(args: list[str], needle: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--headless", *args]) == ExitCode.USAGE
    assert needle in one_error_line(capsys)


STEP = '[harness]\nkind = "steps"\n[[keys]]\nname = "a"\nruns = 2\n'


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ('victims = ["b"]\n' + STEP, "victims: 'b' is not one of the keys"),
        (STEP.replace('"steps"', '"ms"'), "harness.kind: Input should be 'steps'"),
        (STEP + "spacing = -1\n", "spacing: Input should be greater than or equal to 0"),
        (STEP + "hold = 3\n", "hold: Extra inputs are not permitted"),
        (STEP + '[arrivals]\nrefeed = ["z"]\n', "arrivals.refeed: 'z' is not one of the keys"),
        (STEP + "[vtime]\nquantum = 0\n", "vtime.quantum: Input should be greater than 0"),
    ],
)
def test_bad_step_scenario_files(
    text: str, needle: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "s.toml"
    path.write_text(text, encoding="utf-8")
    code = main(
        [
            "--headless",
            "--scenario",
            str(path),
            "--discipline",
            "vtime",
            "--out",
            str(tmp_path / "r.json"),
        ]
    )
    assert code == ExitCode.USAGE
    line = one_error_line(capsys)
    assert needle in line and str(path) in line


def test_knobs_come_from_the_treatment_then_the_scenario_then_the_defaults() -> None:
    scenario = step_scenario("micro_skew").model_copy(
        update={"vtime": VtimeSettings(quantum=2.0, arrival_cap=8.0)}
    )
    plain = knobs_for(scenario, Treatment(discipline="vtime"))
    assert (plain.quantum, plain.window, plain.arrival_cap_tags) == (2.0, 3, 16.0)
    treated = knobs_for(scenario, Treatment(discipline="vtime", vtime_arrival_cap=0.0))
    assert treated.arrival_cap_tags == 0.0 and treated.quantum == 2.0
    default = knobs_for(step_scenario("micro_skew"), Treatment(discipline="vtime"))
    assert default == VtimeKnobs()


def test_the_arrival_cap_flag_reaches_the_lua(tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    args = ["--headless", "--scenario", "vtime_fresh_flood", "--discipline", "vtime"]
    assert main([*args, "--vtime-arrival-cap", "0", "--out", str(out)]) == ExitCode.OK
    (shape,) = Results.model_validate_json(out.read_text()).scenarios
    (run,) = shape.runs
    assert run.metrics.key_serves is not None and run.metrics.key_serves["backlog"] == 1
    assert run.metrics.vtime_floor_final == 0.0  # new keys at the floor pin it
