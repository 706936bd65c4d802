"""The run lifecycle on the engine's side (SPEC-lifecycle, docs/lifecycle.md), one for both
clocks: what a run's enqueue carries (a future score, a TTL, the fast path offered), what the
client does when a hold ends (ack, nack at the retry score, or dead-letter), when the TTL
sweep runs, and the per-key tallies the results report.

The clocks send the commands; this decides them and keeps the books they need. Every choice is
drawn from the cell's seed (the retry jitter from a generator of its own), so a run is the same
in every process.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Literal

from ckviz.model.backoff import RetryOptions, laid_over_core
from ckviz.model.invariants import EXPIRED_ONCE, ONE_PLACE, BrokenInvariant
from ckviz.model.lifecycle import RetrySettings, TtlSettings
from ckviz.model.queue import PlannedRun
from ckviz.sim.engine.ledger import Ledger
from ckviz.store.lifecycle.client import fast_path_offer, nack_step
from ckviz.store.messages import message_payload


@dataclass(slots=True)
class KeyLife:
    """One key's lifecycle figures."""

    attempts: int = 0  # serves, retries included
    retries: int = 0  # nacks that queued a run again
    expired: int = 0  # runs that expired queued, never served
    dead_lettered: int = 0
    delayed: int = 0  # runs enqueued with a future score
    fast_path: int = 0  # serves on the fast path (straight to a worker at enqueue)
    success_waits: list[int] = field(default_factory=list)  # first due -> successful serve


@dataclass(frozen=True, slots=True)
class Release:
    """What the client does with a run whose hold ended."""

    outcome: Literal["ack", "nack", "dead_letter"]
    attempt: int  # the payload's attempt after it (unchanged on a dead-letter)
    score: int | None = None  # a nack's retry score
    payload: str | None = None  # what a nack writes


@dataclass(frozen=True, slots=True)
class Enqueue:
    """What a run's first enqueue carries."""

    score: int  # its timestamp: the arrival, or later when delayed
    ttl_expires_at: int | None
    fast_path_at: int | None  # offered (enableFastPath, a score not in the future): its now


