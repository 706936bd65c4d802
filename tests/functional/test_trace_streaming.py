"""A trace replayed as its clock goes, on the real embedded Redis: the books keep only the runs
in the system, and the run is the one the whole workload held in memory gives."""

from __future__ import annotations

from pathlib import Path

import pytest
import redis

from ckviz.inputs import scenario_files
from ckviz.metrics import outcome_metrics
from ckviz.model.matrix import Treatment
from ckviz.sim.cell.session import open_cell
from ckviz.sim.millisecond_clock import driver as driver_module
from ckviz.sim.millisecond_clock.driver import Driver


def steady_trace(folder: Path, runs: int) -> Path:
    """`runs` runs of four keys, one every 2 ms, each holding 3 ms: few in the system at once."""
    lines = [f"k{i % 4},{2 * i},3" for i in range(runs)]
    path = folder / "steady.csv"
    path.write_text("key,arrival_ms,hold_ms\n" + "\n".join(lines) + "\n", encoding="utf-8")
    return path


def replayed(
    client: redis.Redis, prefix: str, path: Path, discipline: str, *, whole: bool
) -> tuple[Driver, int]:
    """The driver after the run, and the most runs its books kept at once. `whole`: the
    workload held up front (as the app's lanes hold it), else streamed."""
    scenario = scenario_files.load(str(path))
    cell = open_cell(
        client, scenario, "seed-a", Treatment(discipline=discipline), prefix, history=whole
    )
    most = 0
    with cell as driver:
        while not driver.done:
            driver.step_instant(watched=False)
            most = max(most, driver.ledger.runs_in_system)
    return driver, most


@pytest.mark.parametrize("discipline", ["baseline", "vtime", "sfq"])
def test_a_streamed_trace_keeps_only_the_runs_in_the_system_and_runs_the_same(
    client: redis.Redis, prefix: str, tmp_path: Path, discipline: str
) -> None:
    path = steady_trace(tmp_path, 600)
    streamed, most = replayed(client, f"{prefix}s:", path, discipline, whole=False)
    held, _ = replayed(client, f"{prefix}w:", path, discipline, whole=True)
    assert streamed.ledger.workload == [] and len(held.ledger.workload) == 600
    assert most <= 4  # never the whole day: at the end, the runs still holding slots
    assert streamed.ledger.runs_in_system == len(streamed.ledger.holds)
    assert list(streamed.events) == list(held.events) and len(streamed.events) == 600
    assert outcome_metrics(streamed.outcome()) == outcome_metrics(held.outcome())


def test_a_run_tells_its_progress_as_it_goes(
    client: redis.Redis, prefix: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(driver_module, "PROGRESS_ROUNDS", 50)
    scenario = scenario_files.load(str(steady_trace(tmp_path, 600)))
    heard: list[tuple[int, int]] = []
    with open_cell(client, scenario, "seed-a", Treatment(discipline="baseline"), prefix) as d:
        d.run(progress=lambda done, t: heard.append((done, t)))
    assert len(heard) >= 10 and heard == sorted(heard)  # runs done and time only go forward
    assert 0 < heard[0][0] < heard[-1][0] <= 600 and heard[-1][1] <= d.t
