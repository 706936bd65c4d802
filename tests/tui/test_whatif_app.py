"""`ckviz whatif`'s fork in the app's compare mode: both lanes start from the forked state, its
held runs holding their slots from the first frame, and step on from it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from ckviz.live.state import QueueState
from ckviz.live.whatif import fork_of, write_fork
from ckviz.tui.app import CkvizApp
from tests.tui.conftest import SIZE, settle

MakeApp = Callable[..., CkvizApp]


def forked(folder: Path) -> Path:
    """A fork made by hand from a state as a read returns it: two runs held, five queued."""
    state = QueueState(queue=None, read_ms=1_000_000)  # type: ignore[arg-type]  # not read
    state.env_limit = 3
    state.held = {"acme": {"h1", "h2"}, "tiny": set()}
    state.queued = {"acme": [(f"a{i}", 990_000 + i) for i in range(4)], "tiny": [("t0", 999_000)]}
    state.env_held = {"h1", "h2"}
    return write_fork(folder, fork_of(state, lambda key: 40), "whatif", ["a test's fork"])


async def test_both_lanes_start_from_the_forked_state(make_app: MakeApp, tmp_path: Path) -> None:
    app = make_app(str(forked(tmp_path)), "baseline", compare_with="vtime")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("space")
        await settle(pilot)
        frame = app.player.recording.current
        assert frame is not None and len(frame.snapshots) == 2
        for snapshot in frame.snapshots:
            held = {run.run_id for run in snapshot.held}
            assert {"h1", "h2"} <= held  # held from the start, as in the watched queue
            assert len(held) <= 3  # the env's limit: one slot left for the queued runs
