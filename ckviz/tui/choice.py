"""The terminal app's flags as a checked choice, before any server starts (no Textual here)."""

from __future__ import annotations

import argparse

from ckviz.defaults import DEFAULT_DISCIPLINE, DEFAULT_SCENARIO, DEFAULT_SEED
from ckviz.disciplines.registry import check_discipline
from ckviz.errors import UsageError
from ckviz.inputs import scenario_files
from ckviz.model.clock import STEPS, clock_of
from ckviz.model.names import check_seed
from ckviz.sim.clocks import disciplines_on, runs_on


def app_choice(ns: argparse.Namespace) -> tuple[str, str, str]:
    """Scenario (name or path, checked to load), discipline and seed for the terminal app."""
    if len(ns.discipline) > 1:
        raise UsageError("--discipline: the terminal app takes one (use c for compare mode)")
    if ns.seeds:
        raise UsageError("--seeds is for --headless; the terminal app takes --seed")
    name = ns.scenario_arg or (ns.scenario[0] if ns.scenario else DEFAULT_SCENARIO)
    scenario = scenario_files.load_any(name)
    discipline = check_discipline(ns.discipline[0] if ns.discipline else DEFAULT_DISCIPLINE)
    clock = clock_of(scenario)
    if not runs_on(discipline, scenario) and clock is STEPS:  # steps call by call
        raise UsageError(
            f"--discipline: '{discipline}' does not run on the step scenario '{name}' "
            f"(choose from {', '.join(disciplines_on(clock))})"
        )
    if not runs_on(discipline, scenario):
        raise UsageError(f"--discipline: '{discipline}' runs only in --headless for now")
    seed = check_seed(ns.seed if ns.seed is not None else DEFAULT_SEED)
    return name, discipline, seed
