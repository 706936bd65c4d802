"""The retry delay of a nacked run (SPEC-lifecycle section 2.2): `calculateNextRetryDelay`
over the run queue's retry options laid on the core defaults, with its traps kept."""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

QUEUE_MAX_ATTEMPTS = 12  # the nack dead-letters here when retryOptions names no maxAttempts


@dataclass(frozen=True, slots=True)
class RetryOptions:
    """A full set of retry options; `None` in `given` below means "not set by the caller"."""

    max_attempts: int
    factor: float
    min_timeout_ms: float
    max_timeout_ms: float
    randomize: bool


CORE_DEFAULTS = RetryOptions(3, 2, 1000, 60_000, True)
QUEUE_DEFAULTS = RetryOptions(QUEUE_MAX_ATTEMPTS, 2, 1000, 3_600_000, True)


def laid_over_core(
    max_attempts: int | None = None,
    factor: float | None = None,
    min_timeout_ms: float | None = None,
    max_timeout_ms: float | None = None,
    randomize: bool | None = None,
) -> RetryOptions:
    """The options the delay is computed with: each one given, else the core default's.
    Trap: without `max_attempts` this is 3, so delays stop from attempt 3 on, while the nack
    still dead-letters at `dead_letter_at(None)` = 12."""
    core = CORE_DEFAULTS
    return RetryOptions(
        core.max_attempts if max_attempts is None else max_attempts,
        core.factor if factor is None else factor,
        core.min_timeout_ms if min_timeout_ms is None else min_timeout_ms,
        core.max_timeout_ms if max_timeout_ms is None else max_timeout_ms,
        core.randomize if randomize is None else randomize,
    )


def dead_letter_at(max_attempts: int | None) -> int:
    """The attempt at which an incrementing nack dead-letters (the queue's own 12 if unset)."""
    return QUEUE_MAX_ATTEMPTS if max_attempts is None else max_attempts


def _js_round(x: float) -> int:
    """JavaScript's Math.round: halves go up (towards +infinity), unlike Python's round."""
    return math.floor(x + 0.5)


def retry_delay_ms(opts: RetryOptions, attempt: int, rng: random.Random | None = None) -> int:
    """The delay of a nack at `attempt` (post-increment), or 0 when there is none.
    R = 1 + a draw from `rng` when randomising (the caller's seeded generator), 1 when not."""
    if attempt >= opts.max_attempts:
        return 0
    r = 1.0
    if opts.randomize:
        if rng is None:
            raise ValueError("randomize needs a seeded generator from the caller")
        r = 1.0 + rng.random()
    raw = r * opts.min_timeout_ms * opts.factor ** (attempt - 1)
    return _js_round(min(opts.max_timeout_ms, raw))


def retry_score(
    now_ms: int,
    opts: RetryOptions,
    attempt: int,
    rng: random.Random | None = None,
    retry_at: int | None = None,
) -> int:
    """`retryAt ?? (delay ? now + delay : now)`: a given retryAt wins and draws nothing."""
    if retry_at is not None:
        return retry_at
    return now_ms + retry_delay_ms(opts, attempt, rng)


@dataclass(frozen=True, slots=True)
class NackOutcome:
    """What the client does with a nack (section 2.1): dead-letter, or requeue at `score`."""

    attempt: int  # the run's attempt after this nack (unchanged on a dead-letter's payload)
    dead_letter: bool
    score: int | None  # the retry score; None on a dead-letter


def on_nack(
    attempt: int,
    now_ms: int,
    given_max_attempts: int | None,
    opts: RetryOptions,
    rng: random.Random | None = None,
    retry_at: int | None = None,
    increment: bool = True,
) -> NackOutcome:
    """An incrementing nack that reaches the dead-letter attempt dead-letters (and draws
    nothing); otherwise the run is requeued at its retry score. A non-incrementing nack
    never dead-letters."""
    after = attempt + 1 if increment else attempt
    if increment and after >= dead_letter_at(given_max_attempts):
        return NackOutcome(after, True, None)
    return NackOutcome(after, False, retry_score(now_ms, opts, after, rng, retry_at))
