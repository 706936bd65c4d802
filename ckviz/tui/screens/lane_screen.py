"""What both modes' screens share: the situation their footer reads, and the actions on what
they show (focus, zoom, sort) or that ask for something first (the pickers, go to, run until
served, open a file). A move such an action makes is posted up (`Perform`) for the app to
carry out: the app owns the driver thread and the play timer, a screen owns its panes.
"""

from __future__ import annotations

import contextlib
from dataclasses import replace

from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Input

from ckviz.defaults import DEFAULT_SEEDS
from ckviz.disciplines.registry import DEFAULT_DISCIPLINES, RULES
from ckviz.errors import CkvizError
from ckviz.inputs.scenario_files import AnyScenario, bundled_names, load_any
from ckviz.model.names import natural_key
from ckviz.model.snapshot import SORTS
from ckviz.player.choice import fit_disciplines, runnable_on
from ckviz.player.filter import KeyFilter, one_key
from ckviz.player.player import Player
from ckviz.player.scrub import back_to_mark, mark, scrub, scrub_to
from ckviz.player.story import story_of
from ckviz.tui.context import Context
from ckviz.tui.messages import Perform
from ckviz.tui.palette import KeyPalette
from ckviz.tui.screens.pickers import Picker
from ckviz.tui.screens.prompt import Prompt
from ckviz.tui.screens.shares import ShareScreen
from ckviz.tui.screens.story import StoryScreen
from ckviz.tui.screens.why import WhyScreen
from ckviz.tui.widgets.bars.filter_bar import FilterBar
from ckviz.tui.widgets.bars.legend import Legend
from ckviz.tui.widgets.compare.wait_cdf import WaitCdfPane
from ckviz.tui.widgets.key_rows import KeyRowsPane
from ckviz.tui.widgets.pane import Pane, panes_in
from ckviz.tui.widgets.queue.event_log import KIND_WORDS, KINDS, EventLogPane
from ckviz.tui.widgets.queue.key_queues import KeyQueuesPane
from ckviz.tui.widgets.queue.key_strip import KeyStripPane

NARROW = 100  # columns: below this the panes stack instead of squeezing side by side
BREAKPOINTS = [(0, "-narrow"), (NARROW, "-wide")]  # the screen's class by its width
PICK_LIMIT = 1000  # keys listed by `u`'s picker (10,000 options take most of a second to show)


def scenario_descriptions(names: list[str]) -> dict[str, str]:
    """Each bundled scenario's one-line description (a file that fails to load: none)."""
    descriptions = {}
    for name in names:
        with contextlib.suppress(CkvizError):
            descriptions[name] = load_any(name).description
    return descriptions


def one_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return " · ".join(lines)[:300] if lines else text


