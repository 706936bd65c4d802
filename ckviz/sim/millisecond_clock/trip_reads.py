"""The reads that ride at the end of a millisecond-clock trip, after its calls: the invariant
digest (checked), ckIndex (when a rescoring plan ranks it) and the discipline's state in Redis
(checked, or shown while the app watches it); then the checks of the books against them, once
the trip's dequeues are recorded."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ckviz.disciplines.base import LedgerCheck
from ckviz.model.queue import IndexEntry
from ckviz.sim.engine.invariants import LISTING_LIMIT, InvariantChecker, listing
from ckviz.sim.engine.ledger import Ledger
from ckviz.sim.engine.serving import ServePlan
from ckviz.store.digest import QueueDigest
from ckviz.store.runqueue import Trip


class TripReads:
    """Asks a trip for its reads (`ask`), takes their replies (`take`), checks them (`check`)."""

    def __init__(
        self, ledger: Ledger, plan: ServePlan, invariants: InvariantChecker | None, mixed: bool
    ) -> None:
        self.ledger = ledger
        self.plan = plan  # the consumer keeping the discipline's state: its door reads it
        self.invariants = invariants
        # a discipline whose state lives in Redis: its rules, and its state as the trip read it
        self.state_checks: LedgerCheck | None = None
        if invariants is not None:
            self.state_checks = plan.ledger_check(invariants.planned, mixed)
        self._slots: tuple[int | None, int | None, int | None] = (None, None, None)
        self._keys: set[str] = set()  # the keys the state read asked for
        self._digest: QueueDigest | None = None  # from the last trip, until checked
        self._state: tuple[Any, set[str]] | None = None  # (state read, keys asked)

    def ask(self, trip: Trip, read_index: bool) -> None:
        """Add the reads to `trip`, ckIndex's if `read_index`: the spec's own ZRANGE, not a
        read inside the digest's script (ckIndex into Lua and back took twice the ZRANGE's own
        time: at 10,000 keys, 20 ms of a serve's server time)."""
        digest_slot = index_slot = state_slot = None
        keys: set[str] = set()
        if self.invariants is not None:
            keys, limit = listing(self.ledger)
            digest_slot = trip.inspect(keys, limit)
            state_slot = self.plan.read_state(trip, LISTING_LIMIT, keys)
        elif read_index and self.plan.watched:  # the app shows it
            state_slot = self.plan.read_state(trip, LISTING_LIMIT, ())
        if read_index:
            index_slot = trip.read_index()
        self._slots, self._keys = (digest_slot, index_slot, state_slot), keys

    def take(self, replies: list[Any]) -> Sequence[IndexEntry] | None:
        """The reads' replies from the trip's: ckIndex if it was read, else None."""
        digest_slot, index_slot, state_slot = self._slots
        if state_slot is not None:
            self._state = (self.plan.state_read(replies[state_slot]), self._keys)
        if digest_slot is not None:
            self._digest = replies[digest_slot]
        if index_slot is not None:
            return replies[index_slot]  # type: ignore[no-any-return]
        return None

    def check(self, t: int) -> None:
        """Check the last trip's digest and state against the books (once, at `t`)."""
        if self.invariants is not None and self._digest is not None:
            digest, self._digest = self._digest, None
            self.invariants.check(self.ledger, digest, t)
        if self.state_checks is not None and self._state is not None:
            (state, asked), self._state = self._state, None
            self.state_checks.check(self.ledger, state, t, asked)
