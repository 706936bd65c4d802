"""The app's setup changes: restart, compare mode, and the discipline / scenario / seed pickers."""

from __future__ import annotations

import contextlib
from dataclasses import replace
from typing import TYPE_CHECKING

from textual.app import App

from ckviz.defaults import DEFAULT_SEEDS
from ckviz.disciplines.registry import DEFAULT_DISCIPLINES
from ckviz.errors import CkvizError
from ckviz.inputs.scenario_files import bundled_names
from ckviz.inputs.scenario_files import load_any as load
from ckviz.tui.decision import RULES
from ckviz.tui.screens.pickers import Picker

if TYPE_CHECKING:
    from ckviz.tui.lanes import Setup


def scenario_descriptions(names: list[str]) -> dict[str, str]:
    """Each bundled scenario's one-line description (a file that fails to load: none)."""
    descriptions = {}
    for name in names:
        with contextlib.suppress(CkvizError):
            descriptions[name] = load(name).description
    return descriptions


class SetupActions(App[int]):
    """CkvizApp's base: each action here starts a fresh setup through the app's `_start`."""

    setup: Setup
    _home_lane: int
    _closed: bool

    def _start(self, setup: Setup) -> None:
        raise NotImplementedError

    def action_restart(self) -> None:
        if not self._closed:
            self._start(self.setup)

    def action_compare(self) -> None:
        disciplines = self.setup.disciplines
        if len(disciplines) > 1:
            chosen: tuple[str, ...] = (disciplines[self._home_lane],)
        elif disciplines[0] == "baseline":
            chosen, self._home_lane = ("baseline", "sfq"), 0
        else:
            chosen, self._home_lane = ("baseline", disciplines[0]), 1
        self._start(replace(self.setup, disciplines=chosen))

    def action_pick_discipline(self, lane: int) -> None:
        lane = lane if lane < len(self.setup.disciplines) else 0
        current = self.setup.disciplines[lane]
        title = "Discipline" + (f" · {'left' if lane == 0 else 'right'} lane" if
                                self.setup.compare else "")  # fmt: skip

        def chosen(name: str | None) -> None:
            if name and name != current:
                disciplines = list(self.setup.disciplines)
                disciplines[lane] = name
                self._start(replace(self.setup, disciplines=tuple(disciplines)))

        picker = Picker(title, DEFAULT_DISCIPLINES, current, descriptions=RULES)
        self.push_screen(picker, chosen)

    def action_pick_scenario(self) -> None:
        current = self.setup.scenario.name
        names = bundled_names()
        choices = names if current in names else [current, *names]

        def chosen(name: str | None) -> None:
            if not name or name == current:
                return
            try:
                scenario = load(name)
            except CkvizError as exc:
                self.notify(str(exc), severity="error")
                return
            self._start(replace(self.setup, scenario=scenario))

        self.push_screen(Picker("Scenario", choices, current,
                                descriptions=scenario_descriptions(names)), chosen)  # fmt: skip

    def action_pick_seed(self) -> None:
        current = self.setup.seed

        def chosen(seed: str | None) -> None:
            if seed and seed != current:
                self._start(replace(self.setup, seed=seed))

        seeds = list(dict.fromkeys([*DEFAULT_SEEDS, current]))
        self.push_screen(Picker("Seed", seeds, current, custom="any seed"), chosen)
