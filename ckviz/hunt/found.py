"""A hunt's finding as a scenario file: TOML that `--headless` and the app read back as is."""

from __future__ import annotations

import json
from pathlib import Path

from ckviz.hunt.objective import Verdict
from ckviz.hunt.space import HuntCase
from ckviz.model.scenario import COMPARISONS, KeySpec, Scenario


def _text(value: str) -> str:
    # A JSON string is a valid TOML basic string (same escapes, \uXXXX included).
    return json.dumps(value, ensure_ascii=False)


def _number(value: float) -> str:
    return repr(float(value))


def scenario_toml(scenario: Scenario, header: list[str]) -> str:
    """`scenario` as a TOML scenario file, `header` lines as comments on top."""
    lines = [f"# {line}" for line in header]
    lines += [f"description = {_text(scenario.description)}", f"env_limit = {scenario.env_limit}"]
    if scenario.light_key is not None:
        lines.append(f"light_key = {_text(scenario.light_key)}")
    caps = scenario.caps
    if caps.per_key is not None or caps.total is not None:
        lines += ["", "[caps]"]
        lines += [f"per_key = {caps.per_key}"] if caps.per_key is not None else []
        lines += [f"total = {caps.total}"] if caps.total is not None else []
    for key in scenario.keys:
        lines += ["", "[[keys]]", *_key_lines(key)]
    for rule in scenario.expect:
        lines += ["", "[[expect]]", f"discipline = {_text(rule.discipline)}"]
        lines.append(f"metric = {_text(rule.metric)}")
        for word in COMPARISONS:
            value = getattr(rule, word)
            if value is not None:
                shown = _text(value) if isinstance(value, str) else _number(value)
                lines.append(f"{word} = {shown}")
        lines += [f"margin = {_number(rule.margin)}"] if rule.margin else []
    return "\n".join(lines) + "\n"


def _key_lines(key: KeySpec) -> list[str]:
    return [
        f"name = {_text(key.name)}",
        f"runs = {key.runs}",
        f"arrival = {_text(key.arrival)}",
        f"rate_per_sec = {_number(key.rate_per_sec)}",
        f"hold_ms_mean = {_number(key.hold_ms_mean)}",
        f"start_at_ms = {key.start_at_ms}",
        f"weight = {_number(key.weight)}",
    ]


def describe(verdict: Verdict) -> str:
    """One sentence: who is starved, how badly, under which discipline."""
    if verdict.worst_key is None:
        return f"no key was ever contended under {verdict.discipline}"
    return (
        f"under {verdict.discipline}, key '{verdict.worst_key}' gets "
        f"{verdict.worst_share:.3f} of the serves it was owed while it waited"
    )


def write_found(path: Path, case: HuntCase, verdict: Verdict, command: str) -> None:
    """Write the finding where `--out` says; the file reproduces it under `command`."""
    update = {"description": describe(verdict), "light_key": verdict.worst_key}
    scenario = case.scenario.model_copy(update=update)
    header = [
        "Found by `ckviz hunt`; reproduce with:",
        f"  {command}",
        f"hunt objective (served / owed while waiting): {verdict.worst_share:.5f} "
        f"(key {verdict.worst_key})",
        f"what --headless reports as contention worst share/weight: {verdict.contention_worst:.5f}",
    ]
    path.write_text(scenario_toml(scenario, header), encoding="utf-8")
