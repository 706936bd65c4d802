"""The books every agent of a stress run writes to, and the invariants checked on them.

Each check is sound under real concurrency: a consumer counts a run as held only once its
dequeue reply is back and stops counting it before its ack is sent, so its count never
exceeds what the server holds. A discipline in Redis judges its own state through the rules
its package gives (`UnderConcurrency`), counted here. The engine's `Ledger` is not used: it
holds a key's runs in the order Redis served them, which concurrent replies do not give.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable, Iterable

from ckviz.disciplines.base import DequeueReport, UnderConcurrency
from ckviz.model.invariants import (
    DEQUEUED_ONCE,
    ENDS_EMPTY,
    ENV_LIMIT,
    PER_KEY_LIMIT,
    SERVED_ALL,
    checked_by,
)
from ckviz.model.queue import DequeuedRun

INVARIANTS = checked_by("stress")  # in the one list's order
_EXAMPLES = 3  # details kept per broken invariant


class SharedBooks:
    """Thread-safe: what was produced, served and held, and what the checks found."""

    def __init__(
        self, env_limit: int, per_key_limit: int, rules: UnderConcurrency | None = None
    ) -> None:
        self.env_limit = env_limit
        self.rules = rules  # a discipline in Redis: its own rules
        self.per_key_limit = per_key_limit
        self.checks: Counter[str] = Counter()
        self.violations: Counter[str] = Counter()
        self.examples: dict[str, list[str]] = {}
        self.produced: set[str] = set()
        self.served: dict[str, int] = {}  # run id -> consumer
        self.calls = 0
        self._producer_done = False
        self._refeeds_open = False
        self._stopped = False
        self._lock = threading.Lock()
        self._started: Counter[str] = Counter()  # enqueues sent, per key
        self._finished: Counter[str] = Counter()  # enqueues whose reply is back, per key
        self._next_index: Counter[str] = Counter()
        self._held: Counter[str] = Counter()
        self._env_held = 0
        self.refeeds = 0

    @property
    def producing(self) -> bool:
        return not self._stopped and (not self._producer_done or self._refeeds_open)

    @property
    def stopped(self) -> bool:
        return self._stopped

    def open_refeeds(self) -> None:
        self._refeeds_open = True

    def producer_done(self) -> None:
        with self._lock:
            self._producer_done = True

    def stop_producing(self) -> None:
        with self._lock:
            self._stopped = True

    # ---- producing -----------------------------------------------------------------

    def sending(self, runs: Iterable[tuple[str, str]]) -> None:
        """(key, run id) pairs about to be enqueued."""
        with self._lock:
            for key, run_id in runs:
                self._started[key] += 1
                self.produced.add(run_id)

    def sent(self, keys: Iterable[str]) -> None:
        with self._lock:
            self._finished.update(keys)

    def enqueue_marks(self) -> tuple[Counter[str], Counter[str]]:
        """Copies of (started, finished) enqueue counts per key."""
        with self._lock:
            return Counter(self._started), Counter(self._finished)

    def take_refeed(self, key: str, declared: int, budget: int) -> str | None:
        """The run id of a refeed of `key`, already counted as sent; None once the refeed
        budget is spent or production stopped. Ids follow the key's `declared` runs."""
        with self._lock:
            if self._stopped or self.refeeds >= budget:
                self._refeeds_open = False
                return None
            self.refeeds += 1
            run_id = f"{key}-{declared + self._next_index[key]}"
            self._next_index[key] += 1
            self._started[key] += 1
            self.produced.add(run_id)
            return run_id

    # ---- consuming -----------------------------------------------------------------

    def on_call(self, consumer: int, runs: list[DequeuedRun], report: DequeueReport | None) -> None:
        with self._lock:
            self.calls += 1
            if self.rules is not None and report is not None:
                self.rules.dequeued(f"consumer {consumer}", report, self)
            for run in runs:
                self._on_served(consumer, run)

    def _on_served(self, consumer: int, run: DequeuedRun) -> None:
        self.checks[DEQUEUED_ONCE] += 1
        if run.run_id in self.served:
            before = self.served[run.run_id]
            self._broke(DEQUEUED_ONCE, f"{run.run_id} served by consumers {before} and {consumer}")
        elif run.run_id not in self.produced:
            self._broke(DEQUEUED_ONCE, f"{run.run_id} served but never enqueued")
        self.served[run.run_id] = consumer
        self._held[run.key] += 1
        self._env_held += 1
        self.checks[PER_KEY_LIMIT] += 1
        self.checks[ENV_LIMIT] += 1
        if self._held[run.key] > self.per_key_limit:
            held = self._held[run.key]
            self._broke(PER_KEY_LIMIT, f"{run.key!r} held {held} > {self.per_key_limit}")
        if self._env_held > self.env_limit:
            self._broke(ENV_LIMIT, f"{self._env_held} held in the env > {self.env_limit}")

    def releasing(self, runs: Iterable[DequeuedRun]) -> None:
        """Runs whose acks are about to be sent."""
        with self._lock:
            for run in runs:
                self._held[run.key] -= 1
                self._env_held -= 1

    def waiting(self) -> int:
        """Runs produced and not yet served."""
        with self._lock:
            return len(self.produced) - len(self.served)

    def all_served(self) -> bool:
        with self._lock:
            return not self.producing and len(self.served) >= len(self.produced)

    # ---- watching ------------------------------------------------------------------

    def on_watch(self, env_held: int, state: object, quiet: Callable[[str], bool]) -> None:
        """A watcher read: the env's held count and (a discipline in Redis) its state;
        `quiet`: whether no enqueue of a key was in flight since the previous read."""
        with self._lock:
            self.checks[ENV_LIMIT] += 1
            if env_held > self.env_limit:
                self._broke(ENV_LIMIT, f"watcher read {env_held} held in the env")
            if self.rules is not None and state is not None:
                self.rules.read("watcher", state, quiet, self)

    def checked(self, invariant: str) -> None:
        """A discipline's rule was checked once (called under the lock)."""
        self.checks[invariant] += 1

    # ---- the end -------------------------------------------------------------------

    def settle(self, queued: int, held: int, indexed: int) -> None:
        """After every agent stopped: what was never served, and what the server kept."""
        with self._lock:
            self.checks[SERVED_ALL] += len(self.produced)
            missing = sorted(self.produced - self.served.keys())
            for run_id in missing[:_EXAMPLES]:
                self._broke(SERVED_ALL, f"{run_id} was never served")
            self.violations[SERVED_ALL] += max(0, len(missing) - _EXAMPLES)
            self.checks[ENDS_EMPTY] += 1
            if missing:  # runs left queued are reported once, as never served
                return
            if queued or held or indexed:
                detail = f"{queued} queued, {held} held, {indexed} ckIndex entries left"
                self._broke(ENDS_EMPTY, detail)

    def broke(self, invariant: str, detail: str) -> None:
        """A discipline's rule was broken (called under the lock)."""
        self._broke(invariant, detail)

    def _broke(self, invariant: str, detail: str) -> None:
        self.violations[invariant] += 1
        kept = self.examples.setdefault(invariant, [])
        if len(kept) < _EXAMPLES:
            kept.append(detail)
