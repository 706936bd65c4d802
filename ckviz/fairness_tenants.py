"""Fairness at the tenant grain (docs/fairness.md, "Tenants"): every instant's dequeues shared
out equally among the tenants that could take one then (a tenant's room the sum of its keys'
rooms, each key's as ckviz/fairness.py counts it), water-filled as among keys. A tenant that
splits its load over many keys is owed no more than one that does not: that is what "fair to
my customers" asks. Pure functions of the run's dequeue events, like the key grain; each
tenant's figures made as the results file holds them (model/results.py's TenantRowResult)."""

from __future__ import annotations

import heapq
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ckviz.fairness import KeyService, OwnLimit, most_underserved, water_fill
from ckviz.model.results import TenantRowResult
from ckviz.model.snapshot import DequeueEvent
from ckviz.sim.engine import Dequeues, as_dequeues


@dataclass(frozen=True, slots=True)
class TenantFigures:
    """A run's figures at the tenant grain: each tenant's keys and service (in the order its
    keys first come), and the lowest."""

    rows: list[TenantRowResult]
    most_underserved: tuple[str, float] | None

    def attainments(self) -> dict[str, float | None]:
        """Each tenant's fair-share attainment (None: not judged)."""
        return {row.tenant: row.fair_share_attainment for row in self.rows}


class _Rooms:
    """Each key's room (its backlog less what its cap and the per-call limit forbid), summed
    per tenant."""

    def __init__(self, owner: Mapping[str, str], cap: int | None, per_call: int | None) -> None:
        self.owner, self.cap, self.per_call = owner, cap, per_call
        self.backlog = dict.fromkeys(owner, 0)
        self.held = dict.fromkeys(owner, 0)
        self.room = dict.fromkeys(owner, 0)
        self.tenant_room = dict.fromkeys(owner.values(), 0)

    def move(self, key: str, backlog: int = 0, held: int = 0) -> None:
        self.backlog[key] += backlog
        self.held[key] += held
        room = self.backlog[key]
        if self.cap is not None:
            room = min(room, self.cap - self.held[key])
        if self.per_call is not None:
            room = min(room, self.per_call)
        room = max(room, 0)
        self.tenant_room[self.owner[key]] += room - self.room[key]
        self.room[key] = room


def tenant_figures(
    events: Dequeues | Sequence[DequeueEvent],
    owner: Mapping[str, str],
    waiting_since: Mapping[str, int] | None = None,
    own_limit: OwnLimit | None = None,
    per_call: int | None = None,
) -> TenantFigures:
    """What each tenant was owed and got over the run (see the module)."""
    tape = as_dequeues(events, own_limit.holds if own_limit is not None else None)
    known = dict(owner)
    for key in [*tape.keys, *(waiting_since or {})]:
        known.setdefault(key, key)
    rooms = _Rooms(known, own_limit.cap if own_limit else None, per_call)
    # by arrival time (how many arrived by each instant is all that counts)
    arrivals = tape.arrivals(list_waiting(waiting_since))
    coming = next(arrivals, None)
    owed = dict.fromkeys(rooms.tenant_room, 0.0)
    beside = dict.fromkeys(rooms.tenant_room, 0.0)
    got = dict.fromkeys(rooms.tenant_room, 0)
    got_beside = dict.fromkeys(rooms.tenant_room, 0)
    releases: list[tuple[int, int, str]] = []
    held = 0
    for now, serves in tape.instants():
        while releases and releases[0][0] <= now:
            rooms.move(heapq.heappop(releases)[2], held=-1)
        while coming is not None and coming[0] <= now:
            rooms.move(coming[1], backlog=1)
            coming = next(arrivals, None)
        open_rooms = {t: float(r) for t, r in rooms.tenant_room.items() if r > 0}
        if open_rooms:
            together = len(open_rooms) >= 2
            for tenant, share in water_fill(len(serves), open_rooms, {}).items():
                owed[tenant] += share
                beside[tenant] += share if together else 0.0
            for key, _, _, _ in serves:
                got[known[key]] += 1
                got_beside[known[key]] += together
        for key, _, _, hold in serves:
            rooms.move(key, backlog=-1, held=1 if own_limit else 0)
            if own_limit is not None:
                held += 1
                heapq.heappush(releases, (now + hold, held, key))
    service = {t: KeyService(owed[t], got[t], beside[t], got_beside[t]) for t in owed}
    keys: dict[str, list[str]] = {}
    for key, tenant in known.items():
        keys.setdefault(tenant, []).append(key)
    rows = [
        TenantRowResult(
            tenant=t,
            keys=keys[t],
            owed=s.owed,
            dequeued=s.got,
            fair_share_attainment=s.attainment,
            starved=s.starved,
        )
        for t, s in service.items()
    ]
    return TenantFigures(rows, most_underserved(service))


def most_over_served(attained: Mapping[str, float | None]) -> tuple[str, float] | None:
    """The judged tenant served most over its share (ties: the first name), one that got any:
    of each tenant's attainment (None: not judged), as a run goes (the app) or as its results
    hold them (the report)."""
    judged = [(t, a) for t, a in attained.items() if a]
    return min(judged, key=lambda ta: (-ta[1], ta[0])) if judged else None


def list_waiting(waiting_since: Mapping[str, int] | None) -> list[tuple[int, str]]:
    return [(since, key) for key, since in (waiting_since or {}).items()]
