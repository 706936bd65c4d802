"""Virtual time (SPEC-vtime 5) as plain values: what a call looked at, the state, the view
(and the lines the app's discipline pane draws of it).

The state itself lives only in Redis (`B:ckVtime`, `B:ckVtimeFloor`, `B:ckVtimeIdle`) and is
written only by the vtime Lua; these are what ckviz reads back and shows: the pane never
computes a tag itself.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

from ckviz.disciplines.vtime.knobs import Version
from ckviz.model.decision import FATES  # a fate in the reference's words
from ckviz.model.queue import DequeuedRun, Ink, PaneLine, shown_number


@dataclass(frozen=True, slots=True)
class Visit:
    """One candidate a dequeue call looked at: in which pass, and what became of it."""

    passno: int
    key: str
    fate: str  # served, limit, not-ready, empty, expired, orphan, outside-window, ...
    drain: str  # parked, removed or ''
    tag: float | None  # served: the key's new tag


@dataclass(frozen=True, slots=True)
class VtimeDequeue:
    """A vtime dequeue call's reply: the runs served, the trace, the floor it ended with."""

    runs: list[DequeuedRun]
    visits: list[Visit]
    floor: float | None  # None: the env was full, the call did nothing

    @property
    def called(self) -> bool:
        """Whether the script ran (the env had room)."""
        return self.floor is not None


@dataclass(frozen=True, slots=True)
class VtimeState:
    """ckVtime, its floor and the idle set, as Redis holds them (all of it when `listed`,
    else only the keys asked for)."""

    floor: float | None  # None: no floor key
    listed: bool
    tags: dict[str, float]  # key -> tag, in ckVtime order (the members of this base queue)
    idle: dict[str, float]
    foreign: tuple[str, ...]  # ckVtime members that are not CK queues of this base queue


@dataclass(frozen=True, slots=True)
class VtimeView:
    """What the discipline pane shows: the state as last read and the last call's passes."""

    version: Version
    state: VtimeState | None = None
    visits: tuple[Visit, ...] = ()
    call_floor: float | None = None  # the floor the last call ended with
    traced: bool = False  # whether calls report their visits
    calls: int = field(default=0)  # dequeue calls seen
    # the tags of the keys the last read listed, as the read before it had them: the last
    # call's candidates' tags as it ranked them (the app's "why")
    before: dict[str, float] = field(default_factory=dict)
    earlier: int | None = None  # the last call's step, when the step shown made no call
    # how many tags there are when `state.tags` holds only the first TAGS_LISTED (a frame's)
    tag_count: int | None = None

    def pane_lines(self) -> list[PaneLine]:
        """The floor, the tags in pass-1 order, the idle set, then the last call pass by pass."""
        state = self.state
        floor = (state.floor or 0.0) if state is not None else 0.0
        head: list[tuple[str, Ink]] = [("vtime ", "bold"), (self.version, "bold")]
        head += [(" · floor ", "dim"), (shown_number(floor), "plain")]
        if self.call_floor is not None:
            head += [(" · last call's floor ", "dim"), (shown_number(self.call_floor), "plain")]
        tags = state.tags if state else {}
        lines = [tuple(head), _tags(tags, "tags (pass 1 order)", self.tag_count)]
        if self.version == "head":
            lines.append(_tags(state.idle if state else {}, "idle (parked)", None))
        return lines + self._passes()

    def _passes(self) -> list[PaneLine]:
        if not self.traced:
            return [(("last call: (no trace asked for)", "dim"),)]
        if not self.calls:
            return [(("last call: none yet", "dim"),)]
        lines: list[PaneLine] = [
            ((f"last call (#{self.calls}), what each pass looked at:", "dim"),)
        ]
        if self.earlier is not None:  # the step shown made none: these are an earlier call's
            lines = [
                (("no call this step", "bold"),),
                ((f"earlier: call #{self.calls} at step {self.earlier}, its passes:", "dim"),),
            ]
        for passno in (1, 2):  # one candidate a line, in the order the pass looked at them
            visits = [v for v in self.visits if v.passno == passno]
            label = f" pass {passno}: "
            if not visits:
                lines.append(((label, "dim"), ("nothing", "dim")))
            for n, visit in enumerate(visits):
                lines.append(((label if n == 0 else " " * len(label), "dim"), *_visit(visit)))
        return lines


TAGS_LISTED = 64  # more than one line of any pane shows: the rest is counted, not listed


def _tags(tags: dict[str, float], label: str, count: int | None) -> PaneLine:
    """One line of `tags` in their order: the first TAGS_LISTED (100,000 keys' tags made a line
    of 300,000 pieces to draw, nearly all of it past the pane's edge); `count`: how many there
    are when `tags` holds only the first ones."""
    count = len(tags) if count is None else count
    if not tags:
        return ((f"{label}: ", "dim"), ("none", "dim"))
    out: list[tuple[str, Ink]] = [(f"{label}: ", "dim")]
    for n, (key, tag) in enumerate(itertools.islice(tags.items(), TAGS_LISTED)):
        out += [("  " if n else "", "plain"), (key, "key"), (f" {shown_number(tag)}", "plain")]
    if count > TAGS_LISTED:
        out.append((f"  … {count - TAGS_LISTED} more", "dim"))
    return tuple(out)


def _visit(visit: Visit) -> list[tuple[str, Ink]]:
    served = visit.fate == "served"
    out: list[tuple[str, Ink]] = [(visit.key, "served" if served else "key")]
    out.append((f" {FATES.get(visit.fate, visit.fate)}", "plain" if served else "dim"))
    if visit.tag is not None:
        out.append((f" -> {shown_number(visit.tag)}", "plain"))
    if visit.drain:
        out.append((f", {visit.drain}", "dim"))
    return out
