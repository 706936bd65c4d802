"""The file `ckviz stress --out` writes: what ran, its throughput, each kind of call's
latency percentiles and the invariant counts (not deterministic: real concurrency)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from ckviz import __version__
from ckviz.model.results import RedisInfo
from ckviz.stress.ledger import INVARIANTS
from ckviz.stress.run import StressReport


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class CallLatency(_Strict):
    calls: int
    p50_ms: float
    p99_ms: float
    max_ms: float


class ConsumerFigures(_Strict):
    consumer: int
    calls: int
    serves: int


class InvariantCount(_Strict):
    checks: int
    violations: int


class StressResults(_Strict):
    kind: str = "stress"
    ckviz_version: str
    complete: bool = True  # false: stopped (ctrl+c, SIGTERM, SIGHUP); the figures so far
    error: str | None = None
    redis: RedisInfo
    scenario: str
    discipline: str
    consumers: int
    seconds_asked: float  # --seconds: production stops then, the consumers drain
    seconds: float  # from the first enqueue to the last consumer's exit
    rounds: int  # times the scenario's runs were sent
    produced: int
    served: int
    dequeues_per_s: float
    calls_per_s: float
    latency: dict[str, CallLatency]  # dequeue (a consumer's trip), enqueue, watch
    per_consumer: list[ConsumerFigures]
    invariants: dict[str, InvariantCount]
    ok: bool


def stress_results(
    report: StressReport, redis: RedisInfo, consumers: int, seconds_asked: float
) -> StressResults:
    ledger, elapsed = report.ledger, report.seconds
    return StressResults(
        ckviz_version=__version__,
        complete=not report.interrupted,
        error="interrupted: the figures so far, production and draining cut short"
        if report.interrupted
        else None,
        redis=redis,
        scenario=report.plan.scenario,
        discipline=report.discipline,
        consumers=consumers,
        seconds_asked=seconds_asked,
        seconds=round(elapsed, 3),
        rounds=report.rounds,
        produced=len(ledger.produced),
        served=report.served,
        dequeues_per_s=round(report.throughput, 1),
        calls_per_s=round(sum(report.calls) / elapsed, 1) if elapsed > 0 else 0.0,
        latency={
            kind: CallLatency(
                calls=s.calls,
                p50_ms=round(s.p50_ms, 3),
                p99_ms=round(s.p99_ms, 3),
                max_ms=round(s.max_ms, 3),
            )
            for kind, s in report.latency.items()
        },
        per_consumer=[
            ConsumerFigures(consumer=i, calls=c, serves=s)
            for i, (c, s) in enumerate(zip(report.calls, report.serves, strict=True))
        ],
        invariants={
            name: InvariantCount(checks=ledger.checks[name], violations=ledger.violations[name])
            for name in INVARIANTS
        },
        ok=report.ok,
    )
