"""A workload's run lifecycle (SPEC-lifecycle): the scenario's `[retry]` and `[ttl]` tables and
what each run carries beyond its arrival and hold (a delay, a TTL, failed attempts, the fast
path). Every field is optional and left out of a scenario's dump while unset, so a scenario
without them reads, digests and runs exactly as before they existed."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Self

from pydantic import BaseModel, ConfigDict, Field, model_validator

from ckviz.model.backoff import RetryOptions, laid_over_core

MAX_ATTEMPTS = 1000  # far past any realistic retry budget; keeps a run's nacks finite
MAX_TIMEOUT_MS = 3_600_000 * 24  # a day: the reference's own default maximum is an hour
SWEEP_MS = 1000  # the TTL consumer's pollIntervalMs default
SWEEP_BATCH = 100  # its batchSize default


def absent(value: object) -> bool:
    """Left out of a dump when unset (pydantic's `exclude_if`)."""
    return value is None


def optional(**limits: float) -> Any:
    """An optional field, absent from dumps while unset."""
    return Field(default=None, exclude_if=absent, **limits)  # type: ignore[call-overload]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True, allow_inf_nan=False)


class RetrySettings(_Strict):
    """`[retry]`: the run queue's retryOptions. Unset options take the core defaults, traps
    included (no `max_attempts`: delays stop from attempt 3, dead-letter at 12)."""

    max_attempts: int | None = optional(ge=1, le=MAX_ATTEMPTS)
    factor: float | None = optional(gt=0, le=100)
    min_timeout_ms: float | None = optional(ge=0, le=MAX_TIMEOUT_MS)
    max_timeout_ms: float | None = optional(ge=0, le=MAX_TIMEOUT_MS)
    randomize: bool | None = optional()

    @model_validator(mode="after")
    def _bounds_in_order(self) -> RetrySettings:
        low, high = self.options().min_timeout_ms, self.options().max_timeout_ms
        if low > high:
            raise ValueError(f"min_timeout_ms ({low:g}) is above max_timeout_ms ({high:g})")
        return self

    def options(self) -> RetryOptions:
        return laid_over_core(
            self.max_attempts,
            self.factor,
            self.min_timeout_ms,
            self.max_timeout_ms,
            self.randomize,
        )


class TtlSettings(_Strict):
    """`[ttl]`: the TTL consumer's sweep, every `sweep_ms` of the clock from 0 (0: no sweep,
    so only a dequeue meeting an expired head drops it), up to `batch` runs a sweep."""

    sweep_ms: int | None = optional(ge=0, le=600_000)
    batch: int | None = optional(ge=1, le=100_000)

    @property
    def every_ms(self) -> int:
        return SWEEP_MS if self.sweep_ms is None else self.sweep_ms

    @property
    def per_sweep(self) -> int:
        return SWEEP_BATCH if self.batch is None else self.batch


class KeyLifecycle(_Strict):
    """What a key's runs do beyond arriving and holding: the lifecycle fields of a millisecond
    scenario's keys and a step scenario's alike (docs/lifecycle.md). A key spec names it first
    among its bases, so these fields come after the spec's own, as in its dumps and digests."""

    fail_rate: float | None = optional(ge=0, le=1)  # a seeded share of runs that fail
    fail_attempts: int | None = optional(ge=1, le=MAX_ATTEMPTS)  # a failing run's failures
    delay_ms: int | None = optional(ge=0, le=600_000)  # enqueued this far in the future
    ttl_ms: int | None = optional(ge=1, le=600_000)  # expires this long after its enqueue
    fast_path: bool | None = optional()  # the client offers the fast path

    @model_validator(mode="after")
    def _fail_attempts_need_a_rate(self) -> Self:
        if self.fail_attempts is not None and self.fail_rate is None:
            raise ValueError("fail_attempts needs fail_rate (the share of runs that fail)")
        return self

    @property
    def has_lifecycle(self) -> bool:
        return any(getattr(self, name) is not None for name in KEY_FIELDS)


KEY_FIELDS = tuple(KeyLifecycle.model_fields)  # what `lifecycle_fields` reads


@dataclass(frozen=True, slots=True)
class RunLifecycle:
    """What one run does beyond arriving and holding: enqueued `delay_ms` in the future,
    expiring `ttl_ms` after its enqueue, failing its first `fails` attempts, offered the fast
    path. The default is a run as ckviz had them before the lifecycle."""

    delay_ms: int = 0
    ttl_ms: int | None = None
    fails: int = 0
    fast_path: bool = False
    # a forked start (ckviz whatif): a run already waiting `age_ms` when the run begins (its
    # score that much older than its arrival), or already holding its slot (`held`)
    age_ms: int = 0
    held: bool = False

    @property
    def has_lifecycle(self) -> bool:
        """A delay, a TTL, failures or the fast path: the lifecycle's paths are needed (a
        forked start's age and hold are not lifecycle: plain runs take them)."""
        return bool(self.delay_ms or self.ttl_ms is not None or self.fails or self.fast_path)


PLAIN = RunLifecycle()
