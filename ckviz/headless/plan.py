"""The matrix plan (`MatrixPlan`: every cell `--headless` will run), made from the command
line's flags and checked before any server starts."""

from __future__ import annotations

import argparse
import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from ckviz.defaults import DEFAULT_MATRIX, DEFAULT_OUT, MAX_CONSUMERS
from ckviz.disciplines.registry import (
    FACTORIES,
    IN_REDIS,
    MIX_EXAMPLE,
    REGISTRY,
    check_discipline,
    check_mix,
    check_scenario_mix,
    check_treatment,
)
from ckviz.disciplines.vtime.knobs import KNOBS as VTIME_KNOBS
from ckviz.errors import UsageError, echo, echo_path
from ckviz.headless.cells import Cell
from ckviz.headless.checks import known_names, unknown_names
from ckviz.headless.ci_outputs import ENV_STEP_SUMMARY, summary_path
from ckviz.inputs import scenario_files
from ckviz.model.clock import STEPS
from ckviz.model.lineup import Lineup
from ckviz.model.matrix import MatrixSpec, Sweep, Treatment
from ckviz.model.names import check_seed, first_duplicate
from ckviz.model.results import SweepInfo
from ckviz.model.scenario import MAX_CLOCK_LIMIT_MS, Scenario
from ckviz.model.steps import StepScenario
from ckviz.outputs.writer import Output, check_output
from ckviz.sim.cell import Need, need_of, reject_unfinishable
from ckviz.sim.clocks import disciplines_on, treatment_runs_on
from ckviz.store.cluster import cell_tag


@dataclass(frozen=True)
class MatrixPlan:
    """Everything `--headless` will run, already validated."""

    scenarios: list[Scenario | StepScenario]
    seeds: list[str]
    treatments: list[Treatment]
    max_count: int
    jobs: int
    out: Output
    check: bool = False
    check_invariants: bool = True
    quiet: bool = False  # --quiet: no tables, no progress, only errors and warnings
    step_max_count: int | None = None  # --max-count for step-harness scenarios
    junit: Output | None = None  # --junit: the --check rules as JUnit XML
    summary_md: Output | None = None  # --summary-md: the Markdown report
    step_summary: Path | None = None  # GITHUB_STEP_SUMMARY: the Markdown report, appended
    shard: tuple[int, int] | None = None  # --shard K/N: run only cells K-1, K-1+N, ...
    flag_caps: tuple[int | None, int | None] = (None, None)  # --per-key-cap, --total-cap
    consumers: int | Lineup | None = None  # --consumers: a count for every treatment, or a mix
    clock_limit_ms: int | None = None  # --clock-limit-ms or the matrix's, on every scenario
    events: Output | None = None  # --events: every dequeue as JSON Lines
    sweeps: Mapping[str, SweepInfo] = field(default_factory=dict)  # [sweep] variants by name

    def need(self) -> Need:
        """The most ckviz may hold on the server at once: `jobs` cells of the largest
        scenario, each with every run queued (the worst case: all arrive at once)."""
        in_flight = min(self.jobs, len(self.scenarios) * len(self.treatments) * len(self.seeds))
        return need_of(self.scenarios, lanes=in_flight)

    def cells(self, namespace: str) -> list[Cell]:
        """Every (scenario, treatment, seed) that applies: a step-harness scenario runs the
        step disciplines only, once (it draws nothing at random, so seeds do not matter)."""
        cells: list[Cell] = []
        for scenario in self.scenarios:
            # a replayed trace is the same under every seed: one run per treatment is enough
            once = not scenario.clock.seeded or scenario.replay is not None
            seeds = self.seeds[:1] if once else self.seeds
            for treatment in self.treatments:
                if treatment_runs_on(treatment, scenario):
                    for seed in seeds:
                        i = len(cells)
                        prefix = f"{namespace}{cell_tag(i)}:"  # one hash slot per cell
                        cell = Cell(i, scenario, seed, treatment, self.max_count, prefix)
                        cells.append(
                            replace(
                                cell,
                                check_invariants=self.check_invariants,
                                step_max_count=self.step_max_count,
                            )
                        )
        return cells

    def my_cells(self, namespace: str) -> list[Cell]:
        """The cells this invocation runs: all, or its shard's deterministic slice."""
        cells = self.cells(namespace)
        if self.shard is None:
            return cells
        k, n = self.shard
        return [c for c in cells if c.index % n == k - 1]


MAX_DEFAULT_JOBS = 16  # one server serves every cell in flight: past a dozen or so it is the limit


