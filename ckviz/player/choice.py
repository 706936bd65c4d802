"""The terminal app's flags as a checked choice, before any server starts (no Textual here)."""

from __future__ import annotations

import argparse

from ckviz.defaults import DEFAULT_DISCIPLINE, DEFAULT_SCENARIO, DEFAULT_SEED
from ckviz.disciplines.registry import FIRST_REDIS_SIDE, check_discipline, runs_in_mix
from ckviz.errors import UsageError
from ckviz.inputs import scenario_files
from ckviz.inputs.scenario_files import AnyScenario
from ckviz.model.lineup import FLAG_OFF
from ckviz.model.names import check_seed
from ckviz.sim.clocks import disciplines_on, runs_on

STAND_IN = FIRST_REDIS_SIDE  # runs in place of a discipline a scenario's clock lacks (both run it)


def fit_disciplines(
    scenario: AnyScenario, disciplines: tuple[str, ...]
) -> tuple[tuple[str, ...], str | None]:
    """`disciplines` for `scenario`: each that its clock runs, kept; each that it does not,
    replaced by one that runs (STAND_IN first) and is not a lane already. With a one-line note
    naming the switch (None: nothing switched)."""
    runnable = runnable_on(scenario)
    chosen: list[str] = []
    notes = []
    for i, name in enumerate(disciplines):
        if name in runnable:
            chosen.append(name)
            continue
        taken = {*chosen, *disciplines[i + 1 :]}
        stand_in = next(d for d in dict.fromkeys((STAND_IN, *runnable)) if d not in taken)
        chosen.append(stand_in)
        notes.append(f"{name} does not run on it, {stand_in} does")
    if not notes:
        return disciplines, None
    kind = scenario.clock.kind
    if scenario.mix is not None:
        kind = "a mixed-rollout"
    note = f"{scenario.name} is {kind} scenario: {'; '.join(notes)} (d picks another)"
    return tuple(chosen), note


def runnable_on(scenario: AnyScenario) -> tuple[str, ...]:
    """The disciplines the app can run on `scenario`: its clock's, and when its file names a
    mix (whose flag-on consumers run the lane's discipline) those that can share a queue."""
    runnable = disciplines_on(scenario.clock)
    if scenario.mix is not None:
        return tuple(name for name in runnable if runs_in_mix(name))
    return runnable


def _default_for(scenario: AnyScenario) -> str:
    """No --discipline: a scenario's mix opens as written (its first flag-on discipline),
    else the app's default where it runs (sfq), else what does (STAND_IN on steps)."""
    if scenario.mix is not None:
        return next(name for name in scenario.mix.names if name != FLAG_OFF)
    return fit_disciplines(scenario, (DEFAULT_DISCIPLINE,))[0][0]


def app_choice(ns: argparse.Namespace) -> tuple[str, str, str]:
    """Scenario (name or path, checked to load), discipline and seed for the terminal app."""
    if len(ns.discipline) > 1:
        raise UsageError("--discipline: the terminal app takes one (use c for compare mode)")
    if ns.seeds:
        raise UsageError("--seeds is for --headless; the terminal app takes --seed")
    name = ns.scenario_arg or (ns.scenario[0] if ns.scenario else DEFAULT_SCENARIO)
    scenario = scenario_files.load_any(name)
    discipline = check_discipline(ns.discipline[0] if ns.discipline else _default_for(scenario))
    counted = isinstance(getattr(ns, "consumers", None), int)  # a count runs no mix
    if scenario.mix is not None and not counted and not runs_in_mix(discipline):
        raise UsageError(
            f"--discipline: scenario '{name}' is a mixed rollout ({scenario.consumers}), whose "
            f"flag-on consumers run the discipline; '{discipline}' cannot share a queue "
            f"(choose from {', '.join(runnable_on(scenario))})"
        )
    clock = scenario.clock
    if not runs_on(discipline, scenario) and clock.in_redis_only:  # steps call by call
        raise UsageError(
            f"--discipline: '{discipline}' does not run on the step scenario '{name}' "
            f"(choose from {', '.join(disciplines_on(clock))})"
        )
    if not runs_on(discipline, scenario):
        raise UsageError(f"--discipline: '{discipline}' runs only in --headless for now")
    seed = check_seed(ns.seed if ns.seed is not None else DEFAULT_SEED)
    return name, discipline, seed


def compare_choice(ns: argparse.Namespace) -> tuple[str, str] | None:
    """`--compare A,B`: the left and right lanes' disciplines, each checked to run on
    `scenario`; None without the flag."""
    given: str | None = getattr(ns, "compare", None)
    if given is None:
        return None
    names = [name.strip() for name in given.split(",")]
    if len(names) != 2 or not all(names):
        raise UsageError(f"--compare: '{given}' is not two disciplines A,B (e.g. sfq,baseline)")
    if ns.discipline:
        raise UsageError("--compare: it names both lanes' disciplines; drop --discipline")
    scenario = ns.scenario_arg or (ns.scenario[0] if ns.scenario else DEFAULT_SCENARIO)
    loaded = scenario_files.load_any(scenario)
    for name in names:
        check_discipline(name, "--compare")
        if name not in runnable_on(loaded):
            raise UsageError(
                f"--compare: '{name}' does not run on '{scenario}' "
                f"(choose from {', '.join(runnable_on(loaded))})"
            )
    return names[0], names[1]
