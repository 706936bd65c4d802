"""Fairness at the tenant grain (docs/fairness.md, "Tenants"): every instant's dequeues shared
out equally among the tenants that could take one then (a tenant's room the sum of its keys'
rooms, each key's as ckviz/fairness.py counts it), water-filled as among keys. A tenant that
splits its load over many keys is owed no more than one that does not: that is what "fair to
my customers" asks. Pure functions of the run's dequeue events, like the key grain, each
tenant's figures made as the results file holds them (model/results.py's TenantRowResult); the
app keeps the same tally as the run goes (TenantsSoFar)."""

from __future__ import annotations

import heapq
from array import array
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ckviz.fairness import (
    KeyService,
    OwnLimit,
    water_fill,
)
from ckviz.fairness_feed import InstantFeed
from ckviz.fairness_judged import attainments, most_over_served, most_underserved
from ckviz.fairness_windows import Windows
from ckviz.model.results import TenantRowResult
from ckviz.model.snapshot import DequeueEvent
from ckviz.sim.engine import Dequeues, as_dequeues

Standing = tuple[tuple[str, float] | None, tuple[str, float] | None]  # lowest, highest


@dataclass(frozen=True, slots=True)
class TenantFigures:
    """A run's figures at the tenant grain: each tenant's keys and service (in the order its
    keys first come) as the results file holds them, its service as a key's, and the lowest."""

    rows: list[TenantRowResult]
    service: dict[str, KeyService]  # tenant -> owed and got, as a key's
    most_underserved: tuple[str, float] | None

    def attainments(self) -> dict[str, float | None]:
        """Each tenant's fair-share attainment (None: not judged)."""
        return {row.tenant: row.fair_share_attainment for row in self.rows}


class TenantTally:
    """Each tenant's owed and got, instant by instant: fed the runs arriving, the holds ending
    and each instant's dequeues, read at any time. A key's room is its backlog less what its
    cap and the per-call limit forbid; a tenant's, its keys' summed."""

    def __init__(self, owner: Mapping[str, str], cap: int | None, per_call: int | None) -> None:
        self.owner: dict[str, str] = {}
        self.cap, self.per_call = cap, per_call
        self.backlog: dict[str, int] = {}
        self.held: dict[str, int] = {}
        self.room: dict[str, int] = {}
        self.tenant_room: dict[str, int] = {}  # in the tenants' first-seen order: sums in a
        self.owed: dict[str, float] = {}  # fixed order give the same floats in every process
        self.beside: dict[str, float] = {}  # owed while another tenant could take one too
        self.got: dict[str, int] = {}
        self.got_beside: dict[str, int] = {}
        for key, tenant in owner.items():
            self.know(key, tenant)

    def know(self, key: str, tenant: str | None = None) -> None:
        """A key of the run (a key no tenant claims is a tenant of its own)."""
        if key in self.owner:
            return
        tenant = key if tenant is None else tenant
        self.owner[key] = tenant
        self.backlog[key] = self.held[key] = self.room[key] = 0
        if tenant not in self.tenant_room:
            self.tenant_room[tenant] = 0
            self.owed[tenant] = self.beside[tenant] = 0.0
            self.got[tenant] = self.got_beside[tenant] = 0

    def arrive(self, key: str) -> None:
        self._move(key, backlog=1)

    def release(self, key: str) -> None:
        self._move(key, held=-1)

    def dequeue(self, key: str) -> None:
        self._move(key, backlog=-1, held=1 if self.cap is not None else 0)

    def _move(self, key: str, backlog: int = 0, held: int = 0) -> None:
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

    def _shares(self, dequeues: int) -> tuple[dict[str, float], bool]:
        """The instant's dequeues shared among the tenants with room, and whether two or more
        could take one."""
        open_rooms = {t: float(r) for t, r in self.tenant_room.items() if r > 0}
        return water_fill(dequeues, open_rooms, {}), len(open_rooms) >= 2

    def share_out(self, served: Sequence[str]) -> None:
        """Owe an instant's dequeues (of the keys `served`, before they are dequeued) to the
        tenants with room, and count what each got (nothing when none had room)."""
        shares, together = self._shares(len(served))
        if not shares:
            return
        for tenant, share in shares.items():
            self.owed[tenant] += share
            self.beside[tenant] += share if together else 0.0
        for key in served:
            tenant = self.owner[key]
            self.got[tenant] += 1
            self.got_beside[tenant] += together

    def service(self, pending: Sequence[str] = ()) -> dict[str, KeyService]:
        """Each tenant's owed and got; `pending`: the keys served at the instant under way,
        counted as if it ended now (nothing kept of it)."""
        owed, beside, got, got_beside = self.owed, self.beside, self.got, self.got_beside
        shares, together = self._shares(len(pending)) if pending else ({}, False)
        if shares:
            owed, beside, got, got_beside = dict(owed), dict(beside), dict(got), dict(got_beside)
            for tenant, share in shares.items():
                owed[tenant] += share
                beside[tenant] += share if together else 0.0
            for key in pending:
                got[self.owner[key]] += 1
                got_beside[self.owner[key]] += together
        return {t: KeyService(owed[t], got[t], beside[t], got_beside[t]) for t in owed}

    def so_far(self, keys: Sequence[str]) -> tuple[array[float], array[float]]:
        """The tenants' owed and got up to now (for Windows: `keys` are tenants)."""
        owed, got = self.owed, self.got
        return array("d", (owed[t] for t in keys)), array("d", (float(got[t]) for t in keys))

    def keys_of(self) -> dict[str, list[str]]:
        """Each tenant's keys, in the run's key order."""
        keys: dict[str, list[str]] = {}
        for key, tenant in self.owner.items():
            keys.setdefault(tenant, []).append(key)
        return keys


