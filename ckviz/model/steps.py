"""Step-harness scenario files (SPEC-vtime 6 and 10): a run is a sequence of dequeue calls.

Messages carry fixed timestamps, `t0 + start + i*spacing + k*stagger` (i: the message's index
within its key, k: the key's index within its family); arrivals can also happen between calls
(fresh keys minted before each call, keys refed one message each time a call serves them).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ModelWrapValidatorHandler,
    PrivateAttr,
    ValidationError,
    field_validator,
    model_validator,
)
from typing_extensions import TypeIs

from ckviz.defaults import DEFAULT_CONSUMERS
from ckviz.model.clock import STEPS, Clock
from ckviz.model.expectations import Expectation
from ckviz.model.lifecycle import (
    KeyLifecycle,
    RetrySettings,
    TtlSettings,
    absent,
    optional,
)
from ckviz.model.lineup import Lineup
from ckviz.model.scenario import (
    CONSUMERS_HELP,
    MAX_KEYS,
    MAX_TOTAL_RUNS,
    Caps,
    KeySpec,
    Scenario,
    VtimeSettings,
    scenario_consumers,
    scenario_with_mix,
)

MAX_STEPS = 100_000
STEP_MS = 100  # the ms a step stands for in the run lifecycle's times, unless step_ms says
FRESH_PREFIX = "fresh-"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True, allow_inf_nan=False)


class StepHarness(_Strict):
    """How the calls are made: the reference's micro-benchmark defaults."""

    kind: Literal["steps"]
    max_count: int = Field(default=10, ge=1, le=1000, description="runs per dequeue call")
    hold_steps: int = Field(default=3, ge=0, le=MAX_STEPS, description="steps a run is held")
    max_steps: int = Field(default=1000, ge=1, le=MAX_STEPS, description="calls at most")
    # the run lifecycle's clock: the ms a step stands for (retry delays, TTLs, delays, sweeps)
    step_ms: int | None = optional(ge=1, le=600_000)

    @property
    def ms_per_step(self) -> int:
        return STEP_MS if self.step_ms is None else self.step_ms


class _StepKeyShape(_Strict):
    """A key of a step scenario, but for its lifecycle (StepKeySpec)."""

    name: str = Field(min_length=1, max_length=200)
    runs: int = Field(ge=1, le=MAX_TOTAL_RUNS)
    start: int = Field(default=0, ge=0, le=10**9, description="ms after t0 of the first run")
    spacing: int = Field(default=0, ge=0, le=10**6, description="ms between a key's runs")
    stagger: int = Field(default=0, ge=0, le=10**6, description="ms between a family's keys")
    count: int | None = Field(default=None, ge=1, le=MAX_KEYS)


class StepKeySpec(KeyLifecycle, _StepKeyShape):
    """A key with fixed timestamps; with `count`, the family `name0..name{count-1}` (indices
    zero-padded to the widest, as the reference names them: att00..att19)."""

    def names(self) -> list[str]:
        if self.count is None:
            return [self.name]
        width = len(str(self.count - 1))
        return [f"{self.name}{k:0{width}d}" for k in range(self.count)]

    def timestamp(self, i: int, k: int) -> int:
        """Offset from t0 of message i of family member k."""
        return self.start + i * self.spacing + k * self.stagger


class Arrivals(_Strict):
    """Work arriving between calls (SPEC-vtime 10)."""

    fresh_per_call: int = Field(default=0, ge=0, le=1000, description="new keys before each call")
    fresh_start: int = Field(default=5_000_000, ge=0, le=10**9, description="ms after t0")
    refeed: list[str] = Field(default=[], description="keys refed one run per call serving them")
    refeed_start: int = Field(default=5_000_000, ge=0, le=10**9, description="ms after t0")


