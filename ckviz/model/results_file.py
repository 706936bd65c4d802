"""The results file as written (`schema_version: 2`): the models' figures with per-key rows
turned into columns (ckviz/model/key_columns.py), streamed run by run through ckviz's one
writer, and its JSON Schema. Reading takes either layout: the models turn columns back."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

from ckviz.model.json_text import Pieces, readable_json_pieces
from ckviz.model.key_columns import columns_schema, to_columns
from ckviz.model.results import SCHEMA_VERSION, Results, RunResult, ScenarioResult
from ckviz.outputs.interrupts import INTERRUPTS
from ckviz.outputs.writer import Output, write_pieces


def write_results(results: Results, out: Output, rescue: bool = True) -> None:
    """Written whole (streamed: one run's figures in memory at a time), whatever signals
    arrive meanwhile; OutputError on failure (with `rescue`, the results saved elsewhere,
    and the line says where)."""
    with INTERRUPTS.saving():
        write_pieces(out, lambda: results_pieces(results), rescue=rescue)


def results_pieces(results: Results) -> Iterator[str]:
    """The file's text, piece by piece."""
    return readable_json_pieces(file_node(results))


def results_text(results: Results) -> str:
    """The file's text whole (tests, and small files)."""
    return "".join(results_pieces(results))


def file_node(results: Results) -> dict[str, Any]:
    """What the file holds, in field order; scenarios and their runs made as they are written."""
    node = results.model_dump(mode="json", exclude={"scenarios"})
    node["schema_version"] = SCHEMA_VERSION  # the layout written, whatever was read
    return _ordered(Results, node, "scenarios", Pieces(_scenario(s) for s in results.scenarios))


def _scenario(scenario: ScenarioResult) -> dict[str, Any]:
    node = scenario.model_dump(mode="json", exclude={"runs"})
    for entry in node["summary"]:
        entry["per_key_first_seed"] = to_columns(entry["per_key_first_seed"])
    return _ordered(ScenarioResult, node, "runs", Pieces(_run(r) for r in scenario.runs))


def _run(run: RunResult) -> dict[str, Any]:
    node = run.model_dump(mode="json")
    node["metrics"]["per_key"] = to_columns(node["metrics"]["per_key"])
    return node


def _ordered(model: type[Any], node: dict[str, Any], name: str, value: Any) -> dict[str, Any]:
    """`node` with `name` set to `value` in the model's field order."""
    fields = [f for f in model.model_fields if f in node or f == name]
    return {f: value if f == name else node[f] for f in fields}


def file_schema() -> dict[str, Any]:
    """The JSON Schema of the file as written: the models' with per-key rows as columns."""
    schema = copy.deepcopy(Results.model_json_schema())
    defs = schema["$defs"]
    defs["KeyColumns"] = {
        "description": "Per-key figures, one array per figure in the order of `key`.",
        "title": "KeyColumns",
        **columns_schema(defs["KeyRowResult"], defs),
    }
    ref = {"$ref": "#/$defs/KeyColumns"}
    defs["MetricsResult"]["properties"]["per_key"] = ref
    defs["DisciplineSummary"]["properties"]["per_key_first_seed"] = ref
    for row_model in ("KeyRowResult", "KeyLifecycleResult"):
        defs.pop(row_model)
    version = schema["properties"]["schema_version"]
    schema["properties"]["schema_version"] = {
        "const": SCHEMA_VERSION,
        "default": SCHEMA_VERSION,
        "title": version.get("title", "Schema Version"),
        "type": "integer",
    }
    return schema
