"""Hand-made results files for the report tests: a few runs whose figures a test sets."""

from __future__ import annotations

from pathlib import Path

from ckviz.model.results import (
    KeyRowResult,
    KeySeriesResult,
    MatrixInfo,
    MetricsResult,
    RedisInfo,
    Results,
    RunResult,
    ScenarioResult,
    Spread,
    SweepInfo,
    TimelineResult,
    TreatmentSummary,
)

SEEDS = ["seed-a", "seed-b"]


def key_row(key: str, mean_wait: float, dequeued: int = 10) -> KeyRowResult:
    w = int(mean_wait)
    return KeyRowResult(
        key=key,
        dequeued=dequeued,
        weight=1.0,
        share=0.5,
        contention_share_over_weight=1.0,
        mean_wait=mean_wait,
        wait_p50=w,
        wait_p99=2 * w,
        wait_max=2 * w,
    )


def timeline(light_wait: float, heavy_wait: float) -> TimelineResult:
    lw, hw = int(light_wait), int(heavy_wait)
    return TimelineResult(
        t_ms=[0, 50, 100],
        wait_percentiles=[0, 50, 100],
        series=[
            KeySeriesResult(key="heavy", keys=1, served=[1, 6, 10], wait_quantiles=[0, hw, 2 * hw]),
            KeySeriesResult(key="light", keys=1, served=[0, 4, 10], wait_quantiles=[0, lw, 2 * lw]),
        ],
    )


def run(
    label: str,
    seed: str,
    light_wait: float,
    *,
    discipline: str | None = None,
    heavy_wait: float = 500.0,
    worst_share: float = 0.5,
    jain: float = 0.8,
    makespan: int = 1000,
    **extra: object,
) -> RunResult:
    fields: dict[str, object] = {"timeline": timeline(light_wait, heavy_wait), **extra}
    metrics = MetricsResult(
        total_dequeued=20,
        redis_round_trips=21,
        wall_clock_ms=1.0,
        contention_worst_share_over_weight=worst_share,
        contention_jain=jain,
        makespan_ms=makespan,
        worst_wait_p99=0,
        worst_wait_max=0,
        per_key=[key_row("heavy", heavy_wait), key_row("light", light_wait)],
        **fields,  # type: ignore[arg-type]
    )
    return RunResult(discipline=discipline or label, treatment=label, seed=seed, metrics=metrics)


def results(
    runs: list[RunResult], name: str = "ck_handmade", checks: list | None = None
) -> Results:  # type: ignore[type-arg]
    labels = list(dict.fromkeys(r.treatment for r in runs))
    flat = Spread(mean=0.0, min=0.0, max=0.0)
    treatments = [
        TreatmentSummary(
            label=label,
            light_key="light",
            light_key_mean_wait=flat,
            worst_key_mean_wait=flat,
            makespan_ms=flat,
            contention_worst_share_over_weight=flat,
        )
        for label in labels
    ]
    return Results(
        ckviz_version="0.1.0",
        redis=RedisInfo(version="6.2.14", mode="embedded"),
        matrix=MatrixInfo(scenarios=[name], seeds=SEEDS, disciplines=labels, max_count=1),
        wall_clock_s=1.0,
        scenarios=[
            ScenarioResult(
                name=name,
                weights={"heavy": 1.0, "light": 1.0},
                runs=runs,
                summary=[],
                treatments=treatments,
            )
        ],
        checks=checks,
    )


def write(path: Path, res: Results) -> Path:
    path.write_text(res.model_dump_json(indent=2), encoding="utf-8")
    return path


def skew_like(
    sfq_light: float = 14.0, cap_light: float = 1300.0, cap_makespan: int = 1000
) -> list[RunResult]:
    """baseline starves the light key; sfq serves it; a per-key cap on baseline. The seeds'
    waits differ a little (seeds whose runs are all alike would be one sample)."""
    runs = []
    for i, seed in enumerate(SEEDS):
        runs.append(run("baseline", seed, 1320.5 + i, worst_share=0.18))
        runs.append(run("sfq", seed, sfq_light - 0.5 + i, worst_share=0.72))
        runs.append(
            run(
                "per-key-cap",
                seed,
                cap_light - 0.5 + i,
                discipline="baseline",
                worst_share=0.2,
                makespan=cap_makespan,
            )
        )
    return runs


def swept(
    figures: dict[int, dict[str, float]], seeds: list[str] = SEEDS, name: str = "ck_many_keys"
) -> Results:
    """A sweep over `light.count`: per value, per treatment, a worst share/weight (the light
    key's wait and the cost follow from it, so each figure differs by value and treatment)."""
    entries = []
    for value, shares in figures.items():
        runs = []
        for label, worst in shares.items():
            for i, seed in enumerate(seeds):
                r = run(
                    label,
                    seed,
                    10.0 * value * (1 - worst) + i,
                    worst_share=worst + i / 100,
                    jain=worst / 2,
                    timeline=None,
                )
                r.metrics.wall_clock_ms = value * (3.0 if label == "sfq" else 0.01) + 20 + i
                runs.append(r)
        entry = results(runs, name=f"{name}[light.count={value}]").scenarios[0]
        entry.sweep = SweepInfo(scenario=name, parameter="light.count", value=value)
        entries.append(entry)
    labels = list(dict.fromkeys(label for shares in figures.values() for label in shares))
    matrix = MatrixInfo(
        scenarios=[e.name for e in entries], seeds=seeds, disciplines=labels, max_count=1
    )
    return results([]).model_copy(update={"scenarios": entries, "matrix": matrix})
