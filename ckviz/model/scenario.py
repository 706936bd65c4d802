"""Scenario files: TOML read into strict pydantic models."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol, TypeVar

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ModelWrapValidatorHandler,
    PrivateAttr,
    ValidationInfo,
    create_model,
    field_validator,
    model_validator,
)

from ckviz.defaults import DEFAULT_CONSUMERS, MAX_CONSUMERS
from ckviz.disciplines.vtime.knobs import KNOBS as VTIME_KNOBS
from ckviz.errors import has_control_characters
from ckviz.model.arithmetic import HELD_SUFFIX
from ckviz.model.clock import MILLISECONDS, Clock
from ckviz.model.expectations import Expectation
from ckviz.model.lifecycle import (
    KeyLifecycle,
    RetrySettings,
    TtlSettings,
    absent,
)
from ckviz.model.lineup import FLAG_OFF, MIX_FORM, Lineup, consumers_value, with_mix_read
from ckviz.model.names import first_duplicate
from ckviz.model.tenants import table_problem, tenant_of

MAX_KEYS = 200_000
MAX_TOTAL_RUNS = 500_000
MAX_TRACE_RUNS = 10_000_000  # a replayed trace may be larger than a sampled workload
# The logical-millisecond clock stops at a scenario's `clock_limit_ms` (SPEC 5): a day unless
# set, so a day's trace replays. Its ceiling keeps every arrival's timestamp below the
# dequeue's "now" (model/clock.py's WALL_NOW, 10^9 ms above the scores' base).
DEFAULT_CLOCK_LIMIT_MS = 86_400_000
MAX_CLOCK_LIMIT_MS = 7 * DEFAULT_CLOCK_LIMIT_MS


_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")  # C0, DEL and C1: as errors.has_control_characters


def key_name_problem(name: str) -> str | None:
    """Why `name` cannot be a concurrency key, or None."""
    # `B:ck:<key>:currentConcurrency` is the held set of `<key>`: a key ending that way
    # would share a Redis key with another key's held set.
    if name.endswith(HELD_SUFFIX):
        return f"a key name may not end with '{HELD_SUFFIX}'"
    # Control characters would break the one-line errors, tables and panes that name keys.
    if _CONTROL.search(name):
        return "a key name may not contain control characters"
    # A lone surrogate (JSON's "\ud800") is no character: it cannot be sent as UTF-8.
    if any(0xD800 <= ord(c) <= 0xDFFF for c in name):
        return "a key name may not contain a lone surrogate (\\ud800-\\udfff): not valid Unicode"
    return None


class _Strict(BaseModel):
    # strict: TOML is typed, so "4" or true for a count is a mistake, not a 4 or a 1
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True, allow_inf_nan=False)


MIN_WEIGHT = 1e-6  # weights are relative: past 10^12 between two keys the fair shares of the
MAX_WEIGHT = 1_000_000  # light ones underflow, and share/weight becomes infinite (not JSON)


def weight_problem(weight: float) -> str | None:
    """Why a positive weight is unusable, or None."""
    if weight < MIN_WEIGHT:
        return f"must be at least {MIN_WEIGHT:g} (weights are relative; scale them up)"
    if weight > MAX_WEIGHT:
        return f"must be at most {MAX_WEIGHT:g}"
    return None


CONSUMERS_HELP = (
    f"consumers taking turns: 1 to {MAX_CONSUMERS}, or a mixed rollout {MIX_FORM} "
    "(or a table); under a treatment, the consumers not named baseline run its discipline"
)


def scenario_consumers(value: object) -> int | str:
    """A scenario's `consumers`: a count, or a mix (model/lineup.py) naming at least one
    consumer that is not `baseline` (those run the treatment's discipline: Treatment.facing)."""
    read = consumers_value(value, MAX_CONSUMERS)
    if isinstance(read, int):
        return read
    if all(name == FLAG_OFF for name in read.names):
        raise ValueError(
            f"a mix of {FLAG_OFF} alone runs no treatment's discipline; give a count, or name "
            f"the flag-on consumers too ({MIX_FORM})"
        )
    return read.form


class _Mixed(Protocol):
    _mix: Lineup | None


Mixed = TypeVar("Mixed", bound=_Mixed)


def scenario_with_mix(data: Any, handler: ModelWrapValidatorHandler[Mixed]) -> Mixed:
    """A scenario validated with its mix read once (with_mix_read): its users take `mix`."""
    data, mix = with_mix_read(data, MAX_CONSUMERS)
    scenario = handler(data)
    if mix is not None:
        scenario._mix = mix
    return scenario


class _KeyShape(_Strict):
    """A key of a millisecond scenario, but for its lifecycle (KeySpec)."""

    name: str = Field(min_length=1, max_length=200)
    runs: int = Field(ge=1, le=MAX_TOTAL_RUNS)
    arrival: Literal["immediate", "poisson"] = "poisson"
    rate_per_sec: float = Field(default=100.0, gt=0, le=1_000_000)
    hold_ms_mean: float = Field(default=50.0, gt=0, le=600_000)
    start_at_ms: int = Field(default=0, ge=0, le=MAX_CLOCK_LIMIT_MS)
    weight: float = Field(default=1.0, gt=0, le=MAX_WEIGHT)
    count: int | None = Field(default=None, ge=1, le=MAX_KEYS)


class KeySpec(KeyLifecycle, _KeyShape):
    """One concurrency key (or, with `count`, a family `name-0..name-{count-1}`)."""

    @field_validator("weight")
    @classmethod
    def _weight_in_range(cls, weight: float) -> float:
        problem = weight_problem(weight)
        if problem:
            raise ValueError(problem)
        return weight

    @field_validator("name")
    @classmethod
    def _usable_name(cls, name: str) -> str:
        problem = key_name_problem(name)
        if problem:
            raise ValueError(problem)
        return name

    def expand(self) -> list[KeySpec]:
        if self.count is None:
            return [self]
        return [self.model_copy(update={"name": name, "count": None}) for name in self.names()]

    def names(self) -> list[str]:
        """The keys this entry declares: itself, or its family's `<name>-<i>`."""
        return (
            [self.name] if self.count is None else [f"{self.name}-{i}" for i in range(self.count)]
        )


class Caps(_Strict):
    """Concurrency caps applied on top of a discipline."""

    per_key: int | None = Field(default=None, ge=1, le=1_000_000)
    total: int | None = Field(default=None, ge=1, le=1_000_000)


class TraceSpec(_Strict):
    """A recorded workload to replay instead of sampled keys: CSV or JSON Lines."""

    path: str = Field(min_length=1, description="the trace file, relative to this TOML file")


@dataclass(frozen=True)
class TraceSummary:
    """What loading a trace learnt (the runs themselves are read again when replayed)."""

    path: str  # absolute
    weights: dict[str, float]  # every key, in order of first appearance
    runs: int
    shift_ms: int  # subtracted from every arrival (epoch ms -> ms since the first arrival)
    stamp: tuple[int, int] | None = None  # (mtime ns, size) when read: a replay checks it
    lifecycle: bool = False  # some line gives delay_ms, ttl_ms or attempts
    held_at_start: int = 0  # runs holding their slots at the start (a forked start's)
    per_key: dict[str, int] = field(default_factory=dict)  # runs per key (what the books plan)
    disorder: int = 0  # the first line arriving before the line above it (0: in time order)
    tenants: dict[str, str] | None = None  # key -> tenant, from a `tenant` column


if TYPE_CHECKING:

    class VtimeSettings(_Strict):
        """The vtime disciplines' knobs (unset: the reference's defaults)."""

else:  # one field per knob vtime declares (ckviz/disciplines/vtime/knobs.py)
    VtimeSettings = create_model(
        "VtimeSettings",
        __base__=_Strict,
        __doc__="The vtime disciplines' knobs (unset: the reference's defaults).",
        __module__=__name__,
        **VTIME_KNOBS.table_fields(),
    )


class VtimeStart(_Strict):
    """vtime's state when a forked start begins (ckviz whatif): the watched queue's tags, floor
    and idle set, by concurrency key. Written for the vtime disciplines only."""

    floor: float | None = Field(default=None, ge=0, allow_inf_nan=False)
    tags: dict[str, float] = {}
    idle: dict[str, float] = {}


# a validation context that checks the fields but not how the keys fit together
FIELDS_ONLY = "fields only"


class Scenario(_Strict):
    """A workload and the env it runs in: sampled from `keys`, or replayed from a `trace`."""

    name: str = ""
    description: str = ""
    env_limit: int = Field(default=4, ge=1, le=100_000)
    consumers: int | str = Field(default=DEFAULT_CONSUMERS, description=CONSUMERS_HELP)
    light_key: str | None = None
    caps: Caps = Caps()
    trace: TraceSpec | None = None  # before `keys`: the keys' check reads it
    keys: list[KeySpec] = Field(default=[], validate_default=True)
    # tenant -> key names or glob patterns (model/tenants.py); left out of a dump while unset
    tenants: dict[str, list[str]] | None = Field(default=None, exclude_if=absent)
    # left out of a dump while unset: a scenario that does not set it keeps its digest
    clock_limit_ms: int | None = Field(
        default=None,
        exclude_if=absent,
        ge=1,
        le=MAX_CLOCK_LIMIT_MS,
        description=f"where the logical clock stops (default {DEFAULT_CLOCK_LIMIT_MS}: a day)",
    )
    expect: list[Expectation] = []
    vtime: VtimeSettings = VtimeSettings()  # knobs of the vtime disciplines
    retry: RetrySettings | None = Field(default=None, exclude_if=absent)  # retryOptions
    ttl: TtlSettings | None = Field(default=None, exclude_if=absent)  # the TTL sweep
    # a forked start's vtime state (ckviz whatif), left out of a dump while unset
    vtime_start: VtimeStart | None = Field(default=None, exclude_if=absent)
    _replay: TraceSummary | None = PrivateAttr(default=None)  # set when the trace is read
    _mix: Lineup | None = PrivateAttr(default=None)  # `consumers` read, when a mix

    _count_or_mix = field_validator("consumers", mode="before")(scenario_consumers)

    @model_validator(mode="wrap")
    @classmethod
    def _read_the_mix(cls, data: Any, handler: ModelWrapValidatorHandler[Scenario]) -> Scenario:
        return scenario_with_mix(data, handler)

    @property
    def mix(self) -> Lineup | None:
        """Which consumer runs what, when `consumers` is a mix (None: a count)."""
        return self._mix

    @property
    def consumer_count(self) -> int:
        """How many consumers take turns, a mix's or a count."""
        return len(self._mix) if self._mix is not None else int(self.consumers)

    @field_validator("keys")
    @classmethod
    def _keys_or_trace(cls, keys: list[KeySpec], info: ValidationInfo) -> list[KeySpec]:
        traced = info.data.get("trace") is not None
        if traced and keys:
            raise ValueError("give either [[keys]] or a [trace], not both")
        if not traced and not keys:
            raise ValueError("needs at least one [[keys]] table (or a [trace] to replay)")
        return keys

    @field_validator("name")
    @classmethod
    def _printable_name(cls, name: str) -> str:
        # the name (a file stem) is printed in tables, progress lines and errors
        if has_control_characters(name):
            raise ValueError("a scenario name may not contain control characters")
        return name

    @field_validator("tenants")
    @classmethod
    def _usable_tenants(
        cls, table: dict[str, list[str]] | None, info: ValidationInfo
    ) -> dict[str, list[str]] | None:
        if table is None:
            return None
        problem = table_problem(table)
        if problem is not None:
            raise ValueError(problem)
        keys: list[KeySpec] = info.data.get("keys") or []  # a trace's: checked when it is read
        tenant_of([name for spec in keys for name in spec.names()], table) if keys else None
        return table

    @model_validator(mode="after")
    def _keys_make_sense(self, info: ValidationInfo) -> Scenario:
        if info.context == FIELDS_ONLY:
            return self  # `validate` reads the valid part of a file, then checks this apart
        if self.trace is not None:
            return self  # the keys come from the trace: checked when it is read
        declared = sum(k.count or 1 for k in self.keys)  # before expanding a million of them
        if declared > MAX_KEYS:
            raise ValueError(f"{declared} keys; at most {MAX_KEYS} are supported")
        names = [name for name, _ in self.named_keys()]
        dup = first_duplicate(names)
        if dup is not None:
            raise ValueError(f"key '{dup}' is declared twice")
        total = self.total_runs
        if total > MAX_TOTAL_RUNS:
            raise ValueError(f"{total} runs in all; at most {MAX_TOTAL_RUNS} are supported")
        if self.light_key is not None and self.light_key not in names:
            raise ValueError(f"light_key '{self.light_key}' is not one of the keys")
        return self

    def expanded_keys(self) -> list[KeySpec]:
        return [k for spec in self.keys for k in spec.expand()]

    def named_keys(self) -> list[tuple[str, KeySpec]]:
        """Every key's name and the entry that declares it (a family shares one): what
        expanded_keys says, without a copy of the entry per key (10,000 of them at scale)."""
        return [(name, spec) for spec in self.keys for name in spec.names()]

    @property
    def clock(self) -> Clock:
        return MILLISECONDS

    @property
    def victims(self) -> None:
        return None  # the step clock's: keys whose waits are reported

    @property
    def between_calls(self) -> None:
        return None  # the step clock's: runs arrive between its calls

    @property
    def replay(self) -> TraceSummary | None:
        """The trace this scenario replays, once read (scenario_files.load reads it)."""
        return self._replay

    def with_replay(self, summary: TraceSummary) -> Scenario:
        copy = self.model_copy()
        copy._replay = summary
        return copy

    @property
    def clock_limit(self) -> int:
        """Where the logical-millisecond clock stops: the scenario's own, else a day."""
        return self.clock_limit_ms or DEFAULT_CLOCK_LIMIT_MS

    @property
    def total_runs(self) -> int:
        if self._replay is not None:
            return self._replay.runs
        return sum(k.runs * (k.count or 1) for k in self.keys)

    @property
    def key_count(self) -> int:
        return sum(k.count or 1 for k in self.keys)

    @property
    def has_lifecycle(self) -> bool:
        """Whether a run may fail, wait for a delay, expire or take the fast path (or the
        scenario sets [retry] or [ttl]): the engine then runs the lifecycle's paths and the
        results carry its figures. Without, everything is as before the lifecycle existed."""
        traced = self._replay is not None and self._replay.lifecycle
        given = self.retry is not None or self.ttl is not None
        return traced or given or any(spec.has_lifecycle for spec in self.keys)

    def tenant_of(self) -> dict[str, str] | None:
        """Each key's tenant, when the scenario's [tenants] table or its trace gives them."""
        keys = list(self.weights())
        if self.tenants is not None:
            return tenant_of(keys, self.tenants)
        given = self._replay.tenants if self._replay is not None else None
        return {k: given.get(k, k) for k in keys} if given else None

    def weights(self) -> dict[str, float]:
        if self._replay is not None:
            return dict(self._replay.weights)
        return {name: spec.weight for name, spec in self.named_keys()}