class LaneScreen(Screen[None]):
    """A mode's screen over the app's player (read here, moved by the app)."""

    HORIZONTAL_BREAKPOINTS = BREAKPOINTS
    AUTO_FOCUS = ""  # no pane takes focus until asked: the app's keys work from the start

    def __init__(self, player: Player) -> None:
        super().__init__()
        self.player = player
        self._footer_shown: Context | None = None
        self.focus_before: Widget | None = None  # where focus goes back when typing ends

    # ---- the footer's situation ---------------------------------------------------------

    def context(self) -> Context:
        player = self.player
        focused = self.focused
        return Context(
            playing=player.playing,
            done=player.done,
            replay=not player.recording.live,
            compare=player.setup.compare,
            steps=player.steps,
            filtered=bool(player.view.key_filter),
            pane=focused.id if isinstance(focused, Pane) else None,
            zoomed=self.maximized is not None,
            typing=isinstance(focused, Input),
            key_rows=isinstance(focused, KeyRowsPane),
            legend=any(legend.has_class("-shown") for legend in self.query(Legend)),
        )

    def footer_follows(self) -> None:
        """Redraw the footer if the situation it shows changed (not on every frame)."""
        context = self.context()
        if context != self._footer_shown:
            self._footer_shown = context
            self.refresh_bindings()

    # ---- the panes ------------------------------------------------------------------------

    def action_zoom(self) -> None:
        """The focused pane (or the per-key table) fills the screen; again to go back."""
        if self.maximized is not None:
            self.minimize()
        else:
            target = self.focused if isinstance(self.focused, Pane) else None
            target = target or next(iter(self.query(KeyQueuesPane)), None)
            if target is not None:
                self.maximize(target, container=False)
        self.footer_follows()

    def action_focus_pane(self, number: int) -> None:
        """Focus pane `number` now, not after the keys already typed (a widget's focus() waits
        for them: `4z` typed fast zoomed the pane focused before)."""
        panes = panes_in(self)
        if 0 < number <= len(panes):
            self.set_focus(panes[number - 1])

    # ---- the scrubber and bookmarks (ckviz.player.scrub) ----------------------------------------

    def action_scrub(self, direction: int) -> None:
        """`[` / `]`: a tenth of the recording back / forward."""
        self.post_message(Perform(scrub(self.player, direction)))

    def on_key_strip_pane_scrubbed(self, message: KeyStripPane.Scrubbed) -> None:
        """A click or a drag on the keys over time strip: the moment under the pointer."""
        self.post_message(Perform(scrub_to(self.player, message.target), refresh=True))

    def action_mark(self) -> None:
        self.post_message(Perform(mark(self.player)))

    def action_back_to_mark(self) -> None:
        move, where = back_to_mark(self.player)
        if where is not None:
            self.notify(where, title="bookmark", markup=False)
        self.post_message(Perform(move, refresh=True))

    def action_why(self) -> None:
        """On a key's row (ckIndex, per-key queues), that key's story; else why the last call
        of each lane on show picked its key, and the runner-up lost."""
        current = self.player.recording.current
        if current is None:
            self.app.bell()
            return
        focused = self.focused
        if isinstance(focused, KeyRowsPane) and (key := focused.cursor_key) is not None:
            self.open_story(key)
            return
        palette = getattr(self.app, "palette", KeyPalette([], []))
        self.app.push_screen(WhyScreen(current.snapshots, palette))

    def action_key_story(self) -> None:
        """A key's story: the key under the cursor, else one picked (or typed) from a list."""
        current = self.player.recording.current
        if current is None:
            self.app.bell()
            return
        focused = self.focused
        if isinstance(focused, KeyRowsPane) and (key := focused.cursor_key) is not None:
            self.open_story(key)
            return
        keys = sorted(current.snapshots[0].every_key.key_names, key=natural_key)
        choices = self.player.view.key_filter.keep(keys, str)[:PICK_LIMIT] or keys[:PICK_LIMIT]

        def chosen(typed: str | None) -> None:
            key, why = one_key(typed or "", keys)
            if key is not None:
                self.open_story(key)
            elif typed:
                self.notify(f"story: {why} '{typed}'", severity="error", markup=False)

        self.app.push_screen(
            Picker("A key's story", choices, choices[0], custom="key name (fuzzy)"), chosen
        )

    def open_story(self, key: str) -> None:
        """`key`'s runs in each lane on show; the event logs follow that key meanwhile."""
        current = self.player.recording.current
        if current is None:
            return
        stories = [story_of(snap, key, lane) for lane, snap in enumerate(current.snapshots)]
        for pane in self.query(EventLogPane):
            pane.only_key = key
        self.post_message(Perform(None, refresh=True))
        palette = getattr(self.app, "palette", KeyPalette([], []))
        self.app.push_screen(StoryScreen(current.setup.title, stories, palette))

    def narrow_events(self, kinds: frozenset[str] | None, key: str | None = None) -> None:
        """The event logs show `kinds` only (None: every kind) of `key` (None: every key)."""
        for pane in self.query(EventLogPane):
            pane.kinds, pane.only_key = kinds, key
        self.post_message(Perform(None, refresh=True))

    def events_narrowed(self) -> bool:
        return any(pane.narrowed for pane in self.query(EventLogPane))

    def action_sort_keys(self) -> None:
        """Cycle the per-key table's order: scenario, queued, out, age, wait (largest first)."""
        self.sort_by(SORTS[(SORTS.index(self.player.view.sort_by) + 1) % len(SORTS)])

    def action_pick_sort(self) -> None:
        """The per-key table's order, picked from a list."""

        def chosen(name: str | None) -> None:
            if name in SORTS:
                self.sort_by(name)

        self.app.push_screen(
            Picker("Sort the per-key table by", list(SORTS), self.player.view.sort_by), chosen
        )

    def on_key_queues_pane_sort_picked(self, message: KeyQueuesPane.SortPicked) -> None:
        self.sort_by(message.sort)

    def sort_by(self, sort: str) -> None:
        """The per-key table in `sort`'s order (asked of the lanes: the rows carried follow)."""
        move = self.player.sort_by(sort)
        for pane in self.query(KeyQueuesPane):
            pane.sort_by = self.player.view.sort_by
        self.post_message(Perform(move, refresh=True))

    def action_shares(self) -> None:
        """Each lane's served share over time."""
        current = self.player.recording.current
        if current is None:
            self.app.bell()
            return
        palette = getattr(self.app, "palette", KeyPalette([], []))
        self.app.push_screen(ShareScreen(current.snapshots, palette))

    def action_legend(self) -> None:
        """The legend of colours and glyphs, on or off."""
        palette = getattr(self.app, "palette", KeyPalette([], []))
        for legend in self.query(Legend):
            legend.toggle(palette, self.player.setup)
        self.footer_follows()

    def action_event_kinds(self) -> None:
        """The event logs show one kind of event only (or every kind again)."""
        every = "every kind"
        shown = next(iter(self.query(EventLogPane)), None)
        current = every if shown is None or shown.kinds is None else min(shown.kinds)
        key = shown.only_key if shown is not None else None

        def chosen(kind: str | None) -> None:
            if kind in KINDS:
                self.narrow_events(frozenset({kind}), key)
            elif kind == every:
                self.narrow_events(None, key)

        self.app.push_screen(
            Picker("Events of one kind", [every, *KINDS], current, descriptions=KIND_WORDS),
            chosen,
        )

    def show_filter(self, key_filter: KeyFilter) -> None:
        """The panes and the filter bar follow the filter in force."""
        current = self.player.recording.current
        keys = current.snapshots[0].every_key.key_names if current is not None else ()
        # the pictures (key strip, wait CDF) take the matching keys themselves
        matching = key_filter.keep(keys, str) if key_filter else None
        for pane in panes_in(self):
            pane.key_filter = key_filter
            if isinstance(pane, KeyStripPane | WaitCdfPane):
                pane.shown_keys = matching
        bar = self.filter_bar()
        if bar is not None:
            count = f"{len(matching)} of {len(keys)} keys" if matching is not None else ""
            bar.show_query(key_filter.query, count)

    def filter_bar(self) -> FilterBar | None:
        return next(iter(self.query(FilterBar)), None)

    def use_frame_setup(self, light_key: str | None) -> None:
        """A new setup's first frame: the per-key table pins its light key, keeps the sort."""
        for pane in self.query(KeyQueuesPane):
            pane.light_key = light_key
            pane.sort_by = self.player.view.sort_by

    # ---- what asks first: pickers and prompts ------------------------------------------------

    def _start(self, **change: object) -> None:
        setup = replace(self.player.setup, **change)  # type: ignore[arg-type]
        self.post_message(Perform(self.player.start(setup)))

    def action_pick_discipline(self, lane: int) -> None:
        setup = self.player.setup
        lane = lane if lane < len(setup.disciplines) else 0
        current = setup.disciplines[lane]
        side = f" · {'left' if lane == 0 else 'right'} lane" if setup.compare else ""

        def chosen(name: str | None) -> None:
            if name and name != current:
                disciplines = list(self.player.setup.disciplines)
                disciplines[lane] = name
                self._start(disciplines=tuple(disciplines))

        offered = runnable_on(setup.scenario)  # its clock's; a mix's: those sharing a queue
        runnable = [d for d in DEFAULT_DISCIPLINES if d in offered]  # only these
        picker = Picker(f"Discipline{side}", runnable, current, descriptions=RULES)
        self.app.push_screen(picker, chosen)

    def action_pick_scenario(self) -> None:
        current = self.player.setup.scenario.name
        names = bundled_names()
        choices = names if current in names else [current, *names]

        def chosen(name: str | None) -> None:
            if not name or name == current:
                return
            try:
                scenario = load_any(name)
            except CkvizError as exc:
                self.notify(str(exc), severity="error", markup=False)
                return
            self._start_scenario(scenario)

        descriptions = scenario_descriptions(names)
        self.app.push_screen(
            Picker("Scenario", choices, current, descriptions=descriptions), chosen
        )

    def action_pick_seed(self) -> None:
        current = self.player.setup.seed

        def chosen(seed: str | None) -> None:
            if seed and seed != current:
                self._start(seed=seed)

        seeds = list(dict.fromkeys([*DEFAULT_SEEDS, current]))
        self.app.push_screen(Picker("Seed", seeds, current, custom="any seed"), chosen)

    def action_go_to(self) -> None:
        """Ask for a time (ms) or a step (step scenarios), then go there."""
        current = self.player.recording.current
        if current is None or self.player.closed:
            self.app.bell()
            return
        steps = self.player.steps
        unit = "step" if steps else "t (ms)"
        hint = f"now {unit} {min(current.times)}; back within the recording replays it"
        prompt = Prompt("Go to step" if steps else "Go to time", unit, hint, integer=True)
        self.app.push_screen(prompt, self._go_to_text)

    def _go_to_text(self, text: str | None) -> None:
        if text is None:
            return
        try:
            target = int(text)
        except ValueError:
            self.notify(f"go to: '{text}' is not a whole number", severity="error", markup=False)
            return
        self.post_message(Perform(self.player.go_to(target), refresh=True))

    def action_run_until_served(self) -> None:
        """Pick a key, then step round by round until a run of it is dequeued."""
        current = self.player.recording.current
        if current is None or current.done or self.player.closed:
            self.app.bell()
            return
        keys = sorted((row.key for row in current.snapshots[0].keys), key=natural_key)
        # a filter in force narrows the list; past PICK_LIMIT keys, type the name (fuzzy)
        choices = self.player.view.key_filter.keep(keys, str)[:PICK_LIMIT]
        picker = Picker(
            "Run until served",
            choices or keys,
            choices[0] if choices else keys[0],
            custom="key name (fuzzy)",
        )

        def chosen(typed: str | None) -> None:
            if typed:
                self.post_message(Perform(self.player.until_served(typed, keys), refresh=True))

        self.app.push_screen(picker, chosen)

    def action_open_scenario_file(self) -> None:
        """Ask for a scenario file's path; a bad one is a one-line notification."""
        prompt = Prompt("Open scenario file", "path/to/scenario.toml", "a .toml scenario file")
        self.app.push_screen(prompt, self.open_scenario)

    def open_scenario(self, path: str | None) -> None:
        if not path:
            return
        try:
            scenario = load_any(path)
        except CkvizError as exc:
            self.notify(one_line(str(exc)), severity="error", title="open", markup=False)
            return
        self._start_scenario(scenario)

    def _start_scenario(self, scenario: AnyScenario) -> None:
        """Start `scenario`, switching a discipline its clock does not run (a note says so)."""
        disciplines, note = fit_disciplines(scenario, self.player.setup.disciplines)
        if note is not None:
            self.notify(note, title="discipline switched", markup=False)
        self._start(scenario=scenario, disciplines=disciplines)
