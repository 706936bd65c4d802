"""Issue 11: below 100 columns the panes stack full width instead of squeezing; wider they sit
side by side; the play state is never cut and no two panes overlap."""

from __future__ import annotations

from collections.abc import Callable
from itertools import combinations

import pytest

from ckviz.tui.app import CkvizApp
from ckviz.tui.widgets.bars.status import StatusBar
from ckviz.tui.widgets.pane import Pane
from ckviz.tui.widgets.queue.key_queues import columns
from tests.tui.conftest import press, settle

pytestmark = pytest.mark.slow

MakeApp = Callable[..., CkvizApp]


@pytest.mark.parametrize(("width", "height"), [(80, 24), (99, 30), (120, 36), (200, 50)])
async def test_panes_stack_when_narrow_and_never_overlap(
    make_app: MakeApp, width: int, height: int
) -> None:
    app = make_app("ck_skew", "sfq")
    async with app.run_test(size=(width, height)) as pilot:
        await settle(pilot)
        await press(pilot, "n", "n", "n")
        panes = list(app.screen.query(Pane))
        narrow = width < 100
        assert app.screen.has_class("-narrow") == narrow
        if narrow:  # one column, full width, one under the other (the stack scrolls)
            assert {p.region.x for p in panes} == {0}
            assert all(p.outer_size.width >= width - 1 for p in panes)
            tops = [p.parent.virtual_region.y + p.virtual_region.y for p in panes]  # type: ignore[union-attr]
            assert tops == sorted(tops) and len(set(tops)) == len(tops)
        else:
            assert len({p.region.x for p in panes}) >= 3
        for a, b in combinations(panes, 2):
            assert not a.region.overlaps(b.region), (a.id, b.id)
        status = app.screen.query_one(StatusBar).text.plain.splitlines()[1]
        assert status.startswith(" paused · play speed")  # the play state comes first
        for (
            pane
        ) in panes:  # rows are cut at the pane's edge (an ellipsis or the border), never wrapped
            assert all(pane.rows[i].no_wrap for i in range(len(pane.rows)))
        await press(pilot, "4")  # focusing a pane below the fold scrolls it into view
        focused = app.focused
        assert isinstance(focused, Pane) and focused.region.height > 0
        await press(pilot, "z")  # zoomed, it fills the screen between status and footer
        assert app.screen.maximized is focused and focused.region.height >= height - 6
        await pilot.press("q")


def test_per_key_columns_give_way_least_telling_first() -> None:
    names = lambda room: [name for name, _ in columns(room)[0]]  # noqa: E731
    assert names(80) == ["queued", "arrive", "out", "age", "wait"] and columns(80)[1] >= 6
    assert names(36) == ["queued", "out", "age", "wait"] and columns(36)[1] >= 6  # arrive first
    assert names(29) == ["queued", "out", "age", "wait"] and columns(29)[1] == 0  # then the bar
    assert names(25) == ["queued", "age", "wait"]  # then out
    assert names(20) == ["queued", "wait"]  # then age: queued and wait stay
