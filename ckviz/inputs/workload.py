"""Seeded workloads: a bit-exact port of npm seedrandom v3 (ARC4) and the run sampler."""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import TYPE_CHECKING

from ckviz.model.lifecycle import PLAIN, RunLifecycle
from ckviz.model.queue import PlannedRun, js_string_order, run_id

if TYPE_CHECKING:
    from ckviz.model.scenario import KeySpec, Scenario
    from ckviz.model.steps import StepKeySpec

_WIDTH = 256
_SIGNIFICANCE = 2**52
_OVERFLOW = 2**53
_START = float(_WIDTH**6)


class SeedRandom:
    """`seedrandom(seed)` from npm seedrandom 3.0.5: ARC4 keyed by a string seed."""

    def __init__(self, seed: str) -> None:
        key = _mix_key(seed)
        s = list(range(_WIDTH))
        j = 0
        keylen = len(key)
        for i in range(_WIDTH):
            t = s[i]
            j = (j + key[i % keylen] + t) & 255
            s[i] = s[j]
            s[j] = t
        self._s = s
        self._i = 0
        self._j = 0
        self._bytes(_WIDTH)  # RC4-drop[256], as the reference does

    def _bytes(self, count: int) -> int:
        s, i, j = self._s, self._i, self._j
        r = 0
        for _ in range(count):
            i = (i + 1) & 255
            t = s[i]
            j = (j + t) & 255
            s[i] = s[j]
            s[j] = t
            r = r * _WIDTH + s[(s[i] + s[j]) & 255]
        self._i, self._j = i, j
        return r

    def random(self) -> float:
        """The next double in [0, 1), exactly as JavaScript's `rng()` returns it."""
        n = float(self._bytes(6))
        d = _START
        x = 0
        while n < _SIGNIFICANCE:
            n = (n + x) * _WIDTH
            d *= _WIDTH
            x = self._bytes(1)
        while n >= _OVERFLOW:
            n /= 2
            d /= 2
            x >>= 1  # JS `>>>= 1` on a byte: the same
        return (n + x) / d


def _mix_key(seed: str) -> list[int]:
    """seedrandom's `mixkey`: fold the seed's UTF-16 code units into at most 256 bytes."""
    units = _utf16_units(seed)
    key: list[int] = []
    smear = 0
    for j, c in enumerate(units):
        slot = j & 255
        old = key[slot] if slot < len(key) else 0
        smear = _int32(smear ^ _int32(old * 19))
        value = (smear + c) & 255
        if slot < len(key):
            key[slot] = value
        else:
            key.append(value)
    return key or [0]


def _int32(x: int) -> int:
    x &= 0xFFFFFFFF
    return x - 0x1_0000_0000 if x & 0x8000_0000 else x


def _utf16_units(text: str) -> list[int]:
    raw = text.encode("utf-16-be", "surrogatepass")
    return [(raw[k] << 8) | raw[k + 1] for k in range(0, len(raw), 2)]


def js_round(x: float) -> int:
    """JavaScript's Math.round for the non-negative values we sample: floor(x + 0.5)."""
    return math.floor(x + 0.5)


def exp_ms(rng: SeedRandom, mean: float) -> int:
    """An exponential duration in whole ms, at least 1."""
    return max(1, js_round(-math.log(1 - rng.random()) * mean))


def each_run(scenario: Scenario, seed: str) -> Iterator[PlannedRun]:
    """`generate`'s runs one at a time; a trace's read from its file as they are asked for,
    never all held (a day of 10,000,000 runs)."""
    if scenario.replay is not None:
        from ckviz.inputs.trace_stream import stream  # the trace reader builds on this module

        return stream(scenario.replay).runs
    return iter(generate(scenario, seed))


def generate(scenario: Scenario, seed: str) -> list[PlannedRun]:
    """Every run of `scenario` under `seed`, in event order (arrival, key, run id); a trace
    scenario replays its file, the same under every seed."""
    if scenario.replay is not None:
        from ckviz.inputs.trace_stream import replay  # the trace reader builds on this module

        return replay(scenario.replay)
    rng = SeedRandom(seed)
    # Failures are drawn from a generator of their own: arrivals and holds stay the draws
    # they were before the lifecycle existed.
    fails = SeedRandom(f"{seed}/fail")
    draw, log, floor = rng.random, math.log, math.floor
    runs: list[PlannedRun] = []
    order: dict[str, bytes] = {}  # each key's sort text, made once (not once per run)
    for spec in scenario.keys:  # named_keys' order; what a family shares worked out once
        poisson = spec.arrival == "poisson"
        gap_mean, hold_mean = 1000 / spec.rate_per_sec, spec.hold_ms_mean
        lifecycle = spec.has_lifecycle  # a walk over the spec's fields
        for name in spec.names():
            order[name] = js_string_order(name)
            cursor = spec.start_at_ms
            for i in range(spec.runs):
                # exp_ms inlined (the same floats): about 300,000 draws at 100,000 keys
                if poisson and i > 0:
                    cursor += max(1, floor(-log(1 - draw()) * gap_mean + 0.5))
                hold = max(1, floor(-log(1 - draw()) * hold_mean + 0.5))
                arrival = cursor if poisson else spec.start_at_ms
                life = run_life(spec, fails) if lifecycle else PLAIN
                runs.append(PlannedRun(name, run_id(name, i), arrival, hold, life))
    runs.sort(key=lambda r: (r.arrival_ms, order[r.key], js_string_order(r.run_id)))
    return runs


def run_life(spec: KeySpec | StepKeySpec, fails: SeedRandom) -> RunLifecycle:
    """What a run of `spec` does beyond arriving and holding; whether it fails is a draw."""
    failing = spec.fail_rate is not None and fails.random() < spec.fail_rate
    return RunLifecycle(
        delay_ms=spec.delay_ms or 0,
        ttl_ms=spec.ttl_ms,
        fails=(spec.fail_attempts or 1) if failing else 0,
        fast_path=bool(spec.fast_path),
    )
