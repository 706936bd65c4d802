"""The app's ways to move around: panes (focus, zoom, sort), the `/` key filter, go to a time or
step, run until a key is served, open a scenario file by path; the situation the footer reads."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from textual.widgets import Input

from ckviz.errors import CkvizError
from ckviz.inputs.scenario_files import load_any
from ckviz.model.names import natural_key
from ckviz.model.snapshot import SORTS, ViewRequest
from ckviz.model.steps import StepScenario
from ckviz.sim.steps import STEP_DISCIPLINES
from ckviz.tui.context import Context
from ckviz.tui.filter import NO_FILTER, KeyFilter, fuzzy_match
from ckviz.tui.jumps import Jump, go_to, replay_to, until_served
from ckviz.tui.screens.pickers import Picker
from ckviz.tui.screens.prompt import Prompt
from ckviz.tui.setup_actions import SetupActions
from ckviz.tui.widgets.filter_bar import FilterBar
from ckviz.tui.widgets.key_queues import KeyQueuesPane
from ckviz.tui.widgets.pane import Pane

if TYPE_CHECKING:
    from ckviz.inputs.scenario_files import AnyScenario
    from ckviz.tui.lanes import Frame, LaneSource
    from ckviz.tui.recording import Recording

JumpJob = Callable[[], Jump]
VIEW_ROWS = 100  # per-key rows (and ckIndex entries) a frame carries: more than a screen shows
PICK_LIMIT = 1000  # keys listed by `u`'s picker (10,000 options take most of a second to show)


class NavActions(SetupActions):
    """CkvizApp's base for moving around; the long moves run as one driver job each."""

    lockstep: LaneSource
    recording: Recording
    error: CkvizError | None
    _playing: bool
    key_filter: KeyFilter = NO_FILTER
    only_keys: tuple[str, ...] | None  # what the filter lets through, asked of the driver
    _sort_by: str  # the per-key table's order, asked of the driver
    _closed: bool

    @property
    def busy(self) -> bool:
        raise NotImplementedError

    def _jump(self, job: JumpJob, fresh: bool = False) -> None:
        raise NotImplementedError

    def _set_playing(self, playing: bool) -> None:
        raise NotImplementedError

    def _refresh_view(self) -> None:
        raise NotImplementedError

    def _submit(self, job: Callable[[], list[Frame]], fresh: bool = False,
                redrawn: bool = False) -> None:  # fmt: skip
        raise NotImplementedError

    @property
    def steps(self) -> bool:
        """A step-harness scenario: time is counted in steps, a round is one call."""
        return isinstance(self.setup.scenario, StepScenario)

    def footer_follows(self) -> None:
        """Redraw the footer if the situation it shows changed (not on every frame)."""
        context = self.footer_context()
        if context != getattr(self, "_footer_shown", None):
            self._footer_shown = context
            self.refresh_bindings()

    def footer_context(self) -> Context:
        current = self.recording.current
        focused = self.focused
        screen = self.screen
        return Context(
            playing=self._playing,
            done=current is not None and current.done,
            replay=not self.recording.live,
            compare=self.setup.compare,
            steps=self.steps,
            filtered=bool(self.key_filter),
            pane=focused.id if isinstance(focused, Pane) else None,
            zoomed=getattr(screen, "maximized", None) is not None,
            typing=isinstance(focused, Input),
        )

    # ---- panes ----------------------------------------------------------------------------

    def action_zoom(self) -> None:
        """The focused pane (or the per-key table) fills the screen; again to go back."""
        screen = self.screen
        if screen.maximized is not None:
            screen.minimize()
        else:
            target = self.focused if isinstance(self.focused, Pane) else None
            target = target or next(iter(screen.query(KeyQueuesPane)), None)
            if target is not None:
                screen.maximize(target, container=False)
        self.footer_follows()

    def action_focus_pane(self, number: int) -> None:
        panes = list(self.screen.query(Pane))
        if 0 < number <= len(panes):
            panes[number - 1].focus()

    def action_sort_keys(self) -> None:
        """Cycle the per-key table's order: scenario, queued, out, age, wait (largest first)."""
        self._sort_by = SORTS[(SORTS.index(self._sort_by) + 1) % len(SORTS)]
        for pane in self.screen.query(KeyQueuesPane):
            pane.sort_by = self._sort_by
        self.change_view()

    # ---- what the panes view: a sort, a filter ------------------------------------------

    def view_request(self) -> ViewRequest:
        """The rows the panes can show: the per-key table's sort with the light key and the
        longest-waiting key pinned (single mode), or the scenario's order in every lane
        (compare: its lanes' rows line up), within a key filter; VIEW_ROWS of them."""
        if self.setup.compare:
            return ViewRequest(limit=VIEW_ROWS, only=self.only_keys, index_limit=VIEW_ROWS,
                               waits=True)  # fmt: skip
        light = self.setup.scenario.light_key
        return ViewRequest(sort=self._sort_by, limit=VIEW_ROWS, pinned=(light,) if light else (),
                           pin_longest_wait=True, only=self.only_keys,
                           index_limit=VIEW_ROWS)  # fmt: skip

    def change_view(self) -> None:
        """The panes want other rows (a sort, a filter): the live frame again, for them. A
        recorded frame shown meanwhile keeps its rows (the panes order what it carries)."""
        self._refresh_view()
        if self._closed or self.recording.current is None or self.error is not None:
            return
        view = self.view_request()
        source = self.lockstep

        def redraw() -> list[Frame]:
            source.set_view(view)
            return source.reframe()

        self._submit(redraw, redrawn=True)

    # ---- the `/` filter -----------------------------------------------------------------

    def _bar(self) -> FilterBar | None:
        return next(iter(self.screen.query(FilterBar)), None)

    def action_filter(self) -> None:
        """Type a key filter; the panes follow each keystroke."""
        self._set_playing(False)
        bar = self._bar()
        if bar is not None:
            self._focus_before = self.focused
            bar.open(self.key_filter.query)
            self.footer_follows()

    def _stoppable(self) -> Callable[[], bool]:
        """A fresh stop flag for the next long move (esc sets it while the move runs)."""
        self._stop_jump = threading.Event()
        return self._stop_jump.is_set

    def action_stop_run(self) -> None:
        raise NotImplementedError

    def action_clear_filter(self) -> None:
        """esc: stops a run to the end or a long move (go to, run until served) where it is;
        else clears the filter; else leaves a zoomed pane (as Textual's maximize does)."""
        stop = getattr(self, "_stop_jump", None)
        if getattr(self, "_running_to_end", False):
            self.action_stop_run()
        elif self.busy and stop is not None and not stop.is_set():
            stop.set()
        elif self.key_filter:
            self._use_filter("")
        elif self.screen.maximized is not None:
            self.action_zoom()

    def on_filter_bar_changed(self, message: FilterBar.Changed) -> None:
        self._use_filter(message.query)

    def on_filter_bar_closed(self, _message: FilterBar.Closed) -> None:
        before = getattr(self, "_focus_before", None)
        self.set_focus(before if before is not None and before.is_attached else None)
        self.footer_follows()

    def _use_filter(self, query: str) -> None:
        """Every pane of both modes lists only the keys matching `query` ("" lists all). The
        driver is asked for the matching keys' rows: a frame carries a screenful of rows, not
        every key, so filtering only what it carries would miss most matches at scale."""
        self.key_filter = KeyFilter(query) if query.strip() else NO_FILTER
        self._show_filter()
        current = self.recording.current
        names = current.snapshots[0].every_key.key_names if current is not None else ()
        self.only_keys = tuple(self.key_filter.keep(names, str)) if self.key_filter else None
        self.change_view()
        self.footer_follows()

    def _show_filter(self) -> None:
        """The panes and the filter bar of the mode on screen follow the filter in force (the
        other mode's follow when it is shown: its panes may not exist yet)."""
        current = self.recording.current
        keys = list(current.snapshots[0].every_key.key_names) if current is not None else []
        # the pictures (key strip, wait CDF) take the matching keys themselves
        matching = self.key_filter.keep(keys, str) if self.key_filter else None
        for pane in self.screen.query(Pane):
            pane.key_filter = self.key_filter
            if hasattr(pane, "shown_keys"):
                pane.shown_keys = matching
        bar = self._bar()
        if bar is not None:
            count = f"{len(matching)} of {len(keys)} keys" if matching is not None else ""
            bar.show_query(self.key_filter.query, count)

    # ---- go to, run until, open -----------------------------------------------------------

    def action_go_to(self) -> None:
        """Ask for a time (ms) or a step (step scenarios), then go there."""
        current = self.recording.current
        if current is None or self._closed:
            self.bell()
            return
        unit = "step" if self.steps else "t (ms)"
        title = "Go to step" if self.steps else "Go to time"
        hint = f"now {unit} {min(current.times)}; back within the recording replays it"
        self.push_screen(Prompt(title, unit, hint, integer=True), self._go_to_text)

    def _go_to_text(self, text: str | None) -> None:
        if text is None:
            return
        try:
            target = int(text)
        except ValueError:
            self.notify(f"go to: '{text}' is not a whole number", severity="error")
            return
        self.go_to(target)

    def go_to(self, target: int) -> None:
        """The first recorded frame at or after `target`; past the recording, step to it."""
        self._set_playing(False)
        unit = "step" if self.steps else "t"
        recording = self.recording
        live = recording.frames[-1] if recording.frames else None
        if live is None or self.error is not None:
            self.bell()
            return
        if min(live.times) < target:
            while not recording.live:
                recording.forward()
            self._refresh_view()
            if live.done:
                self.notify(f"the run ended before {unit} {target}", severity="warning")
                return
            stop = self._stoppable()
            self._jump(lambda: go_to(self.lockstep, target, unit, stop))
        elif recording.seek(lambda f: min(f.times) >= target) is not None:
            self._refresh_view()
        else:  # before the first frame kept: start over and run to it
            setup, stop = self.setup, self._stoppable()
            self._jump(lambda: replay_to(self.lockstep, setup, target, unit, stop), fresh=True)

    def action_run_until_served(self) -> None:
        """Pick a key, then step round by round until a run of it is dequeued."""
        current = self.recording.current
        if current is None or current.done or self._closed:
            self.bell()
            return
        keys = sorted((row.key for row in current.snapshots[0].keys), key=natural_key)
        # a filter in force narrows the list; past PICK_LIMIT keys, type the name (fuzzy)
        choices = self.key_filter.keep(keys, str)[:PICK_LIMIT]
        picker = Picker("Run until served", choices or keys, choices[0] if choices else keys[0],
                        custom="key name (fuzzy)")  # fmt: skip

        def chosen(typed: str | None) -> None:
            if typed:
                self.run_until_served(typed, keys)

        self.push_screen(picker, chosen)

    def run_until_served(self, typed: str, keys: list[str]) -> None:
        key = typed if typed in keys else None
        if key is None:
            terms = typed.casefold().split()
            found = [k for k in keys if fuzzy_match(terms, k)]
            if len(found) != 1:
                many = f"{len(found)} keys match" if found else "no key matches"
                self.notify(f"run until served: {many} '{typed}'", severity="error")
                return
            key = found[0]
        self._set_playing(False)
        while not self.recording.live:
            self.recording.forward()
        frame = self.recording.current
        if frame is None or frame.done:
            self.bell()
            return
        steps, stop = self.steps, self._stoppable()
        self._jump(lambda: until_served(self.lockstep, frame, key, steps, stop))

    def action_open_scenario_file(self) -> None:
        """Ask for a scenario file's path; a bad one is a one-line notification."""
        prompt = Prompt("Open scenario file", "path/to/scenario.toml", "a .toml scenario file")
        self.push_screen(prompt, self.open_scenario)

    def open_scenario(self, path: str | None) -> None:
        if not path:
            return
        try:
            scenario = load_any(path)
        except CkvizError as exc:
            self.notify(_one_line(str(exc)), severity="error", title="open")
            return
        if (problem := self._unfit(scenario)) is not None:
            self.notify(problem, severity="error", title="open")
            return
        self._start(replace(self.setup, scenario=scenario))

    def _unfit(self, scenario: AnyScenario) -> str | None:
        """Why the current disciplines cannot run `scenario`, if they cannot."""
        if not isinstance(scenario, StepScenario):
            return None
        for name in self.setup.disciplines:
            if name not in STEP_DISCIPLINES:
                return (f"{scenario.name} is a step scenario: '{name}' does not run on it "
                        f"(d picks one of {', '.join(STEP_DISCIPLINES)} first)")  # fmt: skip
        return None


def _one_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return " · ".join(lines)[:300] if lines else text
