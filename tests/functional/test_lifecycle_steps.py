"""The run lifecycle on the step clock, on the real embedded Redis: the TTL consumer sweeps at
its interval (not only a dequeue meeting an expired head), each frame carries the lifecycle
view the millisecond clock's frames carry (runs waiting for their retry, expired and
dead-lettered counts, the TTL queue), and in a mix the event log names who finished a run."""

from __future__ import annotations

import redis

from ckviz.model.matrix import Treatment
from ckviz.model.steps import StepScenario
from ckviz.sim.cell.session import open_step_cell
from ckviz.sim.engine.life_commands import DriverLife
from ckviz.sim.step_clock.runner import StepRunner

HARNESS = {"kind": "steps", "max_count": 2, "hold_steps": 2, "max_steps": 300, "step_ms": 100}


def scenario(sweep_ms: int, consumers: int | str = 1) -> StepScenario:
    """A backlog ahead of a light key whose runs expire 300 ms (three steps) after their
    enqueue, and a key whose runs fail twice before they succeed (or are dead-lettered)."""
    return StepScenario.model_validate(
        {
            "name": "steps-life",
            "env_limit": 2,
            "consumers": consumers,
            "harness": HARNESS,
            "retry": {"max_attempts": 3, "factor": 1, "min_timeout_ms": 400, "randomize": False},
            "ttl": {"sweep_ms": sweep_ms},
            "keys": [
                {"name": "backlog", "runs": 30},
                {"name": "light", "runs": 6, "start": 1000, "ttl_ms": 300},
                {"name": "flaky", "runs": 4, "start": 500, "fail_rate": 1.0, "fail_attempts": 2},
                {"name": "doomed", "runs": 2, "start": 600, "fail_rate": 1.0, "fail_attempts": 5},
            ],
        }
    )


def swept(runner: StepRunner) -> set[str]:
    assert isinstance(runner.life, DriverLife)
    return runner.life.life.swept


def test_the_step_clock_sweeps_the_ttl_queue_at_its_interval(
    client: redis.Redis, prefix: str
) -> None:
    treatment = Treatment(discipline="baseline")
    with open_step_cell(client, scenario(sweep_ms=200), treatment, f"{prefix}s:") as runner:
        runner.run()
    # the light runs wait behind the backlog (age order) and expire: the sweep takes them
    assert runner.life.tallies is not None and runner.life.tallies["light"].expired > 0
    assert swept(runner) and all(run_id.startswith("light") for run_id in swept(runner))
    with open_step_cell(client, scenario(sweep_ms=0), treatment, f"{prefix}n:") as unswept:
        unswept.run()
    assert not swept(unswept)  # no sweep: only a dequeue meeting an expired head drops it


def test_a_step_frame_carries_the_lifecycle_view(client: redis.Redis, prefix: str) -> None:
    seen_waiting = seen_dead = seen_expiry = False
    with open_step_cell(
        client, scenario(sweep_ms=200), Treatment(discipline="vtime"), prefix
    ) as runner:
        while not runner.done:
            runner.step()
            life = runner.snapshot().life
            assert life is not None
            flaky = life.keys["flaky"]
            if flaky.waiting:  # a nacked run waits for its retry time, due at a later step
                assert flaky.next_due is not None and flaky.next_due > runner.t - 1
                seen_waiting = True
            seen_dead |= life.keys["doomed"].dead_lettered > 0
            seen_expiry |= bool(life.next_expiries) and life.next_sweep is not None
            kinds = {e.kind for e in runner.snapshot().recent}
            assert kinds <= {"dequeue", "ack", "nack", "dead", "expire"}
    assert seen_waiting and seen_dead and seen_expiry
    assert life.keys["flaky"].retries == 8 and life.keys["doomed"].dead_lettered == 2


def test_in_a_mix_the_step_clocks_event_log_names_who_called(
    client: redis.Redis, prefix: str
) -> None:
    mix = Treatment(discipline="vtime:1+baseline:1", consumers="vtime:1,baseline:1")
    by_kind: dict[str, set[str]] = {}
    with open_step_cell(client, scenario(sweep_ms=200), mix, prefix, seed="s") as runner:
        while not runner.done:
            runner.step()
            for event in runner.recent:
                assert event.by is not None or event.kind == "expire"
                by_kind.setdefault(event.kind, set()).add(event.by or "")
    assert by_kind["dequeue"] == by_kind["ack"] == {"c1 vtime", "c2 baseline"}
    assert by_kind["nack"] and by_kind["dead"]
