"""Issue 19's layout, held: which clock a scenario needs is decided in few places, and the one
Redis-side discipline lives in its package, not wired by hand through the rest of ckviz."""

from __future__ import annotations

import ast
import re
from pathlib import Path

CKVIZ = Path(__file__).resolve().parents[2] / "ckviz"
VTIME_PACKAGE = CKVIZ / "disciplines" / "vtime"


def _modules() -> dict[Path, str]:
    return {path: path.read_text() for path in sorted(CKVIZ.rglob("*.py"))}


def test_the_clock_is_told_apart_in_at_most_two_places() -> None:
    checks = [
        (path.relative_to(CKVIZ), line)
        for path, text in _modules().items()
        for line in text.splitlines()
        if re.search(r"isinstance\([^)]*StepScenario", line)
    ]
    assert 1 <= len(checks) <= 2, checks


# what code above sim/ may import of it (an import-linter contract says it too)
SIM_SURFACES = {"ckviz.sim.engine", "ckviz.sim.clocks", "ckviz.sim.cell"}


def test_code_above_sim_imports_only_the_engine_the_clock_factory_and_the_cell() -> None:
    reached = {
        (str(path.relative_to(CKVIZ)), name)
        for path, text in _modules().items()
        if (CKVIZ / "sim") not in path.parents
        for node in ast.walk(ast.parse(text))
        if isinstance(node, ast.Import | ast.ImportFrom)
        for name in ([node.module or ""] if isinstance(node, ast.ImportFrom) else [])
        + [a.name for a in node.names if isinstance(node, ast.Import)]
        if name.startswith("ckviz.sim")
    }
    assert reached, "nothing above sim/ runs an engine?"
    assert {(path, name) for path, name in reached if name not in SIM_SURFACES} == set()


def test_vtime_lives_in_its_package() -> None:
    """Which modules outside it name vtime is held to docs/architecture.md's list (by
    tests/unit/test_architecture.py, from the code's references)."""
    assert not (CKVIZ / "store" / "vtime.py").exists()
    assert (VTIME_PACKAGE / "__init__.py").exists()


def test_store_knows_no_discipline() -> None:
    store = [(p, t) for p, t in _modules().items() if (CKVIZ / "store") in p.parents]
    assert store
    for path, text in store:
        assert not re.search(r"^\s*(from|import) ckviz\.disciplines", text, re.M), path


# what issue 33 counts as deciding by clock: naming the step clock's list, picking the clock
# by hand, or telling the scenario kinds apart (`on_steps(x)`, the step clock's narrowing, is
# held apart: its uses outside sim/ and model/ read a step scenario's own fields)
DECIDES_BY_CLOCK = re.compile(
    r"on_steps\(\)|clock_of\(|STEP_DISCIPLINES|isinstance\([^)]*Scenario\)"
)
NARROWS_TO_STEPS = re.compile(r"(?<![.\w])on_steps\(\w")
MOST_PLACES_DECIDING_BY_CLOCK = 3
MOST_STEP_NARROWINGS = 2  # a stress plan of the step clock; load()'s refusal of a step file


def _above_the_engine(pattern: re.Pattern[str], defs: bool = True) -> list[tuple[Path, str]]:
    below = (CKVIZ / "sim", CKVIZ / "model")
    return [
        (path.relative_to(CKVIZ), line)
        for path, text in _modules().items()
        if not any(folder in path.parents for folder in below)
        for line in text.splitlines()
        if pattern.search(line) and (defs or not line.lstrip().startswith("def "))
    ]


def test_code_above_the_engine_decides_by_clock_in_at_most_three_places() -> None:
    places = _above_the_engine(DECIDES_BY_CLOCK)
    assert len(places) <= MOST_PLACES_DECIDING_BY_CLOCK, places


def test_narrowings_to_a_step_scenario_above_the_engine_do_not_grow() -> None:
    places = _above_the_engine(NARROWS_TO_STEPS, defs=False)
    assert len(places) <= MOST_STEP_NARROWINGS, places


def test_both_scenario_kinds_answer_what_differs_by_clock() -> None:
    from ckviz.model.clock import MILLISECONDS, STEPS
    from ckviz.model.steps import StepScenario
    from ckviz.sim.clocks import disciplines_on

    steps = StepScenario.model_validate(
        {"harness": {"kind": "steps", "max_steps": 1}, "keys": [{"name": "a", "runs": 1}]}
    )
    assert steps.clock is STEPS and not STEPS.capped and STEPS.in_redis_only
    assert (steps.trace, steps.replay, steps.expect, steps.caps.per_key) == (None, None, [], None)
    assert set(disciplines_on(STEPS)) < set(disciplines_on(MILLISECONDS))