def max_jobs() -> int:
    """The most cells in flight `--jobs` may ask for: each holds its scenario's runs on the
    server and its own in the worker's memory, and past a few per core they only queue for
    the cores and the one server (200 asked for, when each was a process, forked 78 workers
    and ~4 GB before this cap)."""
    return max(4 * (os.cpu_count() or 1), MAX_DEFAULT_JOBS)


def default_jobs() -> int:
    """Three cells in flight per core (taking turns in one worker process per core): a cell
    waits on Redis's replies for about half of its time, and while one waits another
    advances its own (measured with bench/scaling.py: docs/performance.md)."""
    return min(3 * (os.cpu_count() or 1), MAX_DEFAULT_JOBS)


def parse_seeds(text: str, flag: str = "--seeds") -> list[str]:
    seeds = [s.strip() for s in text.split(",")]
    if any(not s for s in seeds):
        raise UsageError(f"{flag}: empty seed in '{echo(text)}' (expected e.g. seed-a,seed-b)")
    for seed in seeds:
        check_seed(seed, flag)
    dup = first_duplicate(seeds)
    if dup is not None:
        raise UsageError(f"{flag}: seed '{echo(dup)}' is listed twice")
    return seeds


def check_consumers(value: int | str | None, flag: str = "--consumers") -> int | Lineup | None:
    """How many consumers take turns at the dequeue (1 to MAX_CONSUMERS, each a connection),
    or which consumer runs what (a mix, model/lineup.py: read here, once, and carried)."""
    if isinstance(value, str):
        if ":" not in value and "," not in value and value.strip() not in REGISTRY:
            raise UsageError(
                f"{flag}: expected a whole number (1 to {MAX_CONSUMERS}) or a mix such as "
                f"{MIX_EXAMPLE}, got '{echo(value)}'"
            )
        return check_mix(value, flag)
    if value is not None and not 1 <= value <= MAX_CONSUMERS:
        raise UsageError(f"{flag}: must be 1 to {MAX_CONSUMERS} (one connection each), got {value}")
    return value


def check_clock_limit(value: int | None, flag: str = "--clock-limit-ms") -> int | None:
    """Where the logical clock stops: 1 ms up to a week (arrivals stay below the dequeue's now)."""
    if value is not None and not 1 <= value <= MAX_CLOCK_LIMIT_MS:
        raise UsageError(f"{flag}: must be 1 to {MAX_CLOCK_LIMIT_MS} ms (a week), got {value}")
    return value


def _positive(flag: str, value: int | None) -> int | None:
    if value is not None and value < 1:
        raise UsageError(f"{flag}: must be at least 1, got {value}")
    return value


def _jobs(value: int | None) -> int:
    """Cells in flight: the flag's, at most max_jobs(); else the default."""
    if value is None:
        return default_jobs()
    _positive("--jobs", value)
    if value > max_jobs():
        raise UsageError(
            f"--jobs: at most {max_jobs()} on this machine (cells at once: 4 per core, at "
            f"least {MAX_DEFAULT_JOBS}), got {value}"
        )
    return value


