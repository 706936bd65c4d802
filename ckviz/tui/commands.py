"""ckviz's actions in the command palette (ctrl+p): stepping, going to a time, running until a
key is served, opening a scenario file, filtering, export."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

from textual.command import DiscoveryHit, Hit, Hits, Provider

if TYPE_CHECKING:
    from ckviz.tui.app import CkvizApp

STEP_COUNTS = (10, 100, 1000)


class CkvizCommands(Provider):
    """Every ckviz action by name, so nothing needs its key remembered."""

    def _commands(self) -> list[tuple[str, Callable[[], object], str]]:
        app: CkvizApp = self.app  # type: ignore[assignment]
        steps = [
            (f"Step {n} dequeue rounds", partial(app.action_step_many, n), f"{n} rounds at once")
            for n in STEP_COUNTS
        ]
        go_to = "Go to step…" if app.steps else "Go to time…"
        return [
            (
                "Run to the end",
                app.action_run_to_end,
                "every remaining round, last frame shown (>)",
            ),
            *steps,
            (go_to, app.action_go_to, "the first frame at or after it; back replays (:)"),
            (
                "Run until a key is served…",
                app.action_run_until_served,
                "pick a key; stops when a run of it is dequeued (u)",
            ),
            ("Open a scenario file…", app.action_open_scenario_file, "a .toml by path (ctrl+o)"),
            ("Filter keys…", app.action_filter, "fuzzy by name, in every pane (/)"),
            (
                "Export screenshot and figures",
                app.action_export,
                "SVG, JSON and CSV in this folder (x)",
            ),
            ("Pick discipline", partial(app.action_pick_discipline, 0), "d"),
            ("Pick scenario", app.action_pick_scenario, "s"),
            ("Pick seed", app.action_pick_seed, "e"),
            ("Compare mode on / off", app.action_compare, "c"),
            ("Restart", app.action_restart, "r"),
            ("Help", app.action_help, "?"),
        ]

    async def discover(self) -> Hits:
        for name, run, help_text in self._commands():
            yield DiscoveryHit(name, run, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for name, run, help_text in self._commands():
            if (score := matcher.match(name)) > 0:
                yield Hit(score, matcher.highlight(name), run, help=help_text)
