"""The vtime section of the discipline pane: what the Lua keeps, read back, and the passes of
the last call (the app asks the dequeue for its trace); compare mode with vtime on a side."""

from __future__ import annotations

from collections.abc import Callable

import pytest
import redis

from ckviz.tui.app import CkvizApp
from ckviz.tui.screens.compare import CompareScreen, LaneView
from ckviz.tui.screens.main import MainScreen
from ckviz.tui.widgets.discipline.discipline import DisciplinePane
from ckviz.tui.widgets.queue.key_queues import KeyQueuesPane
from tests.tui.conftest import press, press_n, settle

MakeApp = Callable[..., CkvizApp]


def line(text: str, start: str) -> str:
    found = [ln.strip() for ln in text.splitlines() if ln.strip().startswith(start)]
    assert found, f"no line starting {start!r} in:\n{text}"
    return found[0]


def redis_tags(client: redis.Redis, namespace: str) -> dict[str, float]:
    """ckVtime of the one lane under `namespace`, key -> tag, as Redis holds it."""
    (name,) = [n for n in client.scan_iter(match=f"{namespace}*ckVtime") if n.endswith("ckVtime")]
    return {m.rsplit(":", 1)[1]: t for m, t in client.zrange(name, 0, -1, withscores=True)}


async def test_the_vtime_pane_shows_the_tags_redis_holds_and_the_last_calls_passes(
    make_app: MakeApp, tui_client: redis.Redis, namespace: str
) -> None:
    app = make_app("ck_skew", "vtime")
    async with app.run_test(size=(140, 50)) as pilot:
        await settle(pilot)
        await press_n(pilot, 9)
        screen = app.screen
        assert isinstance(screen, MainScreen)
        pane = screen.query_one(DisciplinePane).plain
        assert line(pane, "vtime head").startswith("vtime head · floor")
        tags = line(pane, "tags (pass 1 order):").split(":", 1)[1].split()
        shown = dict(zip(tags[::2], map(float, tags[1::2]), strict=True))
        assert shown == redis_tags(tui_client, namespace) and shown
        assert line(pane, "idle (parked):")
        passes = pane[pane.index("pass 1:") :]
        assert "served" in passes  # every call of ck_skew's first instants serves someone
        assert line(pane, "pass 2:")


async def test_vtime_v17_has_no_idle_set_and_says_what_each_candidate_met(
    make_app: MakeApp,
) -> None:
    app = make_app("ck_balanced", "vtime-v17")
    async with app.run_test(size=(140, 50)) as pilot:
        await settle(pilot)
        await press_n(pilot, 20)
        pane = app.screen.query_one(DisciplinePane).plain
        assert "vtime v17" in pane and "idle (parked)" not in pane
        passes = pane[pane.index("pass 1:") :]
        fates = ("served", "at its limit", "head not ready", "outside the window", "empty")
        assert any(f in passes for f in fates)


@pytest.mark.slow
async def test_compare_mode_with_vtime_on_either_side(make_app: MakeApp) -> None:
    for left, right in (("vtime", "baseline"), ("baseline", "vtime-v17")):
        app = make_app("ck_skew", left, compare_with=right)
        async with app.run_test(size=(160, 50)) as pilot:
            await settle(pilot)
            await press_n(pilot, 12)
            screen = app.screen
            assert isinstance(screen, CompareScreen)
            views = list(screen.query(LaneView))
            assert [v.border_title for v in views] == [left, right]
            for view in views:
                assert "light-1" in view.query_one(KeyQueuesPane).plain
            assert app.player.error is None
            for view, name in zip(views, (left, right), strict=True):
                compact = view.query_one(DisciplinePane).plain
                if name.startswith("vtime"):  # the compact pane still shows the vtime state
                    assert "floor" in compact and "pass 1:" in compact, compact
                else:
                    assert "tags (pass 1 order)" not in compact


@pytest.mark.slow
async def test_a_step_without_a_call_says_so_and_shows_the_last_calls_passes_as_earlier(
    make_app: MakeApp,
) -> None:
    app = make_app("micro_skew", "vtime")
    async with app.run_test(size=(140, 50)) as pilot:
        await settle(pilot)
        # env limit 1, hold 3 (SPEC-vtime 7): calls at 0, 4, 8 serve; step 9 finds the env full
        await press(pilot, ":", "9", "enter")
        pane = app.screen.query_one(DisciplinePane).plain
        assert line(pane, "no call this step"), pane
        assert line(pane, "earlier: call #3 at step 8, its passes:"), pane
        assert "last call (#" not in pane, pane  # it read 'last call (#3)' and no pass
        passes = pane[pane.index("pass 1:") :]
        assert "served" in passes, pane  # step 8's call served a key
        await press(pilot, ":", "1", "2", "enter")  # step 12 calls again: its own passes
        pane = app.screen.query_one(DisciplinePane).plain
        assert "no call this step" not in pane and "last call (#4)" in pane, pane
