"""The client's side of the lifecycle (SPEC-lifecycle 2.1, 2.2, 3, 6), as the engine calls it:
whether it offers the fast path, and what a nack does (the new payload and retry score, or a
dead-letter), before the door's script runs."""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ckviz.model.backoff import RetryOptions, on_nack

if TYPE_CHECKING:
    from ckviz.store.runqueue import Trip


def fast_path_offer(enabled: bool, timestamp: int, now: int) -> int | None:
    """The client offers the fast path only with `enableFastPath` and a run that is due
    (`timestamp <= now`); the offer is the `now` the script checks readiness by."""
    return now if enabled and timestamp <= now else None


@dataclass(frozen=True, slots=True)
class NackStep:
    """What the client does with a nack: dead-letter, or requeue `payload` at `score`."""

    attempt: int  # after this nack (a dead-letter's payload keeps the old one)
    dead_letter: bool
    score: int | None  # the retry score; None on a dead-letter
    payload: str | None  # the payload the nack writes; None on a dead-letter (left as it was)


def nack_payload(payload: str, attempt: int) -> str:
    """The parsed message with the new `attempt` and no `ttlExpiresAt` (its `timestamp` is
    kept: the retry time lives only in the zset score)."""
    message = json.loads(payload)
    message["attempt"] = attempt
    message.pop("ttlExpiresAt", None)
    return json.dumps(message, separators=(",", ":"), ensure_ascii=False)


def nack_step(
    payload: str,
    now_ms: int,
    given_max_attempts: int | None,
    opts: RetryOptions,
    rng: random.Random | None = None,
    retry_at: int | None = None,
    increment: bool = True,
) -> NackStep:
    """Nack the run whose message holds `payload` (its `attempt`, 0 when absent): past the
    dead-letter attempt (`given_max_attempts`, else 12) an incrementing nack dead-letters and
    writes nothing; otherwise the run goes back at `retry_at`, else now + the backoff delay of
    `opts` (`backoff.on_nack`; `rng` draws R when randomising)."""
    attempt = int(json.loads(payload).get("attempt", 0))
    outcome = on_nack(attempt, now_ms, given_max_attempts, opts, rng, retry_at, increment)
    if outcome.dead_letter:
        return NackStep(outcome.attempt, True, None, None)
    return NackStep(outcome.attempt, False, outcome.score, nack_payload(payload, outcome.attempt))


def add_nack(trip: Trip, key: str, run_id: str, step: NackStep) -> int:
    """Add the step's script call to `trip`: the door's nack, or its dead-letter."""
    if step.dead_letter:
        return trip.dead_letter(key, run_id)
    assert step.payload is not None and step.score is not None
    return trip.nack(key, run_id, step.payload, step.score)
