"""A lane's demand-aware fairness so far (docs/fairness.md), over the dequeues the per-key
table counts: every one up to the frame's moment, each key's queued runs counted as asked for.

Kept as the run goes (fairness.ServiceSoFar): each frame adds the runs that arrived and the
dequeues made since the last, then looks at the keys that moved. Textual-free.
"""

from __future__ import annotations

from collections.abc import Mapping

from ckviz.fairness import OwnLimit, key_service
from ckviz.fairness_so_far import ServiceSoFar, SoFar, headline
from ckviz.fairness_tenants import most_over_served, tenant_figures
from ckviz.sim.engine import Engine


class LaneFairness:
    """The figures of one engine's run so far, the same at any frame whatever came before."""

    def __init__(
        self,
        engine: Engine,
        weights: Mapping[str, float],
        own: OwnLimit | None,
        per_call: int | None,
        owner: Mapping[str, str] | None = None,
    ) -> None:
        self._engine = engine
        self._owner = owner  # key -> tenant: some tenant holds two keys or more
        self._tenants_at: tuple[int, int] | None = None  # (dequeues, t) of the last look
        self._tenants: tuple[tuple[str, float] | None, tuple[str, float] | None] = (None, None)
        self._weights = dict(weights)
        self._own = own
        self._per_call = per_call
        self._tally = ServiceSoFar(weights, own, per_call)
        self._arrived = 0  # the ledger's runs handed to the tally
        self._seen = 0  # the dequeues handed to the tally

    def now(self) -> SoFar:
        engine = self._engine
        ledger = engine.ledger
        if ledger.due or ledger.nacks or ledger.expired:
            return self._whole()
        handed = ledger.total_runs - ledger.to_arrive_count
        tally = self._tally
        for run in ledger.workload[self._arrived : handed]:
            tally.arrived(run.arrival_ms, run.key)
        self._arrived = handed
        events = engine.events
        tally.dequeued(events[self._seen :])
        self._seen = len(events)
        return tally.so_far(engine.t)

    def tenants(self) -> tuple[tuple[str, float] | None, tuple[str, float] | None]:
        """The most under-served tenant and the most over-served so far, each with its
        attainment: the results' computation (headless/cells.py) over the dequeues so far and
        the keys waiting, so at a run's end the figure is the results file's. Recomputed at
        each look: only a scenario with tenants pays for it."""
        if self._owner is None:
            return None, None
        engine = self._engine
        at = (len(engine.events), engine.t)
        if at != self._tenants_at:  # a frame made again (another view) costs nothing
            own = self._own if self._own is not None and self._own.holds else None
            waiting = engine.waiting_since() or None
            figures = tenant_figures(engine.events, self._owner, waiting, own)
            self._tenants = figures.most_underserved, most_over_served(figures.attainments())
            self._tenants_at = at
        return self._tenants

    def _whole(self) -> SoFar:
        """With the run lifecycle a run may come back (a nack), be due later than it arrived
        (a delay) or leave unserved (an expiry): the figures from every dequeue so far and the
        queued runs, each from when it came due (a small scenario's few thousand runs)."""
        ledger = self._engine.ledger
        queued: dict[str, list[int]] = {}
        for key, book in ledger.books.items():
            for _, run_id in book.queued:
                due = ledger.due.get(run_id, ledger.planned(run_id).arrival_ms)
                queued.setdefault(key, []).append(due)
        events = self._engine.events
        service = key_service(events, self._weights, None, self._own, self._per_call, queued)
        return headline(service)
