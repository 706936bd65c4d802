"""vtime on the step clock: its state as each call's trip read it, its rules checked after
every call (when asked), and the order and state the app shows (data only)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace

from ckviz.disciplines.base import DequeueReport
from ckviz.disciplines.vtime.checks import VtimeCallCheck
from ckviz.disciplines.vtime.knobs import Version
from ckviz.disciplines.vtime.values import VtimeDequeue, VtimeState, VtimeView
from ckviz.disciplines.vtime.view import call_state, decision_of, tag_order
from ckviz.model.decision import Decision
from ckviz.model.queue import DisciplineState, Shown


class VtimeOnSteps:
    """What the step clock keeps of vtime between its calls."""

    def __init__(self, name: str, version: Version, check: bool, mixed: bool = False) -> None:
        self.name = name
        self.version = version
        self.state: VtimeState | None = None  # as the last trip that read it left it
        self.before: VtimeState | None = None  # as the read before it left it
        self.checks = VtimeCallCheck(version, mixed) if check else None

    def acked(self, key: str) -> None:
        """An ack went out: the key may leave ckVtime (HEAD's ack drops a drained key)."""
        if self.checks is not None:
            self.checks.acked(key)

    def read(self, state: object) -> None:
        """The state as a trip read it."""
        assert isinstance(state, VtimeState)  # the door's reader made it
        self.before, self.state = self.state, state

    def called(
        self, at: int, report: DequeueReport, enqueued: Iterable[str] | Callable[[str], bool]
    ) -> None:
        """A call made at step `at` replied `report`; its trip's read (if any) came first."""
        assert isinstance(report, VtimeDequeue)
        if self.checks is not None:
            self.checks.after_call(at, report, self.state, enqueued)

    @property
    def floor(self) -> float | None:
        """The floor as last read (None: never read)."""
        return None if self.state is None else self.state.floor or 0.0

    def order(self, keys: Iterable[str]) -> tuple[str, ...]:
        """`keys` in pass 1's order as the state last read gives it."""
        return tag_order(keys, self.state)

    def shown(
        self,
        fields: Sequence[tuple[str, Shown]],
        last: object | None,
        calls: int,
        earlier: int | None = None,
    ) -> DisciplineState:
        """The discipline pane's state: `fields`, the floor, the tags, and the passes of the
        `last` call's report (None: no call yet); `earlier`: that call's step, when the last
        step made no call."""
        passes = (tuple(last.visits), last.floor) if isinstance(last, VtimeDequeue) else None
        before = dict(self.before.tags) if self.before is not None else {}
        state = call_state(self.name, self.version, fields, self.state, passes, calls, before)
        if earlier is None or not isinstance(state.detail, VtimeView):
            return state
        return replace(state, detail=replace(state.detail, earlier=earlier))

    def decision(self, shown: DisciplineState) -> Decision | None:
        """The last call's candidates, from the state `shown` made (its view)."""
        return decision_of(shown.detail) if isinstance(shown.detail, VtimeView) else None
