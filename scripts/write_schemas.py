"""Write the JSON Schemas of the results and scenario files (tests fail when they are stale)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ckviz.live.picture import picture_schema
from ckviz.model.matrix import MatrixSpec
from ckviz.model.results_file import file_schema
from ckviz.model.scenario import Scenario
from ckviz.model.steps import StepScenario

# results-v1.json, the version 1 layout's (per-key rows) as it was last written, stays as it
# is: ckviz still reads such files, but writes version 2 (per-key columns)
SCHEMAS: dict[str, Any] = {
    "results-v2.json": file_schema,
    "scenario.json": Scenario,
    "matrix.json": MatrixSpec,
    "scenario-steps.json": StepScenario,
    "live-picture-v1.json": picture_schema,  # `ckviz watch --once --json`
}
FOLDER = Path(__file__).resolve().parent.parent / "schemas"


def rendered(source: Any) -> str:
    """A model's JSON Schema, or what a function returns (the results file's)."""
    schema = source.model_json_schema() if hasattr(source, "model_json_schema") else source()
    return json.dumps(schema, indent=2, sort_keys=True) + "\n"


def main() -> None:
    for name, model in SCHEMAS.items():
        (FOLDER / name).write_text(rendered(model), encoding="utf-8")
        print(f"wrote schemas/{name}")


if __name__ == "__main__":
    main()
