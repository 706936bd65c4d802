"""Write the JSON Schemas of the results and scenario files (tests fail when they are stale)."""

from __future__ import annotations

import json
from pathlib import Path

from ckviz.model.matrix import MatrixSpec
from ckviz.model.results import Results
from ckviz.model.scenario import Scenario
from ckviz.model.steps import StepScenario

SCHEMAS = {
    "results-v1.json": Results,
    "scenario.json": Scenario,
    "matrix.json": MatrixSpec,
    "scenario-steps.json": StepScenario,
}
FOLDER = Path(__file__).resolve().parent.parent / "schemas"


def rendered(model: type) -> str:
    return json.dumps(model.model_json_schema(), indent=2, sort_keys=True) + "\n"


def main() -> None:
    for name, model in SCHEMAS.items():
        (FOLDER / name).write_text(rendered(model), encoding="utf-8")
        print(f"wrote schemas/{name}")


if __name__ == "__main__":
    main()
