"""What only the step clock counts as it goes (the micro-benchmark's spec 6): the keys with a
backlog, the serves made while two or more keys had one (contention), the step the run
drained at; and, once it is over, the serves per key and the keys left waiting (runner.py
steps the run and tells these counts what each call did)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ckviz.model.steps import FRESH_PREFIX, StepScenario
from ckviz.sim.engine.ledger import KeyBook
from ckviz.sim.engine.run import StepOutcome
from ckviz.sim.step_clock.calls import CallRecord


class StepCounts:
    """The backlog each call sees and the contention it makes, over one step run."""

    def __init__(self, scenario: StepScenario) -> None:
        self.scenario = scenario
        self.contention: dict[str, int] = {}  # serves while >= 2 keys had backlog
        self.contended: set[str] = set()  # keys with backlog during such a call
        self.drain_step = -1
        self._backlog: set[str] = set()  # keys with runs not yet served

    def arrived(self, key: str) -> None:
        self._backlog.add(key)

    def backlog(self) -> int:
        """How many keys have runs not yet served, as a call is about to be made."""
        backlog = len(self._backlog)
        if backlog >= 2:
            self.contended |= self._backlog
        return backlog

    def served(self, key: str, book: KeyBook, backlog: int) -> None:
        """A serve of `key`, made while `backlog` keys had runs not yet served."""
        if not book.queued:
            self._backlog.discard(key)
        if backlog >= 2:
            self.contention[key] = self.contention.get(key, 0) + 1

    def outcome(
        self, books: Mapping[str, KeyBook], calls: Sequence[CallRecord], floor: float | None
    ) -> StepOutcome:
        scenario = self.scenario
        return StepOutcome(
            contention=self.contention,
            contended=self.contended,
            declared=tuple(scenario.key_names()),
            victims=tuple(scenario.victims),
            calls=sum(c.called for c in calls),
            drain_step=self.drain_step,
            key_serves=self.key_serves(books),
            floor=floor,
        )

    def key_serves(self, books: Mapping[str, KeyBook]) -> dict[str, int]:
        """Serves per declared key, in declared order, then all minted keys together."""
        counts = {key: books[key].dequeued for key in self.scenario.key_names()}
        if self.scenario.arrivals.fresh_per_call:
            counts[f"{FRESH_PREFIX}*"] = sum(b.dequeued for b in books.values()) - sum(
                counts.values()
            )
        return counts

    def waiting_since(self, books: Mapping[str, KeyBook]) -> dict[str, int]:
        """Declared runs were all enqueued before step 0: a key left with runs waited from then
        on. (A refed key's leftover run arrived later; it counts only if never served.)"""
        declared, refed = set(self.scenario.key_names()), set(self.scenario.arrivals.refeed)
        return {
            k: 0
            for k, book in books.items()
            if book.queued and k in declared and (k not in refed or not book.dequeued)
        }