def tenant_figures(
    events: Dequeues | Sequence[DequeueEvent],
    owner: Mapping[str, str],
    waiting_since: Mapping[str, int] | None = None,
    own_limit: OwnLimit | None = None,
    per_call: int | None = None,
    windows: Windows | None = None,
    queued: Mapping[str, Sequence[int]] | None = None,
) -> TenantFigures:
    """What each tenant was owed and got over the run (see the module). `windows`, when given,
    is filled with each tenant's owed and got by the end of each stretch of the run, as the key
    grain's (fairness_intervals: a tenant's interval from the run itself). `queued`, as
    key_service's: a run in progress, each key's runs not yet dequeued (their arrivals)."""
    tape = as_dequeues(events, own_limit.holds if own_limit is not None else None)
    tally = TenantTally(owner, own_limit.cap if own_limit else None, per_call)
    more = list_waiting(waiting_since)
    more += [(t, key) for key, times in (queued or {}).items() for t in times]
    for key in [*tape.keys, *(waiting_since or {}), *(queued or {})]:
        tally.know(key)
    arrivals = tape.arrivals(more)  # by arrival time: how many arrived by each instant counts
    coming = next(arrivals, None)
    releases: list[tuple[int, int, str]] = []
    held = 0
    if windows is not None and len(tape):
        windows.start(list(tally.owed), tape.first, tape.last)
    for now, serves in tape.instants():
        if windows is not None:
            windows.reach(now, tally)
        while releases and releases[0][0] <= now:
            tally.release(heapq.heappop(releases)[2])
        while coming is not None and coming[0] <= now:
            tally.arrive(coming[1])
            coming = next(arrivals, None)
        tally.share_out([key for key, _, _, _ in serves])
        for key, _, _, hold in serves:
            tally.dequeue(key)
            if own_limit is not None:
                held += 1
                heapq.heappush(releases, (now + hold, held, key))
    service, keys = tally.service(), tally.keys_of()
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
    return TenantFigures(rows, service, most_underserved(service))


class TenantsSoFar(InstantFeed):
    """The tenant grain of a run in progress, kept as the run goes rather than recomputed from
    every dequeue at each look (as fairness_so_far.ServiceSoFar keeps the key grain): fed each
    run as it arrives and the dequeues as they are made, every queued run counted as asked
    for, so an instant once past never changes. At a run's end the figures are
    tenant_figures'. A look costs the tenants, not the run's length."""

    def __init__(
        self, owner: Mapping[str, str], own_limit: OwnLimit | None, per_call: int | None
    ) -> None:
        self._tally = TenantTally(owner, own_limit.cap if own_limit else None, per_call)
        super().__init__(self._tally, own_limit.holds if own_limit else None)

    def so_far(self, t: int) -> Standing:
        """The most under-served tenant and the most over-served at `t`, each with its
        attainment, the instant under way counted as if it ended now."""
        if self._instant is not None and self._instant < t:
            self._share_out()
        if self._instant is not None:
            self._open_until(self._instant)
        service = self._tally.service([e.key for e in self._batch])
        return standing(service)

    def _book_instant(self, served: list[str]) -> None:
        self._tally.share_out(served)


def standing(service: Mapping[str, KeyService]) -> Standing:
    """The most under-served tenant and the most over-served, each with its attainment."""
    return most_underserved(service), most_over_served(attainments(service))


def list_waiting(waiting_since: Mapping[str, int] | None) -> list[tuple[int, str]]:
    return [(since, key) for key, since in (waiting_since or {}).items()]
