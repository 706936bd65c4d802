"""A lane's demand-aware fairness so far (docs/fairness.md), over the dequeues the per-key
table counts: every one up to the frame's moment, each key's queued runs counted as asked for.

Kept as the run goes (fairness_so_far.ServiceSoFar, and fairness_tenants.TenantsSoFar where
keys belong to tenants): each frame adds the runs that arrived and the dequeues made since the
last, then looks at the keys that moved. Textual-free.
"""

from __future__ import annotations

from collections.abc import Mapping

from ckviz.fairness import OwnLimit, key_service
from ckviz.fairness_so_far import ServiceSoFar, SoFar, headline
from ckviz.fairness_tenants import Standing, TenantsSoFar, standing, tenant_figures
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
        self._tenants: Standing = (None, None)
        self._weights = dict(weights)
        self._own = own
        self._per_call = per_call
        self._tally = ServiceSoFar(weights, own, per_call)
        # the app's tenant figures count a cap only with the holds that end it (as the results)
        self._own_tenants = own if own is not None and own.holds else None
        self._tenant_tally = (
            None if owner is None else TenantsSoFar(owner, self._own_tenants, per_call)
        )
        self._arrived = 0  # the ledger's runs handed to the tally
        self._seen = 0  # the dequeues handed to the tally

    def now(self) -> SoFar:
        engine = self._engine
        ledger = engine.ledger
        if ledger.due or ledger.nacks or ledger.expired:
            return self._whole()
        handed = ledger.total_runs - ledger.to_arrive_count
        tally, tenants = self._tally, self._tenant_tally
        for run in ledger.workload[self._arrived : handed]:
            tally.arrived(run.arrival_ms, run.key)
            if tenants is not None:
                tenants.arrived(run.arrival_ms, run.key)
        self._arrived = handed
        events = engine.events
        tally.dequeued(events[self._seen :])
        if tenants is not None:
            tenants.dequeued(events[self._seen :])
        self._seen = len(events)
        return tally.so_far(engine.t)

    def tenants(self) -> Standing:
        """The most under-served tenant and the most over-served so far, each with its
        attainment, over the dequeues `now` has counted and every run queued (at a run's end
        the results file's figure). Kept as the run goes; with the run lifecycle, recomputed
        from every dequeue so far (as `now` is). Only a scenario with tenants pays for it."""
        if self._owner is None or self._tenant_tally is None:
            return None, None
        engine = self._engine
        at = (len(engine.events), engine.t)
        if at == self._tenants_at:  # a frame made again (another view) costs nothing
            return self._tenants
        ledger = engine.ledger
        if ledger.due or ledger.nacks or ledger.expired:
            waiting = engine.waiting_since() or None
            figures = tenant_figures(engine.events, self._owner, waiting, self._own_tenants)
            self._tenants = standing(figures.service)
        else:
            self._tenants = self._tenant_tally.so_far(engine.t)
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
