"""Turning command-line flags into a validated plan, before any server starts."""

from __future__ import annotations

import argparse

from ckviz import scenario_files
from ckviz.disciplines.registry import DEFAULT_DISCIPLINES, FACTORIES
from ckviz.errors import UsageError, echo, has_control_characters
from ckviz.headless.matrix import MatrixPlan, default_jobs
from ckviz.headless.output import check_out
from ckviz.model.matrix import DEFAULT_SEEDS, MatrixSpec, TreatmentSpec
from ckviz.sim.feasibility import reject_unfinishable
from ckviz.sim.namespace import check_root

DEFAULT_APP_SCENARIO = "ck_skew"
DEFAULT_APP_DISCIPLINE = "sfq"


def check_discipline(name: str) -> str:
    if name not in FACTORIES:
        raise UsageError(
            f"--discipline: unknown discipline '{name}' (choose from {', '.join(FACTORIES)})"
        )
    return name


def check_seed(seed: str, flag: str = "--seed") -> str:
    if not seed.strip():
        raise UsageError(f"{flag}: empty seed")
    if has_control_characters(seed):  # a seed is printed in tables and progress lines
        raise UsageError(f"{flag}: seed '{echo(seed)}' contains control characters")
    return seed


def parse_seeds(text: str, flag: str = "--seeds") -> list[str]:
    seeds = [s.strip() for s in text.split(",")]
    if any(not s for s in seeds):
        raise UsageError(f"{flag}: empty seed in '{echo(text)}' (expected e.g. seed-a,seed-b)")
    for seed in seeds:
        check_seed(seed, flag)
    dup = next((s for s in seeds if seeds.count(s) > 1), None)
    if dup:
        raise UsageError(f"{flag}: seed '{echo(dup)}' is listed twice")
    return seeds


def _positive(flag: str, value: int | None) -> int | None:
    if value is not None and value < 1:
        raise UsageError(f"{flag}: must be at least 1, got {value}")
    return value


def plan_from_args(ns: argparse.Namespace) -> MatrixPlan:
    """The matrix to run: a matrix file (default 'default') with flags overriding it."""
    matrix: MatrixSpec = scenario_files.load_matrix(ns.matrix or "default")
    names = list(ns.scenario) + ([ns.scenario_arg] if ns.scenario_arg else [])
    scenarios = [scenario_files.load(n) for n in (names or matrix.scenarios)]
    _unique([s.name for s in scenarios], "--scenario")
    seeds = parse_seeds(ns.seeds) if ns.seeds else ([check_seed(ns.seed)] if ns.seed else None)
    seeds = seeds or list(matrix.seeds)
    treatments = _treatments(ns, matrix)
    max_count = _positive("--max-count", ns.max_count) or matrix.max_count
    jobs = _positive("--jobs", ns.jobs) or default_jobs()
    for scenario in scenarios:
        reject_unfinishable(scenario, seeds, treatments)
    return MatrixPlan(
        scenarios,
        seeds,
        treatments,
        max_count,
        jobs,
        check_out(ns.out),
        check=ns.check,
        check_invariants=ns.check_invariants,
        prefix=check_root(ns.prefix),
        reuse_prefix=ns.reuse_prefix,
        allow_eviction_risk=ns.allow_eviction_risk,
    )


def _treatments(ns: argparse.Namespace, matrix: MatrixSpec) -> list[TreatmentSpec]:
    per_key = _positive("--per-key-cap", ns.per_key_cap)
    total = _positive("--total-cap", ns.total_cap)
    if ns.discipline:
        _unique(ns.discipline, "--discipline")
        base = [TreatmentSpec(discipline=check_discipline(d)) for d in ns.discipline]
    else:
        base = matrix.all_treatments()
        for t in base:
            if t.discipline not in FACTORIES:
                raise UsageError(f"matrix '{matrix.name}': unknown discipline '{t.discipline}'")
    if per_key is None and total is None:
        return base
    return [
        t.model_copy(
            update={"per_key_cap": per_key or t.per_key_cap, "total_cap": total or t.total_cap}
        )
        for t in base
    ]


def _unique(names: list[str], flag: str) -> None:
    dup = next((n for n in names if names.count(n) > 1), None)
    if dup:
        raise UsageError(f"{flag}: '{dup}' given twice")


def app_choice(ns: argparse.Namespace) -> tuple[str, str, str]:
    """Scenario (name or path, checked to load), discipline and seed for the terminal app."""
    if len(ns.discipline) > 1:
        raise UsageError("--discipline: the terminal app takes one (use c for compare mode)")
    if ns.seeds:
        raise UsageError("--seeds is for --headless; the terminal app takes --seed")
    name = ns.scenario_arg or (ns.scenario[0] if ns.scenario else DEFAULT_APP_SCENARIO)
    scenario_files.load(name)
    discipline = check_discipline(ns.discipline[0] if ns.discipline else DEFAULT_APP_DISCIPLINE)
    seed = check_seed(ns.seed if ns.seed is not None else DEFAULT_SEEDS[0])
    return name, discipline, seed


__all__ = ["DEFAULT_DISCIPLINES", "app_choice", "plan_from_args"]
