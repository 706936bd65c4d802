"""Virtual time, natively: the reference's production fair dequeue, whose state lives in Redis.

The order is kept by the vtime Lua (SPEC-vtime 5) in `B:ckVtime`, `B:ckVtimeFloor` and
`B:ckVtimeIdle`; this discipline only names those scripts and keys through its door and shows
what the driver reads back. Python never writes a vtime key and never ranks a serve.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import replace

from ckviz.disciplines.base import DEFAULT_TUNING, DequeueReport, Listed, Tuning, Waiting
from ckviz.disciplines.vtime.checks import VtimeLedgerCheck
from ckviz.disciplines.vtime.concurrent import VtimeUnderConcurrency
from ckviz.disciplines.vtime.door import VERSIONS, vtime_door
from ckviz.disciplines.vtime.knobs import knobs_for, knobs_of
from ckviz.disciplines.vtime.on_steps import VtimeOnSteps
from ckviz.disciplines.vtime.ranking import PassOneOrder, TagsInOrder
from ckviz.disciplines.vtime.values import TAGS_LISTED, Visit, VtimeDequeue, VtimeState, VtimeView
from ckviz.disciplines.vtime.view import decision_of
from ckviz.model.decision import Decision, Rank
from ckviz.model.queue import DisciplineState, IndexEntry, Shown


class VirtualTime:
    """`vtime` (the reference's PR head) or `vtime-v17` (the published table's version)."""

    def __init__(self, name: str, tuning: Tuning = DEFAULT_TUNING) -> None:
        self.name = name
        self.version = version = VERSIONS[name]
        self.knobs = knobs_of(tuning.knobs)
        self.door = vtime_door(version, tuning)
        self.traced = tuning.trace
        # What the pane shows (`view`), kept as parts: a run reports two calls and a read per
        # dequeued run and a headless one never looks, so the frozen view is made when read.
        self._state: VtimeState | None = None  # the latest read
        self._visits: tuple[Visit, ...] = ()  # the last call's passes, and its floor
        self._call_floor: float | None = None
        self._calls = 0
        self._before: dict[str, float] = {}
        self._view: VtimeView | None = None  # made from the parts, until one changes
        self._tags: dict[str, float] = {}  # every key's tag as last read, in no order
        self._tags_in_order = True  # `_tags` is in ckVtime order (a listed read)
        # the two orders a frame shows a screenful of, kept as the reads come (ranking.py)
        self._pass_one = PassOneOrder()
        self._tags_shown = TagsInOrder()

    @property
    def view(self) -> VtimeView:
        """The state as last read and the last call's passes."""
        if self._view is None:
            parts = (self._state, self._visits, self._call_floor, self.traced, self._calls)
            self._view = VtimeView(self.version, *parts, self._before)
        return self._view

    def order(self, active: Sequence[IndexEntry], now: int) -> list[str]:
        """Lowest tag as last read first, ties by member (pass 1's order); a key not yet
        read sits at the floor."""
        tags, floor = self._tags, self._floor()
        # plain tuples sorted (members are unique): no key function called per entry
        ranked = sorted([(max(tags.get(e.key, floor), floor), e.member) for e in active])
        return [member for _, member in ranked]

    def upcoming(self, waiting: Waiting, limit: int) -> tuple[str, ...]:
        """`order` over the keys with runs queued (a member sorts as its key), the first
        `limit` of them, kept from frame to frame rather than sorted."""
        return tuple(self._pass_one.first(self._tags, self._floor(), waiting, limit))

    def _floor(self) -> float:
        state = self._state
        return (state.floor or 0.0) if state is not None else 0.0

    def advance(self, active: Sequence[IndexEntry], now: int) -> list[str]:
        return self.order(active, now)  # nothing to commit: the Lua keeps the state

    def on_serviced(self, key: str) -> None:
        return None

    def rank_of(self, key: str) -> Rank:
        floor = self._floor()
        return (("tag", max(self._tags.get(key, floor), floor)),)

    def decision(self) -> Decision | None:
        """The last call's candidates as its trace reported them."""
        return decision_of(self.view)

    def ledger_check(self, planned: Mapping[str, int], mixed: bool = False) -> VtimeLedgerCheck:
        """The vtime rules, checked after every trip of the millisecond clock."""
        return VtimeLedgerCheck(self.version, planned, mixed)

    def on_steps(self, check: bool, mixed: bool = False) -> VtimeOnSteps:
        """What the step clock keeps of vtime between its calls."""
        return VtimeOnSteps(self.name, self.version, check, mixed)

    def under_concurrency(self) -> VtimeUnderConcurrency:
        """The vtime rules under concurrent callers (`ckviz stress`)."""
        return VtimeUnderConcurrency()

    def on_dequeue_report(self, call: DequeueReport) -> None:
        """A dequeue call's reply: its passes (when traced) and the floor it ended with."""
        assert isinstance(call, VtimeDequeue)  # the door's reader made it
        self._visits, self._call_floor, self._view = tuple(call.visits), call.floor, None
        self._calls += 1

    def on_state_read(self, state: VtimeState) -> None:
        """The state as the end of a trip read it (only some keys when not `listed`). Read
        after every trip, so it costs what the read holds: the merged tags are put in order
        only when a snapshot shows them."""
        # the tags the last call ranked by, for the keys this read lists (the app asks)
        tags = self._tags
        before = {k: t for k in state.tags if (t := tags.get(k)) is not None} if self.traced else {}
        if state.listed or self._state is None:
            self._tags, self._tags_in_order = dict(state.tags), True
            self._pass_one.forget()
            self._tags_shown.forget()
        else:
            self._tags.update(state.tags)
            self._tags_in_order = False
            self._pass_one.tags_read(state.tags)
            self._tags_shown.tags_read(state.tags)
        self._state, self._before, self._view = state, before, None

    def _shown_view(self) -> VtimeView:
        """The view with every key's tag as last read, in ckVtime order (tag, then key)."""
        s = self.view.state
        if s is None:
            return self.view
        if not self._tags_in_order:  # (tag, key) tuples sorted: no key function per tag
            self._tags = {key: tag for tag, key in sorted([(t, k) for k, t in self._tags.items()])}
            self._tags_in_order = True
        return replace(self.view, state=replace(s, tags=dict(self._tags)))  # a snapshot keeps it

    def _framed_view(self) -> VtimeView:
        """The view with the first TAGS_LISTED tags as last read, in ckVtime order, and how
        many there are: what the pane lists of them (a frame's)."""
        s = self.view.state
        if s is None:
            return self.view
        first = dict(self._tags_shown.first(self._tags, TAGS_LISTED))
        return replace(self.view, state=replace(s, tags=first), tag_count=len(self._tags))

    def state(self, keys: Collection[str] | None = None) -> DisciplineState:
        """The fields, the keys' tags (every key's, in ckVtime order, or `keys`' in that
        order) and parked tags, and the view the pane draws."""
        view = self._shown_view() if keys is None else self._framed_view()
        s, tags = view.state, self._tags
        fields: list[tuple[str, Shown]] = [
            ("version", self.version),
            ("quantum", self.knobs.quantum),
            ("floor", (s.floor or 0.0) if s is not None else 0.0),
        ]
        per_key: list[tuple[str, tuple[tuple[str, Shown], ...]]] = []
        if s is not None:
            fields.append(("idle", len(s.idle)))
            if keys is None:
                per_key = [(k, (("tag", t),)) for k, t in tags.items()]
            else:
                shown = sorted((tags[k], k) for k in keys if k in tags)
                per_key = [(k, (("tag", t),)) for t, k in shown]
            per_key += [
                (k, (("parked", t),))
                for k, t in s.idle.items()
                if k not in tags and (keys is None or k in keys)
            ]
        return DisciplineState(self.name, tuple(fields), tuple(per_key), view)


# The registry's entries (ckviz/disciplines/registry.py adds them in one line).
INDEX_NOTE = "pass 2 reads it, oldest first; pass 1 goes by tag (Discipline)"
LISTED: dict[str, Listed] = {
    "vtime": Listed(
        lambda w, t: VirtualTime("vtime", t),
        "native virtual time kept in Redis by the Lua (trigger.dev PR #4367's head)",
        "lowest virtual-time tag in ckVtime (pass 1), then oldest head (pass 2); ties by name",
        knobs_for,
        INDEX_NOTE,
    ),
    "vtime-v17": Listed(
        lambda w, t: VirtualTime("vtime-v17", t),
        "native virtual time as published (V17): drained keys re-register at the floor",
        "lowest virtual-time tag (pass 2 only if pass 1 under-fills); ties by name",
        knobs_for,
        INDEX_NOTE,
    ),
}