class StepScenario(_Strict):
    """A step-harness workload: keys enqueued up front, then one dequeue per step."""

    name: str = ""
    description: str = ""
    env_limit: int = Field(default=25, ge=1, le=100_000)
    consumers: int | str = Field(default=DEFAULT_CONSUMERS, description=CONSUMERS_HELP)
    harness: StepHarness
    keys: list[StepKeySpec] = Field(min_length=1)
    victims: list[str] = Field(default=[], description="keys whose waits are reported")
    arrivals: Arrivals = Arrivals()
    vtime: VtimeSettings = VtimeSettings()
    retry: RetrySettings | None = Field(default=None, exclude_if=absent)
    ttl: TtlSettings | None = Field(default=None, exclude_if=absent)

    _mix: Lineup | None = PrivateAttr(default=None)  # `consumers` read, when a mix

    _count_or_mix = field_validator("consumers", mode="before")(scenario_consumers)

    @model_validator(mode="wrap")
    @classmethod
    def _read_the_mix(
        cls, data: Any, handler: ModelWrapValidatorHandler[StepScenario]
    ) -> StepScenario:
        return scenario_with_mix(data, handler)

    @property
    def mix(self) -> Lineup | None:
        """Which consumer runs what, when `consumers` is a mix (None: a count)."""
        return self._mix

    @property
    def consumer_count(self) -> int:
        """How many consumers take turns, a mix's or a count."""
        return len(self._mix) if self._mix is not None else int(self.consumers)

    @property
    def has_lifecycle(self) -> bool:
        """Whether a run may fail, wait, expire or take the fast path (docs/lifecycle.md)."""
        given = self.retry is not None or self.ttl is not None
        return given or any(spec.has_lifecycle for spec in self.keys)

    @model_validator(mode="after")
    def _keys_make_sense(self) -> StepScenario:
        declared = sum(k.count or 1 for k in self.keys)
        if declared > MAX_KEYS:
            raise ValueError(f"{declared} keys; at most {MAX_KEYS} are supported")
        names = self.key_names()
        seen: set[str] = set()
        for name in names:
            if name in seen:
                raise ValueError(f"key '{name}' is declared twice")
            if name.startswith(FRESH_PREFIX) and self.arrivals.fresh_per_call:
                raise ValueError(f"key '{name}': '{FRESH_PREFIX}' names are for minted keys")
            _check_name(name)
            seen.add(name)
        if sum(k.runs * (k.count or 1) for k in self.keys) > MAX_TOTAL_RUNS:
            raise ValueError(f"more than {MAX_TOTAL_RUNS} runs in all")
        for label, listed in (("victims", self.victims), ("arrivals.refeed", self.arrivals.refeed)):
            stray = next((v for v in listed if v not in seen), None)
            if stray is not None:
                raise ValueError(f"{label}: '{stray}' is not one of the keys")
        return self

    def key_names(self) -> list[str]:
        return [n for spec in self.keys for n in spec.names()]

    def weights(self) -> dict[str, float]:
        return dict.fromkeys(self.key_names(), 1.0)

    @property
    def light_key(self) -> None:
        return None

    @property
    def replay(self) -> None:
        return None  # a step scenario replays no trace

    @property
    def trace(self) -> None:
        return None

    @property
    def caps(self) -> Caps:
        return Caps()  # the step harness runs uncapped (the clock is not `capped`)

    @property
    def clock(self) -> Clock:
        return STEPS

    @property
    def expect(self) -> list[Expectation]:
        return []

    @property
    def total_runs(self) -> int:
        """An upper bound: declared runs plus every run that may arrive between calls."""
        h, a = self.harness, self.arrivals
        declared = sum(k.runs * (k.count or 1) for k in self.keys)
        refeeds = h.max_steps * h.max_count if a.refeed else 0
        return declared + a.fresh_per_call * h.max_steps + refeeds

    @property
    def key_count(self) -> int:
        """Declared keys plus every key minted before a call."""
        return len(self.key_names()) + self.arrivals.fresh_per_call * self.harness.max_steps

    @property
    def between_calls(self) -> bool:
        return bool(self.arrivals.fresh_per_call or self.arrivals.refeed)

    def tenant_of(self) -> None:
        """No tenants on the step clock (its results judge keys only): empty, as a
        millisecond scenario's victims are."""
        return None


def _check_name(name: str) -> None:
    """The same name rules as the millisecond scenarios' keys."""
    try:
        KeySpec(name=name, runs=1)
    except ValidationError as exc:
        reason = str(exc.errors()[0]["msg"]).removeprefix("Value error, ")
        raise ValueError(f"key '{name}': {reason}") from None


def on_steps(scenario: Scenario | StepScenario) -> TypeIs[StepScenario]:
    """Whether the step clock drives `scenario`: for code of the step clock that reads its
    step fields (code above the engine asks the scenario's `clock` instead)."""
    return scenario.clock is STEPS
