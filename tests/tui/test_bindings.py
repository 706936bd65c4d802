"""One table of keys (ckviz/tui/bindings.py): the app's and the screens' bindings, the palette,
the footer's offers and the help are all made from it, so none can drift from the others."""

from __future__ import annotations

from textual.binding import Binding, BindingType

from ckviz.tui.app import CkvizApp
from ckviz.tui.bindings import BY_ID, KEYS, palette_commands
from ckviz.tui.commands import CkvizCommands
from ckviz.tui.context import Context, footer_offers
from ckviz.tui.screens.compare import CompareScreen
from ckviz.tui.screens.help import help_text
from ckviz.tui.screens.lane_screen import LaneScreen
from ckviz.tui.screens.main import MainScreen
from tests.tui.conftest import SIZE, settle
from tests.tui.fake_source import HandMade, frame

SITUATIONS = [
    Context(),
    Context(playing=True),
    Context(done=True),
    Context(replay=True, compare=True),
    Context(steps=True, filtered=True),
    Context(pane="queues", zoomed=True),
    Context(typing=True),
]


def ckviz_bindings(bindings: list[BindingType]) -> list[Binding]:
    out = [b for b in bindings if isinstance(b, Binding)]
    assert len(out) == len(bindings)
    return out


def test_every_binding_of_the_app_and_its_screens_is_a_row_of_the_table() -> None:
    bound = [
        *ckviz_bindings(CkvizApp.BINDINGS),
        *ckviz_bindings(MainScreen.BINDINGS),
        *ckviz_bindings(CompareScreen.BINDINGS),
    ]
    ids = [b.id for b in bound]
    assert len(ids) == len(set(ids))
    assert set(ids) == {key.binding_id for key in KEYS if key.keys}
    for binding in bound:
        key = BY_ID[binding.id or ""]
        assert (binding.key, binding.action, binding.description, binding.show) == (
            key.keys,
            key.bound_action,
            key.description,
            key.show,
        )


def test_every_action_has_its_owner() -> None:
    """An `app` key's action is the app's, a `screen` key's both screens', a mode's its
    screen's: no action bound to nothing, none shadowed by a second definition."""
    owners = {
        "app": [CkvizApp],
        "screen": [MainScreen, CompareScreen],
        "single": [MainScreen],
        "compare": [CompareScreen],
    }
    for key in KEYS:
        name = "action_" + key.action.split("(")[0]
        for owner in owners[key.context]:
            assert callable(getattr(owner, name, None)), (owner.__name__, name)
        if key.context == "screen":
            assert name in vars(LaneScreen) and name not in vars(CkvizApp), name


def test_the_footer_offers_only_actions_of_the_table() -> None:
    actions = {key.action for key in KEYS if key.show} | {"clear"}  # the filter bar's esc
    for situation in SITUATIONS:
        assert set(footer_offers(situation)) <= actions, situation


def test_the_help_lists_every_key_and_every_palette_command() -> None:
    text = help_text()
    assert "<!--" not in text
    for key in KEYS:
        if key.keys and key.show:
            assert key.shown_keys in text, key.name
        if key.help:
            assert key.help in text, key.name
    for key in palette_commands():
        assert key.title is not None
        assert key.title.removesuffix("…").lower() in text, key.title


async def test_the_palette_is_the_tables_commands_and_each_runs_its_keys_action() -> None:
    keys = ("heavy", "light-0")
    app = CkvizApp(HandMade(*(frame(keys, 0, n) for n in range(1, 30))), "ck_skew", "baseline")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        provider = CkvizCommands(app.screen)
        hits = [hit async for hit in provider.discover()]
        titles = [key.title for key in palette_commands()]
        assert [str(hit.display) for hit in hits] == titles and len(set(titles)) == len(titles)
        step_10 = titles.index("Step 10 dequeue rounds")
        await hits[step_10].command()  # type: ignore[misc]
        await settle(pilot)
        assert app.player.recording.current is not None
        assert app.player.recording.current.snapshots[0].step > 1
        await pilot.press("q")
