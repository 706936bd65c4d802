"""A server restarted between two cells of a matrix (same address, empty memory) is noticed at
the next cell's start, by the server's run id, and stops the matrix as a lost server does.

Between cells no connection is in use: the pool would open a new one onto the new server
without a word, and the matrix would go on in a namespace whose claim is gone. The restart is
made by the test, after the first cell's end and before the second's start, so the outcome does
not depend on how fast the machine is."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import ckviz.headless.runner as runner
from ckviz.errors import ExitCode
from ckviz.headless.cells import Cell, CellOutcome, Clients, StopAsked
from tests.functional.cli_support import exits
from tests.functional.trust_support import OwnRedis, own_redis

TWO_CELLS = ("--scenario", "ck_trickle", "--discipline", "sfq", "--seeds", "seed-a,seed-b")


def restart_after_first_cell(monkeypatch: pytest.MonkeyPatch, server: OwnRedis) -> list[int]:
    """Restart `server` once the first cell has ended (the restart returns once the new
    server answers); the indices of the cells that ran."""
    ran: list[int] = []
    run_cell = runner.run_cell

    def run_then_restart(
        url: str, cell: Cell, clients: Clients | None = None, stop: StopAsked | None = None
    ) -> CellOutcome:
        outcome = (
            run_cell(url, cell, clients) if stop is None else run_cell(url, cell, clients, stop)
        )
        ran.append(cell.index)
        if len(ran) == 1:
            server.restart()
        return outcome

    monkeypatch.setattr(runner, "run_cell", run_then_restart)
    return ran


def test_a_server_restarted_between_cells_stops_the_matrix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "r.json"
    with own_redis() as server:
        ran = restart_after_first_cell(monkeypatch, server)
        args = ["--headless", *TWO_CELLS, "--jobs", "1", "--redis-url", server.url]
        code, _, err = exits([*args, "--out", str(out)], capsys)
        assert server.client().keys("*") == []  # the second cell wrote nothing
    assert code == ExitCode.REDIS, err
    (error,) = [line for line in err.splitlines() if line.startswith("ckviz: error")]
    assert "ck_trickle/sfq/seed-b: the Redis server restarted since the matrix began" in error
    assert ran == [0, 1]
    results = json.loads(out.read_text())
    assert results["complete"] is False
    assert [len(s["runs"]) for s in results["scenarios"]] == [1]


def test_the_same_server_throughout_runs_every_cell(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "r.json"
    with own_redis() as server:
        args = ["--headless", *TWO_CELLS, "--jobs", "1", "--redis-url", server.url]
        code, _, err = exits([*args, "--out", str(out)], capsys)
    assert code == 0, err
    assert json.loads(out.read_text())["complete"] is True
