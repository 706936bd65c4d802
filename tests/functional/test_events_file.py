"""`--events FILE`: every dequeue as JSON Lines, in cell order, and never in the results."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import redis

from ckviz.cli import main
from ckviz.errors import ExitCode
from ckviz.headless.events import EventLine, spooling
from ckviz.inputs import scenario_files
from ckviz.model.key_columns import to_rows
from ckviz.model.matrix import Treatment
from ckviz.sim.clocks import EngineOptions, open_engine
from ckviz.store.server import RedisServer
from tests.functional.cli_support import headless

# a millisecond scenario and a step one (whose times are in steps), two workers
MATRIX = """
scenarios = ["ck_trickle", "micro_skew"]
seeds = ["seed-a"]
disciplines = ["baseline", "vtime"]
"""


def test_every_dequeue_is_a_line_in_cell_order(redis_server: RedisServer, tmp_path: Path) -> None:
    matrix = tmp_path / "m.toml"
    matrix.write_text(MATRIX)
    out, events = tmp_path / "results.json", tmp_path / "events.jsonl"
    assert headless(redis_server, matrix, out, "--events", str(events), "--jobs", "2") == 0
    results = json.loads(out.read_text())
    assert "run_id" not in out.read_text()  # the log is not in the results file
    lines = [json.loads(line) for line in events.read_text().splitlines()]
    cells = [
        (s["name"], r["treatment"], r["seed"], r) for s in results["scenarios"] for r in s["runs"]
    ]
    at = 0
    for scenario, treatment, seed, run in cells:
        total = run["metrics"]["total_dequeued"]
        mine = lines[at : at + total]
        at += total
        assert {(e["scenario"], e["treatment"], e["seed"]) for e in mine} == {
            (scenario, treatment, seed)
        }
        unit = "step" if scenario == "micro_skew" else "ms"
        assert all(e[f"wait_{unit}"] == e[f"dequeued_{unit}"] - e[f"arrival_{unit}"] for e in mine)
        served = {row["key"]: row["dequeued"] for row in to_rows(run["metrics"]["per_key"])}
        assert {k: sum(e["key"] == k for e in mine) for k in served} == served
        if unit == "ms":  # the log's waits are the figures' waits
            worst = max(e["wait_ms"] for e in mine)
            assert worst == run["metrics"]["worst_wait_max"]
    assert at == len(lines) and len(cells) == 4


def test_a_cells_dequeues_are_spooled_as_they_happen_and_kept_nowhere(
    client: redis.Redis, prefix: str, tmp_path: Path
) -> None:
    scenario = scenario_files.load("ck_trickle")
    spool = tmp_path / "cell.jsonl"
    written: list[str] = []
    with spooling(spool, EventLine("ck_trickle", "baseline", "s", "ms")) as write:

        def heard(key: str, run_id: str, arrival: int, dequeued: int) -> None:
            written.append(run_id)
            write(key, run_id, arrival, dequeued)

        options = EngineOptions(keep_events=False, on_dequeue=heard)
        baseline = Treatment(discipline="baseline")
        with open_engine(client, scenario, "s", baseline, prefix, options) as engine:
            while not engine.done and len(engine.ledger.dequeues) < 10:
                engine.step()
            before_the_end = len(engine.ledger.dequeues)
            assert len(written) == before_the_end  # each written as it happened
            engine.run()
            assert engine.ledger.events == []  # the log is not kept: it went to the file
            served = len(engine.ledger.dequeues)
        engine.run()
    lines = [json.loads(line) for line in spool.read_text().splitlines()]
    assert 10 <= before_the_end < served == len(lines) == scenario.total_runs
    assert [e["dequeued_ms"] for e in lines] == sorted(e["dequeued_ms"] for e in lines)


def test_a_bad_events_path_is_one_line_before_any_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    taken = tmp_path / "taken.jsonl"
    taken.write_text("x\n")
    out = str(tmp_path / "r.json")
    cases = [
        (["--out", "-", "--events", "-"], "--events: stdout already holds the results"),
        (["--out", out, "--events", out], "is the results file (--out)"),
        (["--out", out, "--events", str(tmp_path / "no" / "e.jsonl")], "does not exist"),
        (["--out", out, "--events", str(taken)], "already exists; pass --force"),
        (["--out", out, "--events", str(tmp_path)], "is a directory"),
    ]
    for flags, says in cases:
        code = main(["--headless", "--scenario", "ck_trickle", "--seeds", "s", *flags])
        assert code == ExitCode.USAGE
        (line,) = capsys.readouterr().err.splitlines()
        assert line.startswith("ckviz: error: --events: ") and says in line, line
    assert taken.read_text() == "x\n" and not Path(out).exists()