class Lifecycle:
    """The lifecycle of one cell's runs on a clock whose tick `t` stands for `unit_ms` ms:
    the dequeue's and the client's `now` is `score_base + t * unit_ms` (the millisecond
    clock: `SCORE_BASE + t`; the step clock: past every fixed timestamp, a step apart)."""

    def __init__(
        self,
        retry: RetrySettings | None,
        ttl: TtlSettings | None,
        seed: str,
        score_base: int,
        keys: list[str],
        unit_ms: int = 1,
    ) -> None:
        self.options: RetryOptions = retry.options() if retry else laid_over_core()
        self.max_attempts = retry.max_attempts if retry else None  # None: the queue's 12
        self.sweep = ttl or TtlSettings()
        self.rng = random.Random(f"{seed}/retry")
        self.score_base = score_base
        self.unit_ms = unit_ms
        self.keys = {key: KeyLife() for key in keys}
        self.attempt: dict[str, int] = {}  # run id -> failures so far (the payload's attempt)
        self.payloads: dict[str, str] = {}  # run id -> its message, for runs that will fail
        self.first_due: dict[str, int] = {}  # run id -> when it first came due (clock)
        self.ttl_pending: dict[str, tuple[str, int]] = {}  # run id -> (key, ttlExpiresAt)
        self.dropped: set[str] = set()  # expired by a dequeue, left for the sweep to finalise
        self.swept: set[str] = set()
        self.expired_now: list[tuple[str, str]] = []  # (key, run id) not yet shown

    def _tally(self, key: str) -> KeyLife:
        """A key's figures (a key minted between a step clock's calls gets its own)."""
        tally = self.keys.get(key)
        if tally is None:
            tally = self.keys[key] = KeyLife()
        return tally

    # ---- enqueue ----------------------------------------------------------------------

    def now(self, t: int) -> int:
        """The `now` at tick `t`, in ms."""
        return self.score_base + t * self.unit_ms

    def tick_of(self, score: int) -> int:
        """The first tick at which `score` is due."""
        return -(-(score - self.score_base) // self.unit_ms)

    def enqueue(self, ledger: Ledger, run: PlannedRun, t: int, timestamp: int) -> Enqueue:
        """The first enqueue of `run` at `t` (`timestamp`: its score when not delayed): its
        score, TTL and fast-path offer, booked."""
        life, now = run.life, self.now(t)
        score = now + life.delay_ms if life.delay_ms else timestamp
        due = self.tick_of(score) if life.delay_ms else t
        self.first_due[run.run_id] = due
        if life.delay_ms:
            self._tally(run.key).delayed += 1
            ledger.due[run.run_id] = due
            ledger.wake_at(due)
        expires = None
        if life.ttl_ms is not None:
            expires = now + life.ttl_ms
            self.ttl_pending[run.run_id] = (run.key, expires)
        if life.fails:
            self.payloads[run.run_id] = message_payload(run, score, expires)
        return Enqueue(score, expires, fast_path_offer(life.fast_path, score, now))

    # ---- serve and release --------------------------------------------------------------

    def served(self, run: PlannedRun, t: int, fast: bool = False) -> bool:
        """A serve of `run` at `t` (on the fast path or by a dequeue); whether it is its last
        (it will succeed, so the run is settled)."""
        tally = self._tally(run.key)
        tally.attempts += 1
        tally.fast_path += fast
        self.ttl_pending.pop(run.run_id, None)  # a serve removes the TTL entry
        if self.attempt.get(run.run_id, 0) < run.life.fails:
            return False
        tally.success_waits.append(t - self.first_due[run.run_id])
        return True

    def release(self, run: PlannedRun, t: int) -> Release:
        """The hold of `run` ended at `t`: ack it, or nack it (dead-letter past the budget);
        the client's decision and payload are the store's (`lifecycle.client.nack_step`)."""
        failures = self.attempt.get(run.run_id, 0)
        if failures >= run.life.fails:
            self.payloads.pop(run.run_id, None)
            return Release("ack", failures)
        now = self.now(t)
        payload = self.payloads[run.run_id]
        step = nack_step(payload, now, self.max_attempts, self.options, self.rng)
        tally = self._tally(run.key)
        if step.dead_letter:
            tally.dead_lettered += 1
            del self.payloads[run.run_id]
            return Release("dead_letter", failures)
        assert step.payload is not None and step.score is not None
        self.attempt[run.run_id] = step.attempt
        self.payloads[run.run_id] = step.payload
        tally.retries += 1
        return Release("nack", step.attempt, step.score, step.payload)

    def requeued(self, ledger: Ledger, run: PlannedRun, score: int, t: int) -> None:
        """Book a nack's requeue at `score` (due on the clock at its tick)."""
        due = max(t, self.tick_of(score))
        ledger.nacked(run, score, due)
        if due > t:
            ledger.wake_at(due)

    # ---- TTL ----------------------------------------------------------------------------

    @property
    def has_ttl(self) -> bool:
        return bool(self.ttl_pending or self.dropped)

    def sweep_now(self, t: int) -> bool:
        """Whether the TTL consumer sweeps at `t`: at each multiple of `sweep_ms` on the clock
        (the first tick at or past it), while a TTL'd run may still be there to take."""
        every, unit = self.sweep.every_ms, self.unit_ms
        if not every or not self.has_ttl:
            return False
        return t == 0 or (t * unit) // every > ((t - 1) * unit) // every

    def next_sweep(self, t: int) -> int | None:
        every, unit = self.sweep.every_ms, self.unit_ms
        if not every or not self.has_ttl:
            return None
        return -(-((t * unit) // every + 1) * every // unit)

    def due_to_expire(self, ledger: Ledger, t: int) -> list[tuple[str, str]]:
        """(key, run id) of queued runs whose TTL has passed by `t`: a dequeue may drop them."""
        now = self.now(t)
        return [
            (key, run_id)
            for run_id, (key, expires) in self.ttl_pending.items()
            if expires <= now and ledger.is_queued(key, run_id)
        ]

    def dropped_by_dequeue(self, ledger: Ledger, key: str, run_id: str) -> None:
        """A dequeue met the run expired and dropped it (it waits in the TTL queue)."""
        self._expire(ledger, key, run_id)
        self.dropped.add(run_id)

    def swept_runs(self, ledger: Ledger, run_ids: list[str], t: int) -> None:
        """The runs a sweep expired: queued ones expire now, dropped ones are finalised."""
        for run_id in run_ids:
            if run_id in self.swept:
                raise BrokenInvariant(EXPIRED_ONCE, t, [], f"run {run_id!r} swept twice")
            self.swept.add(run_id)
            if run_id in self.dropped:
                self.dropped.discard(run_id)
                continue
            pending = self.ttl_pending.get(run_id)
            if pending is None or not ledger.is_queued(pending[0], run_id):
                detail = f"the TTL sweep expired run {run_id!r}, which is not queued"
                raise BrokenInvariant(ONE_PLACE, t, [], detail)
            self._expire(ledger, pending[0], run_id)

    def _expire(self, ledger: Ledger, key: str, run_id: str) -> None:
        del self.ttl_pending[run_id]
        ledger.expire(key, run_id)
        self._tally(key).expired += 1
        self.expired_now.append((key, run_id))
