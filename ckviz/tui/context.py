"""What the footer offers in each situation: the keys that matter now, best first, as many as
the width holds (`?` and `q` always). Textual-free: the footer widget only measures and cuts.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, runtime_checkable

ALWAYS = 1000  # `?` and `q`: shown whatever the width


@dataclass(frozen=True, slots=True)
class Context:
    """The app's situation, as far as its keys are concerned."""

    playing: bool = False
    done: bool = False  # the live frame is the run's last
    replay: bool = False  # showing a recorded frame behind the live one
    compare: bool = False
    steps: bool = False  # a step-harness scenario: time is in steps, a round is one call
    filtered: bool = False  # a `/` filter is in force
    pane: str | None = None  # the focused pane's id
    zoomed: bool = False
    typing: bool = False  # the `/` field has the keys: letters type, they are no commands
    key_rows: bool = False  # the focused pane's rows are keys (`enter`: the key's story)
    legend: bool = False  # the legend is shown


@runtime_checkable
class Situated(Protocol):
    """What the footer asks its screen (ckviz's screens answer; another app's do not)."""

    def context(self) -> Context: ...


@dataclass(frozen=True, slots=True)
class Offer:
    """A key the footer offers: how much it matters now, and its label if not the binding's."""

    rank: int
    label: str | None = None


def footer_offers(ctx: Context) -> dict[str, Offer]:
    """Action (as bound, e.g. `speed(1)`) -> offer; an action not here is not in the footer
    (its key still works)."""
    # `+`/`-` are one group in the footer (`+- Speed`), always shown
    offers = {"help": Offer(ALWAYS), "quit": Offer(ALWAYS), "filter": Offer(70)}
    if ctx.typing:  # the filter bar says enter keeps, esc clears
        return {"help": Offer(ALWAYS), "quit": Offer(ALWAYS), "clear": Offer(99, "Clear filter")}
    if ctx.filtered:
        offers["clear_filter"] = Offer(96, "Clear filter")
    if ctx.playing:
        offers["play"] = Offer(99, "Pause")
    elif ctx.done and not ctx.replay:
        offers |= {"restart": Offer(92), "step_back": Offer(88, "Back")}
    else:
        offers |= _paused(ctx)
    offers |= _setup(ctx)
    if ctx.pane is not None or ctx.zoomed:
        offers["zoom"] = Offer(97 if ctx.zoomed else 75, "Unzoom" if ctx.zoomed else "Zoom")
    if ctx.pane == "discipline":  # the order pane: `enter` says why its first key won
        offers["why"] = Offer(74)
    if ctx.key_rows:  # a key's row: `enter` tells its story
        offers["why"] = Offer(74, "Story")
    if ctx.pane is not None and ctx.pane.startswith("events"):
        offers["event_kinds"] = Offer(73)
    offers["legend"] = Offer(44, "No legend" if ctx.legend else None)
    offers["shares"] = Offer(7)
    if not ctx.playing:  # meeting mode: the scrubber and the bookmarks, when there is room
        scrub = 60 if ctx.replay else 8  # going through the recording: the scrubber matters
        offers |= {"scrub(-1)": Offer(scrub), "scrub(1)": Offer(scrub - 1), "mark": Offer(6)}
        offers["back_to_mark"] = Offer(5)
    if ctx.pane == "queues" or (ctx.zoomed and ctx.pane is None):
        offers["sort_keys"] = Offer(74)
        offers["pick_sort"] = Offer(72)
    return offers


def _paused(ctx: Context) -> dict[str, Offer]:
    offers = {
        "step": Offer(94, "Call" if ctx.steps else "Step"),
        "play": Offer(90),
        "step_back": Offer(85, "Back"),
        "run_to_end": Offer(55),
        "go_to": Offer(50, "Go to step" if ctx.steps else "Go to t"),
        "run_until_served": Offer(45),
    }
    if not ctx.steps:  # a step scenario's instant is one call: `space` already does it
        offers["instant"] = Offer(92, "Instant")
    if ctx.replay:
        offers["step"] = Offer(94, "Forward")
    return offers


def _setup(ctx: Context) -> dict[str, Offer]:
    """Choosing what runs: lower than moving through it; the theme last of all (a look, not
    a question about the queue)."""
    offers = {
        "compare": Offer(40),
        "export": Offer(38),
        "pick_discipline(0)": Offer(36, "Left lane" if ctx.compare else None),
        "toggle_dark": Offer(10),
        "pick_scenario": Offer(30),
        "open_scenario_file": Offer(25, "Open file"),
        "restart": Offer(24),
    }
    if ctx.compare:
        offers["pick_discipline(1)"] = Offer(37)
        # narrow, `w` is the only way to the wait CDF: above all but the first moves
        offers["swap_waits"] = Offer(89)
    if not ctx.steps:  # a step scenario has no seed
        offers["pick_seed"] = Offer(20)
    return offers


def fitting(offered: list[tuple[str, int]], offers: dict[str, Offer], room: int) -> set[str]:
    """The offered actions (with their widths) that fit in `room` cells, best ranked first."""
    chosen: set[str] = set()
    ranked = sorted(offered, key=lambda item: -offers[item[0]].rank)
    full = False
    for action, width in ranked:
        always = offers[action].rank >= ALWAYS
        full = full or (not always and width > room)  # a smaller key further down waits too
        if always or not full:
            chosen.add(action)
            room -= width
    return chosen