def plan_from_args(ns: argparse.Namespace) -> MatrixPlan:
    """The matrix to run: a matrix file (default 'default') with flags overriding it."""
    matrix: MatrixSpec = scenario_files.load_matrix(ns.matrix or DEFAULT_MATRIX)
    names = list(ns.scenario) + ([ns.scenario_arg] if ns.scenario_arg else [])
    sources = names or list(matrix.scenarios)
    scenarios = [scenario_files.load_any(n) for n in sources]
    for source, scenario in zip(sources, scenarios, strict=True):
        check_scenario_mix(scenario.mix, str(scenario_files.resolve(source)))
    sweeps: dict[str, SweepInfo] = {}
    if not names and matrix.sweep is not None:
        variants = scenario_files.swept(matrix.sweep, ns.matrix or DEFAULT_MATRIX)
        sweeps = _sweep_infos(matrix.sweep, variants)
        scenarios += variants
        sources += [matrix.sweep.scenario] * len(variants)
    _unique([s.name for s in scenarios], "--scenario")
    clock_limit = check_clock_limit(ns.clock_limit_ms) or matrix.clock_limit_ms
    if clock_limit is not None:  # the step clock counts calls: it has no such limit
        limited = {"clock_limit_ms": clock_limit}
        scenarios = [s.model_copy(update=limited) if s.clock.capped else s for s in scenarios]
    given_seeds = [check_seed(ns.seed)] if ns.seed else None
    seeds = parse_seeds(ns.seeds) if ns.seeds is not None else given_seeds
    seeds = seeds or list(matrix.seeds)
    consumers = check_consumers(ns.consumers)
    treatments = _treatments(ns, matrix, consumers)
    _every_cell_has_a_harness(scenarios, treatments)
    stepped = next((s.name for s in scenarios if not s.clock.capped), None)
    if stepped and (ns.per_key_cap or ns.total_cap):
        flag = "--per-key-cap" if ns.per_key_cap else "--total-cap"
        raise UsageError(
            f"{flag}: scenario '{stepped}' runs in the step harness, which has no caps"
        )
    step_max_count = _positive("--max-count", ns.max_count)
    max_count = step_max_count or matrix.max_count
    jobs = _jobs(ns.jobs)
    for scenario in scenarios:
        runnable = [t for t in treatments if treatment_runs_on(t, scenario)]
        reject_unfinishable(scenario, seeds, runnable)
    check = ns.check or ns.junit is not None
    shard = parse_shard(ns.shard) if ns.shard is not None else None
    if shard and check:  # a rule compares treatments a slice may not hold
        raise UsageError(
            "--shard: --check and --junit need the whole matrix; run them on one machine, or "
            "merge the slices (ckviz merge) and read the figures with ckviz report"
        )
    if check:
        _reject_unknown_rule_names(sources, scenarios, treatments)
    step_summary = os.environ.get(ENV_STEP_SUMMARY) or None
    out = check_output(ns.out or DEFAULT_OUT, "--out", force=ns.force)
    return MatrixPlan(
        scenarios,
        seeds,
        treatments,
        max_count,
        jobs,
        out,
        check=check,
        check_invariants=ns.check_invariants,
        quiet=ns.quiet,
        step_max_count=step_max_count,
        junit=check_output(ns.junit, "--junit", ns.force) if ns.junit else None,
        summary_md=check_output(ns.summary_md, "--summary-md", ns.force) if ns.summary_md else None,
        step_summary=summary_path(step_summary) if step_summary else None,
        shard=shard,
        flag_caps=(ns.per_key_cap, ns.total_cap),
        consumers=consumers,
        clock_limit_ms=clock_limit,
        sweeps=sweeps,
        events=_events(ns.events, out, ns.force) if ns.events is not None else None,
    )


def _events(text: str, out: Output, force: bool) -> Output:
    """--events: a place of its own, not the results file's (stdout included)."""
    events = check_output(text, "--events", force)
    if events.is_stdout and out.is_stdout:
        raise UsageError("--events: stdout already holds the results (--out -); give a file")
    same = events.path and out.path and os.path.realpath(events.path) == os.path.realpath(out.path)
    if same:
        raise UsageError(
            f"--events: {echo_path(text)} is the results file (--out); give another path"
        )
    return events


def _sweep_infos(sweep: Sweep, variants: list[Scenario]) -> dict[str, SweepInfo]:
    """What each variant is, by its name: the results record it rather than the name alone."""
    base = scenario_files.load(sweep.scenario).name
    parameter, values = sweep.parameter()
    return {
        variant.name: SweepInfo(scenario=base, parameter=parameter, value=value)
        for variant, value in zip(variants, values, strict=True)
    }


MAX_SHARDS = 10_000  # a CI matrix has at most a few hundred jobs (GitHub Actions: 256)


def parse_shard(text: str) -> tuple[int, int]:
    """`K/N`: the K-th (1-based) of N slices."""
    k_text, _, n_text = (part.strip() for part in text.partition("/"))
    if not all(part.isascii() and part.isdigit() for part in (k_text, n_text)):
        raise UsageError(f"--shard: expected K/N (e.g. 2/4), got '{echo(text)}'")
    k, n = _at_most(k_text, MAX_SHARDS), _at_most(n_text, MAX_SHARDS)
    if n > MAX_SHARDS:
        raise UsageError(f"--shard: at most {MAX_SHARDS} shards, got '{echo(text)}'")
    if not 1 <= k <= n:
        raise UsageError(f"--shard: K must be in 1..N, got {echo(k_text)}/{n}")
    return k, n


def _at_most(digits: str, most: int) -> int:
    """The number `digits` (0-9) spells, or `most + 1` when it is larger (never converting a
    number past Python's 4,300-digit limit)."""
    significant = digits.lstrip("0") or "0"
    return int(significant) if len(significant) <= len(str(most)) else most + 1


