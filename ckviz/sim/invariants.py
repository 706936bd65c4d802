"""Invariants checked after every trip: the driver's books against what Redis holds.

The digest comes from `inspect.lua`, which rides at the end of a trip the driver sends
anyway, so a check costs one more command in that trip and no extra round trip. The names
below are what a violation reports; docs/TRUST.md lists them.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from typing import TYPE_CHECKING

from ckviz.errors import InvariantViolation
from ckviz.store.digest import QueueDigest

if TYPE_CHECKING:
    from ckviz.sim.driver import Driver

DEFAULT_QUEUE_LIMIT = 1_000_000  # what dequeue.lua assumes without a per-queue limit

ONE_PLACE = "one-place"  # every run queued, held, acked or not yet arrived, exactly once
DEQUEUED_ONCE = "dequeued-once"
PER_KEY_LIMIT = "per-key-limit"
ENV_LIMIT = "env-limit"
TOTAL_CAP = "total-cap"
CK_INDEX = "ck-index"  # ckIndex holds exactly the non-empty CK queues
MASTER_QUEUE = "master-queue"  # the master member is there exactly when ckIndex is non-empty
INVARIANTS = (ONE_PLACE, DEQUEUED_ONCE, PER_KEY_LIMIT, ENV_LIMIT, TOTAL_CAP, CK_INDEX,
              MASTER_QUEUE)  # fmt: skip


class BrokenInvariant(InvariantViolation):
    """An invariant failed: which one, at which instant, for which keys."""

    def __init__(self, invariant: str, t: int, keys: Iterable[str], detail: str) -> None:
        self.invariant = invariant
        self.t = t
        self.keys = tuple(keys)
        named = f" (keys: {', '.join(repr(k) for k in self.keys)})" if self.keys else ""
        super().__init__(f"invariant {invariant} broken at t={t} ms{named}: {detail}")


class InvariantChecker:
    """Holds the limits and every run id dequeued so far; `check` runs after each trip."""

    def __init__(self, env_limit: int, per_key_cap: int | None, total_cap: int | None,
                 planned: Mapping[str, int]) -> None:  # fmt: skip
        self.env_limit = env_limit
        self.queue_limit = min(per_key_cap or DEFAULT_QUEUE_LIMIT, env_limit)
        self.total_cap = total_cap
        self.planned = dict(planned)  # runs per key in the workload
        self.dequeued_ids: set[str] = set()
        self.checks = 0

    def on_dequeued(self, t: int, key: str, run_id: str) -> None:
        if run_id in self.dequeued_ids:
            raise BrokenInvariant(DEQUEUED_ONCE, t, [key], f"run {run_id!r} dequeued twice")
        self.dequeued_ids.add(run_id)

    def check(self, driver: Driver, digest: QueueDigest, active: Collection[str]) -> None:
        """Raise `BrokenInvariant` for the first rule the books or the digest break."""
        self.checks += 1
        self._books_balance(driver, active)
        self._redis_agrees(driver, digest)
        self._limits(driver.t, digest)
        self._index(driver.t, digest)

    def _books_balance(self, driver: Driver, active: Collection[str]) -> None:
        held = driver.held_count
        parts = (driver.to_arrive_count, driver.queued_count, held, len(driver.events) - held)
        if sum(parts) != len(driver.workload) or min(parts) < 0:
            shown = " + ".join(map(str, parts))
            detail = f"to arrive + queued + held + acked = {shown}, not {len(driver.workload)}"
            raise BrokenInvariant(ONE_PLACE, driver.t, [], detail)
        for key in active:
            book = driver.books[key]
            placed = book.to_arrive + len(book.queued) + book.dequeued
            planned = self.planned.get(key, 0)
            if placed != planned or not 0 <= book.held <= book.dequeued:
                detail = f"the books place {placed} runs (held {book.held}) of {planned}"
                raise BrokenInvariant(ONE_PLACE, driver.t, [key], detail)

    def _redis_agrees(self, driver: Driver, digest: QueueDigest) -> None:
        t = driver.t
        if digest.env_queued != driver.queued_count:
            detail = f"the env queue has {digest.env_queued}, the driver {driver.queued_count}"
            raise BrokenInvariant(ONE_PLACE, t, [], detail)
        if digest.env_held != driver.held_count:
            detail = f"the env holds {digest.env_held} runs, the driver {driver.held_count}"
            raise BrokenInvariant(ONE_PLACE, t, [], detail)
        queued_sum = held_sum = 0
        for key, counts in digest.queues.items():
            book = driver.books.get(key)
            if book is None:
                raise BrokenInvariant(CK_INDEX, t, [key], "a CK queue of no workload key")
            if counts.queued != len(book.queued) or counts.held != book.held:
                detail = (f"Redis has {counts.queued} queued / {counts.held} held, "
                          f"the driver {len(book.queued)} / {book.held}")  # fmt: skip
                raise BrokenInvariant(ONE_PLACE, t, [key], detail)
            queued_sum += counts.queued
            held_sum += counts.held
        if queued_sum != digest.env_queued or held_sum != digest.env_held:
            detail = (f"the CK queues hold {queued_sum} queued / {held_sum} held, the env "
                      f"{digest.env_queued} / {digest.env_held}")  # fmt: skip
            raise BrokenInvariant(ONE_PLACE, t, [], detail)

    def _limits(self, t: int, digest: QueueDigest) -> None:
        over = sorted(k for k, c in digest.queues.items() if c.held > self.queue_limit)
        if over:
            counts = ", ".join(f"{k!r} holds {digest.queues[k].held}" for k in over)
            raise BrokenInvariant(PER_KEY_LIMIT, t, over, f"{counts}; limit {self.queue_limit}")
        if digest.env_held > self.env_limit:
            detail = f"the env holds {digest.env_held}; limit {self.env_limit}"
            raise BrokenInvariant(ENV_LIMIT, t, [], detail)
        if self.total_cap is not None and digest.env_held > self.total_cap:
            detail = f"{digest.env_held} runs held; total cap {self.total_cap}"
            raise BrokenInvariant(TOTAL_CAP, t, [], detail)

    def _index(self, t: int, digest: QueueDigest) -> None:
        wrong = sorted(k for k, c in digest.queues.items() if c.in_index != (c.queued > 0))
        if wrong:
            states = ", ".join(
                f"{k!r} {'in' if digest.queues[k].in_index else 'missing from'} ckIndex with "
                f"{digest.queues[k].queued} queued"
                for k in wrong
            )
            raise BrokenInvariant(CK_INDEX, t, wrong, states)
        if digest.master_has_member != (digest.index_size > 0):
            has = "holds" if digest.master_has_member else "lacks"
            detail = f"the master queue {has} the member; ckIndex has {digest.index_size} entries"
            raise BrokenInvariant(MASTER_QUEUE, t, [], detail)
