"""`ckviz validate FILE...`: check scenario, trace and matrix files, one line per problem, and
warn about what `--headless` would refuse to run (a workload that cannot finish in time)."""

from __future__ import annotations

import argparse
import sys
import tomllib
from collections.abc import Sequence
from pathlib import Path

from ckviz.commands.parsing import CommandParser, add_quiet
from ckviz.defaults import DEFAULT_SEEDS
from ckviz.disciplines.registry import FACTORIES, check_scenario_mix, check_treatment
from ckviz.errors import CkvizError, ExitCode, UsageError, one_line
from ckviz.headless.checks import known_names, unknown_names
from ckviz.inputs import scenario_files
from ckviz.model.matrix import MatrixSpec, Treatment
from ckviz.model.names import code_points, look_alikes
from ckviz.model.scenario import MAX_KEYS, MAX_TOTAL_RUNS, MAX_TRACE_RUNS
from ckviz.sim.cell import reject_unfinishable
from ckviz.sim.clocks import treatment_runs_on

MATRIX_FIELDS = ("scenarios", "disciplines", "treatments")  # no scenario file has these


def build_parser() -> argparse.ArgumentParser:
    p = CommandParser(
        prog="ckviz validate",
        description="Check scenario files (.toml), traces (.csv, .jsonl) and matrix files "
        "(a .toml with `scenarios`): one line per problem (`file: field: reason`), exit 2 if "
        "any. Also warns (exit 0) about a workload --headless would refuse: one that cannot "
        f"finish within the logical-time limit. Limits: {MAX_KEYS:,} keys and "
        f"{MAX_TOTAL_RUNS:,} runs per scenario, {MAX_TRACE_RUNS:,} runs per trace.",
    )
    p.add_argument("files", nargs="+", metavar="FILE", help="scenario, trace or matrix file")
    p.add_argument(
        "--allow-trace-outside",
        action="store_true",
        help="let a scenario's [trace] path lead outside the scenario's folder",
    )
    add_quiet(p)
    return p


def main(argv: Sequence[str]) -> int:
    if not argv:
        raise UsageError("validate: give one or more scenario, trace or matrix files")
    ns = build_parser().parse_args(list(argv))
    scenario_files.TRACE_PATHS.outside = ns.allow_trace_outside
    problems: list[str] = []
    for text in ns.files:
        try:  # a bundled scenario by name, as --scenario takes it, or a path
            path = Path(text) if Path(text).is_file() else scenario_files.resolve(text)
        except UsageError as exc:
            problems.append(f"{text}: file not found" if "not found" in str(exc) else str(exc))
            continue
        found, warnings = _matrix(path) if is_matrix(path) else _scenario(path)
        problems += found
        for line in warnings:
            print(one_line(f"{text}: warning: {line}"), file=sys.stderr)
        if not found and not ns.quiet:
            print(f"{text}: ok")
    for line in problems:
        print(one_line(line), file=sys.stderr)
    return int(ExitCode.USAGE) if problems else int(ExitCode.OK)


def is_matrix(path: Path) -> bool:
    """A TOML file naming scenarios or treatments is a matrix, not a scenario."""
    if path.suffix != ".toml":
        return False
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError, RecursionError):
        return False  # the scenario check reports why it cannot be read
    return any(field in data for field in MATRIX_FIELDS)


def _scenario(path: Path) -> tuple[list[str], list[str]]:
    """Every problem of the file in one run: the checks below read what of it was valid."""
    found, scenario = scenario_files.checked(path)
    if scenario is None:
        return found, []
    try:
        check_scenario_mix(scenario.mix, str(path))
    except UsageError as exc:
        found = [*found, str(exc)]
    alike = [
        f"keys '{code_points(a)}' and '{code_points(b)}' look alike (the same once normalised "
        "and without invisible characters): tables show them escaped, but pick distinct names"
        for a, b in look_alikes(k.name for k in scenario.keys)
    ]
    # a rule naming no discipline or treatment would be skipped forever (a step scenario has
    # no rules, and its runs always finish)
    found += [f"{path}: {p}" for p in unknown_names(scenario, known_names())]
    if found:  # --headless refuses the file anyway: no need to ask whether it could finish
        return found, alike
    every = [Treatment(discipline=d) for d in FACTORIES]
    runnable = [t for t in every if treatment_runs_on(t, scenario)]
    return found, alike + _unfinishable(scenario, list(DEFAULT_SEEDS), runnable)


def _matrix(path: Path) -> tuple[list[str], list[str]]:
    found = scenario_files.problems_in(path, MatrixSpec)
    if found:
        return found, []
    matrix = scenario_files.load_matrix(str(path))
    treatments = matrix.all_treatments()
    warnings: list[str] = []
    try:
        for i, t in enumerate(treatments):
            what = "consumers" if t.lineup is not None else "discipline"
            field = f"treatments[{i}].{what}" if matrix.treatments else "disciplines"
            check_treatment(t, f"{path}: {field}")
        for name in matrix.scenarios:
            scenario = scenario_files.load_any(name)
            check_scenario_mix(scenario.mix, str(scenario_files.resolve(name)))
            runnable = [t for t in treatments if treatment_runs_on(t, scenario)]
            warnings += _unfinishable(scenario, list(matrix.seeds), runnable)
    except CkvizError as exc:
        return [f"{path}: {exc}" if not str(exc).startswith(str(path)) else str(exc)], []
    return [], warnings


def _unfinishable(
    scenario: scenario_files.AnyScenario, seeds: list[str], treatments: list[Treatment]
) -> list[str]:
    seeds = seeds[:1] if scenario.replay is not None else seeds
    try:
        reject_unfinishable(scenario, seeds, treatments)
    except UsageError as exc:
        return [f"--headless would refuse it: {exc}"]
    return []
