"""A hunt's finding as a scenario file: TOML that `--headless` and the app read back as is."""

from __future__ import annotations

import json
import shlex
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ckviz.hunt.objective import Verdict
from ckviz.hunt.space import HuntCase
from ckviz.outputs.writer import check_output, write_output

WORKLOAD_SEED = "seed-a"  # the millisecond harness draws a found workload's arrivals with it


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)  # a JSON string is a TOML basic string
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, list):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    raise TypeError(f"no TOML form for {type(value).__name__}")


def _is_tables(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and all(isinstance(v, dict) for v in value)


def to_toml(data: Mapping[str, Any], table: str = "") -> list[str]:
    """TOML lines for a model's dump: plain values, then [tables], then [[arrays of tables]]."""
    lines = [
        f"{k} = {_value(v)}"
        for k, v in data.items()
        if not isinstance(v, dict) and not _is_tables(v)
    ]
    for k, v in data.items():
        name = f"{table}.{k}" if table else k
        if isinstance(v, dict) and v:
            lines += ["", f"[{name}]", *to_toml(v, name)]
        elif _is_tables(v):
            for item in v:
                lines += ["", f"[[{name}]]", *to_toml(item, name)]
    return lines


def describe(verdict: Verdict) -> str:
    """One sentence: who is starved, how badly, under which discipline."""
    if verdict.worst_key is None:
        return f"no key was owed enough dequeues to be judged under {verdict.discipline}"
    return (
        f"under {verdict.discipline}, the most under-served key '{verdict.worst_key}' gets "
        f"{verdict.worst_share:.3f} of its fair share (fair-share attainment)"
    )


def scenario_text(case: HuntCase, verdict: Verdict, command: str) -> str:
    """The scenario file's text: the workload, described, with how to reproduce it on top."""
    data = case.scenario.model_dump(mode="json", exclude_defaults=True, exclude={"name"})
    data = {"description": describe(verdict), **data}
    declared = verdict.worst_key in case.scenario.weights()
    if verdict.worst_key is not None and declared:  # the tables' one key's figures: this one
        victim = "victims" if "victims" in type(case.scenario).model_fields else "light_key"
        data[victim] = [verdict.worst_key] if victim == "victims" else verdict.worst_key
    minted = ", minted at run time" if verdict.worst_key is not None and not declared else ""
    header = [
        "Found by `ckviz hunt`; reproduce with:",
        f"  {command}",
        "hunt objective (fair-share attainment of the most under-served key): "
        f"{verdict.worst_share:.5f} ({_key_words(verdict.worst_key)}{minted})",
        f"what --headless reports as contention worst share/weight: {verdict.contention_worst:.5f}",
    ]
    return "\n".join([f"# {line}" for line in header] + to_toml(data)) + "\n"


def reproduce_command(found: str, harness: str, discipline: str) -> str:
    """The line that runs the found file as the hunt judged it, as printed: its results go
    beside it (found.toml -> found.json, replaced on every run), never onto the results.json
    of the folder's own runs."""
    results = str(Path(found).with_suffix(".json"))
    if results == found:
        results = str(Path(found).with_suffix(".results.json"))
    seeds = ["--seeds", WORKLOAD_SEED] if harness == "ms" else []
    words = ["ckviz", "--headless", "--scenario", found, *seeds, "--discipline", discipline]
    return shlex.join([*words, "--out", results, "--force"])


def _key_words(key: str | None) -> str:
    return f"key {key}" if key is not None else "no key judged"


def write_found(path: Path, case: HuntCase, verdict: Verdict, command: str) -> None:
    """Write the finding to `path` (replacing it); the file reproduces it under `command`."""
    out = check_output(str(path), "--out", force=True)
    write_output(out, scenario_text(case, verdict, command))
