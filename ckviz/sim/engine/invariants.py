"""Invariants checked after every trip: a ledger's books against what Redis holds.

The digest comes from `inspect.lua`, which rides at the end of a trip the driver sends
anyway, so a check costs one more command in that trip and no extra round trip. `RunLimits`,
the checks a dequeue reply allows on its own, serve both clocks. The names a violation reports
are model/invariants.py's one list; docs/TRUST.md says how each is checked.
"""

from __future__ import annotations

from collections.abc import Mapping

from ckviz.model.arithmetic import queue_limit
from ckviz.model.clock import Unit
from ckviz.model.invariants import (
    CK_INDEX,
    DEQUEUED_ONCE,
    ENV_LIMIT,
    LENGTH_COUNTER,
    MASTER_QUEUE,
    ONE_PLACE,
    PER_KEY_LIMIT,
    TOTAL_CAP,
    BrokenInvariant,
)
from ckviz.sim.engine.ledger import Ledger
from ckviz.store.digest import NO_COUNTER, NOT_INDEXED, QueueDigest

# Up to this many keys a check reads whole (the digest: every ckIndex member and every key
# queued or held; a discipline's state: every tag); past it, only the keys the trip may have
# changed, so checks cost what a trip touches, not the key count. One bound for every
# harness: the millisecond clock checks after every trip (one per serve attempt), so a larger
# one would make its 100-key runs list every key each time (bench/scaling.py); the step
# clock (one read per call, was 256) and the stress watcher (was 1000) list whole under the
# same bound, so their checks read whole listings in every micro scenario (61 keys at most)
# and touched keys past it.
LISTING_LIMIT = 64


def listing(ledger: Ledger) -> tuple[set[str], int]:
    """The keys a trip's reads list, and up to how many they list whole: every active key
    while there are few, else only those changed since the last trip."""
    active, touched = ledger.active, ledger.take_touched()
    return (active, LISTING_LIMIT) if len(active) <= LISTING_LIMIT else (touched, 0)


class RunLimits:
    """What a dequeue reply breaks on its own: a run served twice, a limit overrun (from the
    books, right after the dequeue; a digest then checks them against Redis). It keeps the
    runs held (dequeued, not yet released), not every run dequeued, so a day-long replay's
    checker holds what the system holds: a done run handed out again is no queued head of
    the books (the ledger's head-first check names it)."""

    def __init__(
        self, env_limit: int, per_key_cap: int | None, total_cap: int | None, unit: Unit = "ms"
    ) -> None:
        self.env_limit = env_limit
        self.queue_limit = queue_limit(per_key_cap, env_limit)
        self.total_cap = total_cap
        self.unit: Unit = unit
        self.held_ids: set[str] = set()
        self.dequeued = 0

    def on_dequeued(self, t: int, key: str, run_id: str) -> None:
        if run_id in self.held_ids:
            detail = f"run {run_id!r} dequeued twice"
            raise BrokenInvariant(DEQUEUED_ONCE, t, [key], detail, self.unit)
        self.held_ids.add(run_id)
        self.dequeued += 1

    def released(self, run_id: str) -> None:
        """The run's hold ended (ack, nack or dead letter): a nacked one may be dequeued again."""
        self.held_ids.discard(run_id)

    def within_limits(self, t: int, key: str, key_held: int, env_held: int) -> None:
        if key_held > self.queue_limit:
            detail = f"holds {key_held} runs; per-key limit {self.queue_limit}"
            raise BrokenInvariant(PER_KEY_LIMIT, t, [key], detail, self.unit)
        if env_held > self.env_limit:
            detail = f"{env_held} runs held; limit {self.env_limit}"
            raise BrokenInvariant(ENV_LIMIT, t, [key], detail, self.unit)
        if self.total_cap is not None and env_held > self.total_cap:
            detail = f"{env_held} runs held; total cap {self.total_cap}"
            raise BrokenInvariant(TOTAL_CAP, t, [key], detail, self.unit)


