"""A worker of one place (`--jobs` no more than the cores) runs its cells one after the other
outside any hub, each reading its own socket; the parent's word reaches a cell in flight when
it asks whether to stop, and the cell's outcome still goes back."""

from __future__ import annotations

import multiprocessing
from typing import Any

import pytest

from ckviz.headless import workers
from ckviz.headless.cells import CellOutcome
from ckviz.headless.workers import STOP_CELLS
from ckviz.store import turns


def test_cells_run_in_turn_outside_a_hub_and_hear_a_stop(monkeypatch: pytest.MonkeyPatch) -> None:
    parent, child = multiprocessing.Pipe()
    seen: list[tuple[int, bool, bool]] = []  # cell, in a hub's task, the stop asked at its end

    def run_cell(url: str, cell: int, clients: Any, stop: Any) -> CellOutcome:
        before = stop()
        if cell == 1:  # the parent asks the cells in flight to stop while this one runs
            parent.send(STOP_CELLS)
        seen.append((cell, turns.current() is not None, stop()))
        assert not before
        return CellOutcome(cell, None)

    monkeypatch.setattr(workers, "run_cell", run_cell)
    for place in (0, 1):
        parent.send(place)
    parent.send(None)
    workers._one_place(child, "redis://unused", [0, 1])  # type: ignore[list-item]
    assert seen == [(0, False, False), (1, False, True)]
    assert [parent.recv()[0], parent.recv()[0]] == [0, 1]  # each outcome sent back, in turn


def test_a_parent_gone_mid_cell_lets_the_cell_finish(monkeypatch: pytest.MonkeyPatch) -> None:
    parent, child = multiprocessing.Pipe()
    finished: list[int] = []

    def run_cell(url: str, cell: int, clients: Any, stop: Any) -> CellOutcome:
        parent.close()  # the parent dies while the cell runs
        assert stop() is False  # not a stop: the cell runs to its end
        finished.append(cell)
        return CellOutcome(cell, None)

    monkeypatch.setattr(workers, "run_cell", run_cell)
    parent.send(0)
    workers._one_place(child, "redis://unused", [0])  # type: ignore[list-item]
    assert finished == [0]
