"""The terminal app on a replayed trace."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from ckviz.tui.app import CkvizApp
from tests.functional.test_trace_replay import noisy_trace
from tests.tui.conftest import SIZE, press, settle


async def test_the_app_steps_through_a_trace(
    tmp_path: Path, make_app: Callable[..., CkvizApp]
) -> None:
    app = make_app(str(noisy_trace(tmp_path)), "sfq")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "n", "n", "n")
        snapshot = app.player.recording.current.snapshots[0]  # type: ignore[union-attr]
        assert snapshot.total_runs == 68 and snapshot.dequeued > 0
        assert {row.key for row in snapshot.keys} == {"flood", "light"}