class InvariantChecker(RunLimits):
    """The limits, the runs held (dequeued, not yet released), and the books held against each
    trip's digest (`check`)."""

    def __init__(
        self,
        env_limit: int,
        per_key_cap: int | None,
        total_cap: int | None,
        planned: Mapping[str, int],
        unit: Unit = "ms",
    ) -> None:
        super().__init__(env_limit, per_key_cap, total_cap, unit)
        self.planned = dict(planned)  # runs per key in the workload
        self.checks = 0
        # The TTL sweep leaves the master queue alone (SPEC-lifecycle 4.3): after it expires a
        # key's last runs the master member stays, stale, until a script that fixes it runs.
        self.expired_seen = 0
        self.master_stale = False

    def arrived_unplanned(self, key: str) -> None:
        """A run no plan held arrived (the step clock's): its key's books must place one more."""
        self.planned[key] = self.planned.get(key, 0) + 1

    def check(self, ledger: Ledger, digest: QueueDigest, t: int) -> None:
        """Raise `BrokenInvariant` for the first rule the books or the digest break at `t`."""
        self.checks += 1
        held_total, queued_total = ledger.held_count, ledger.queued_count
        dead, expired = len(ledger.dead_lettered), len(ledger.expired)
        if expired > self.expired_seen:
            self.expired_seen, self.master_stale = expired, True
        done = len(ledger.dequeues) + ledger.seeded - held_total - ledger.nacks - dead
        parts = (ledger.to_arrive_count, queued_total, held_total, done, dead, expired)
        if sum(parts) != ledger.total_runs + ledger.seeded or min(parts) < 0:
            shown = " + ".join(map(str, parts))
            detail = (
                f"to arrive + queued + held + done + dead-lettered + expired = {shown}, "
                f"not {ledger.total_runs + ledger.seeded}"
            )
            raise BrokenInvariant(ONE_PLACE, t, [], detail, self.unit)
        if digest.env_queued != queued_total:
            detail = f"the env queue has {digest.env_queued} runs, the books {queued_total}"
            raise BrokenInvariant(ONE_PLACE, t, [], detail, self.unit)
        if digest.env_held != held_total:
            detail = f"the env holds {digest.env_held} runs, the books {held_total}"
            raise BrokenInvariant(ONE_PLACE, t, [], detail, self.unit)
        queued_sum = held_sum = 0
        for key, (queued, held) in digest.queues.items():
            self._key(t, key, queued, held, ledger)
            queued_sum += max(queued, 0)
            held_sum += held
        if digest.index_listed and queued_sum != digest.env_queued:
            detail = (
                f"the env queue has {digest.env_queued} runs, the CK queues in ckIndex "
                f"{queued_sum}: runs sit in a CK queue outside ckIndex"
            )
            raise BrokenInvariant(CK_INDEX, t, [], detail, self.unit)
        if digest.index_listed and held_sum != digest.env_held:
            detail = f"the env holds {digest.env_held} runs, its keys {held_sum}"
            raise BrokenInvariant(ONE_PLACE, t, [], detail, self.unit)
        if digest.index_size != ledger.queued_keys:
            detail = (
                f"ckIndex has {digest.index_size} entries for "
                f"{ledger.queued_keys} keys with runs queued"
            )
            raise BrokenInvariant(CK_INDEX, t, [], detail, self.unit)
        self._length_counter(t, digest, queued_total)
        self._env(t, digest)

    def _key(self, t: int, key: str, queued: int, held: int, ledger: Ledger) -> None:
        book = ledger.books.get(key)
        if book is None:
            raise BrokenInvariant(CK_INDEX, t, [key], "a CK queue of no workload key", self.unit)
        served = book.dequeued + book.seeded  # a forked start's held runs: as served before
        placed = book.to_arrive + len(book.queued) + served - book.nacked + book.expired
        if placed != self.planned.get(key, 0) or not 0 <= book.held <= served:
            detail = f"the books place {placed} runs (held {book.held}) of {self.planned.get(key)}"
            raise BrokenInvariant(ONE_PLACE, t, [key], detail, self.unit)
        if queued == NOT_INDEXED:
            if book.queued:
                detail = f"missing from ckIndex with {len(book.queued)} runs queued"
                raise BrokenInvariant(CK_INDEX, t, [key], detail, self.unit)
        elif queued == 0:
            raise BrokenInvariant(
                CK_INDEX, t, [key], "in ckIndex with an empty CK queue", self.unit
            )
        elif queued != len(book.queued):
            detail = f"Redis has {queued} runs queued, the books {len(book.queued)}"
            raise BrokenInvariant(ONE_PLACE, t, [key], detail, self.unit)
        if held != book.held:
            detail = f"Redis holds {held} runs, the books {book.held}"
            raise BrokenInvariant(ONE_PLACE, t, [key], detail, self.unit)
        if held > self.queue_limit:
            detail = f"holds {held} runs; per-key limit {self.queue_limit}"
            raise BrokenInvariant(PER_KEY_LIMIT, t, [key], detail, self.unit)

    def _length_counter(self, t: int, digest: QueueDigest, queued_total: int) -> None:
        """Every script counts a run in when it joins a CK queue and out when it leaves one, so
        the counter equals the runs queued (absent only while none ever was: an enqueue sets it
        up)."""
        counted = digest.length_counter
        if counted != queued_total and not (counted == NO_COUNTER and queued_total == 0):
            shown = "absent" if counted == NO_COUNTER else str(counted)
            detail = f"lengthCounter is {shown}, the books have {queued_total} runs queued"
            raise BrokenInvariant(LENGTH_COUNTER, t, [], detail, self.unit)

    def _env(self, t: int, digest: QueueDigest) -> None:
        if digest.env_held > self.env_limit:
            detail = f"the env holds {digest.env_held} runs; limit {self.env_limit}"
            raise BrokenInvariant(ENV_LIMIT, t, [], detail, self.unit)
        if self.total_cap is not None and digest.env_held > self.total_cap:
            detail = f"{digest.env_held} runs held; total cap {self.total_cap}"
            raise BrokenInvariant(TOTAL_CAP, t, [], detail, self.unit)
        if digest.master_has_member == (digest.index_size > 0):
            self.master_stale = False
        elif not (self.master_stale and digest.master_has_member):
            has = "holds" if digest.master_has_member else "lacks"
            detail = f"the master queue {has} the member; ckIndex has {digest.index_size} entries"
            raise BrokenInvariant(MASTER_QUEUE, t, [], detail, self.unit)