def _every_cell_has_a_harness(
    scenarios: list[scenario_files.AnyScenario], treatments: list[Treatment]
) -> None:
    """Each scenario runs some treatment, and each treatment runs on some scenario."""
    for scenario in scenarios:
        if not any(treatment_runs_on(t, scenario) for t in treatments):
            names = ", ".join(t.discipline for t in treatments)
            if isinstance(scenario.consumers, str):
                raise UsageError(
                    f"scenario '{scenario.name}': its consumers are a mix "
                    f"({scenario.consumers}), whose flag-on consumers run the treatment's "
                    f"discipline; none of {names} can share a queue (choose from "
                    f"{', '.join(IN_REDIS)})"
                )
            raise UsageError(
                f"scenario '{scenario.name}': none of the disciplines ({names}) runs on it; "
                f"step-harness scenarios run {', '.join(disciplines_on(STEPS))}, the others "
                f"{', '.join(FACTORIES)}"
            )
    for t in treatments:
        if not any(treatment_runs_on(t, s) for s in scenarios):
            raise UsageError(
                f"--discipline: '{t.discipline}' runs on none of the scenarios "
                "(step-harness scenarios and mixed rollouts run "
                f"{', '.join(disciplines_on(STEPS))})"
            )


def _reject_unknown_rule_names(
    given: list[str], scenarios: list[scenario_files.AnyScenario], treatments: list[Treatment]
) -> None:
    """A rule naming no discipline or treatment is a typo, not a rule to skip."""
    known = known_names(t.name for t in treatments)
    for source, scenario in zip(given, scenarios, strict=True):
        problems = unknown_names(scenario, known)  # a step scenario has no rules
        if problems:
            raise UsageError(f"{scenario_files.resolve(source)}: {problems[0]}")


def _treatments(
    ns: argparse.Namespace, matrix: MatrixSpec, consumers: int | Lineup | None
) -> list[Treatment]:
    per_key = _positive("--per-key-cap", ns.per_key_cap)
    total = _positive("--total-cap", ns.total_cap)
    if matrix.treatments and (ns.discipline or per_key or total):
        flag = "--discipline" if ns.discipline else ("--per-key-cap" if per_key else "--total-cap")
        raise UsageError(
            f"{flag}: matrix '{matrix.name}' lists its own [[treatments]] (discipline and caps "
            "each); the flag would change every one of them, so drop it or use a matrix with "
            "`disciplines`"
        )
    if isinstance(consumers, Lineup):  # a mix names the disciplines: it is the one treatment
        _mix_alone(ns, matrix)
        base = [Treatment.mixed(consumers)]
    elif ns.discipline:
        _unique(ns.discipline, "--discipline")
        base = [Treatment(discipline=check_discipline(d)) for d in ns.discipline]
    else:
        base = matrix.all_treatments()
        path = scenario_files.resolve(ns.matrix or DEFAULT_MATRIX, scenario_files.matrices_dir())
        for i, t in enumerate(base):
            # a mix is checked here, not in the file's model: name the file and the field
            mix = t.lineup is not None
            check_treatment(
                t, f"{path}: treatments[{i}].consumers" if mix else f"matrix '{matrix.name}'"
            )
    if matrix.consumers is not None:  # the matrix's, unless a treatment has its own
        own = {"consumers": matrix.consumers}
        base = [t if t.consumers else t.model_copy(update=own) for t in base]
    update = {
        "consumers": consumers if isinstance(consumers, int) else None,
        "per_key_cap": per_key,
        "total_cap": total,
        **_knob_flags(ns),
    }
    given = {field: value for field, value in update.items() if value is not None}
    return [t.model_copy(update=given) for t in base] if given else base


def _mix_alone(ns: argparse.Namespace, matrix: MatrixSpec) -> None:
    """A mix on the command line is the run's one treatment: nothing else may name one."""
    if ns.discipline:
        raise UsageError(
            "--consumers: a mix (name:count,...) names each consumer's discipline; "
            "drop --discipline"
        )
    if matrix.treatments:
        raise UsageError(
            f"--consumers: matrix '{matrix.name}' lists its own [[treatments]]; a mix would "
            "replace every one of them, so drop it or give the matrix's treatments a mix each"
        )


def _knob_flags(ns: argparse.Namespace) -> dict[str, float | None]:
    """The knob flags given, each checked by its declaration: a treatment's field each."""
    given: dict[str, float | None] = {}
    for knob in VTIME_KNOBS.knobs:
        field = VTIME_KNOBS.treatment_field(knob)  # the flag's dest too
        value = getattr(ns, field)
        if value is not None and (problem := knob.problem(value)):
            raise UsageError(f"{VTIME_KNOBS.flag(knob)}: {problem}")
        given[field] = value
    return given


def _unique(names: list[str], flag: str) -> None:
    dup = first_duplicate(names)
    if dup is not None:
        raise UsageError(f"{flag}: '{dup}' given twice")
