"""`ckviz validate FILE...`: check scenario files, one line per problem."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from ckviz import scenario_files
from ckviz.errors import ExitCode, UsageError, one_line
from ckviz.headless.checks import known_names, unknown_names
from ckviz.model.scenario import Scenario


def validate_files(paths: Sequence[str]) -> int:
    if not paths:
        raise UsageError("validate: give one or more scenario files")
    problems: list[str] = []
    for text in paths:
        path = Path(text)
        if not path.is_file():
            problems.append(f"{text}: file not found")
            continue
        found = scenario_files.problems_in(path)
        if not found:  # a rule naming no discipline or treatment would be skipped forever
            scenario = scenario_files.load_file(path)
            if isinstance(scenario, Scenario):  # step-harness scenarios have no rules
                found = [f"{path}: {p}" for p in unknown_names(scenario, known_names())]
        problems += found
        if not found:
            print(f"{text}: ok")
    for line in problems:
        print(one_line(line), file=sys.stderr)
    return int(ExitCode.USAGE) if problems else int(ExitCode.OK)
