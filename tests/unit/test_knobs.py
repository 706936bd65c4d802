"""A discipline's knobs are declared once: the docs' table, the schemas, the files' fields and
the flags are made from the declaration (ckviz/disciplines/vtime/knobs.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ckviz.commands.root import HEADLESS_ONLY, build_parser
from ckviz.disciplines.vtime.knobs import KNOBS, VtimeKnobs, knobs_for
from ckviz.model.knob import Knob
from ckviz.model.matrix import Treatment
from ckviz.model.scenario import Scenario, VtimeSettings

ROOT = Path(__file__).resolve().parents[2]
AnyKnob = Knob[int] | Knob[float]


def docs_row(knob: AnyKnob) -> str:
    cells = (
        f"`{knob.name}`",
        f"`{KNOBS.treatment_field(knob)}`",
        f"`{KNOBS.flag(knob)} {knob.metavar}`",
        knob.kind.__name__,
        knob.shown_default(),
        knob.range_text(),
        ", ".join(knob.clocks),
        knob.help,
    )
    return "| " + " | ".join(cells) + " |"


def test_the_docs_table_is_the_declaration() -> None:
    text = (ROOT / "docs" / "disciplines.md").read_text(encoding="utf-8")
    table = text.split("<!-- knobs:vtime -->\n")[1].split("<!-- /knobs -->")[0]
    rows = table.splitlines()[2:]  # below the header and its rule
    assert rows == [docs_row(k) for k in KNOBS.knobs]


@pytest.mark.parametrize(
    ("schema", "path", "name"),
    [
        ("scenario.json", ("$defs", "VtimeSettings"), "{name}"),
        ("scenario-steps.json", ("$defs", "VtimeSettings"), "{name}"),
        ("matrix.json", ("$defs", "Treatment"), "vtime_{name}"),
    ],
)
def test_the_schemas_hold_each_knob_as_declared(
    schema: str, path: tuple[str, ...], name: str
) -> None:
    node = json.loads((ROOT / "schemas" / schema).read_text(encoding="utf-8"))
    for part in path:
        node = node[part]
    for knob in KNOBS.knobs:
        field = node["properties"][name.format(name=knob.name)]
        number = next(s for s in field["anyOf"] if s["type"] != "null")
        assert number["type"] == {int: "integer", float: "number"}[knob.kind]
        assert field["description"] == knob.help
        bounds = {"exclusiveMinimum": knob.above, "minimum": knob.at_least}
        bounds["maximum"] = knob.at_most
        assert {k: v for k, v in number.items() if k != "type"} == {
            k: v for k, v in bounds.items() if v is not None
        }


def test_one_name_per_knob_in_files_flags_and_the_cells_knobs() -> None:
    flags = {a.dest: a for a in build_parser()._actions}
    for knob in KNOBS.knobs:
        field = KNOBS.treatment_field(knob)
        assert knob.name in VtimeSettings.model_fields
        assert knob.name in VtimeKnobs.__dataclass_fields__
        assert field in Treatment.model_fields and HEADLESS_ONLY[field] == KNOBS.flag(knob)
        assert flags[field].option_strings == [KNOBS.flag(knob)]
        assert getattr(VtimeKnobs(), knob.name) == knob.default


def test_a_cells_knob_is_the_treatments_then_the_scenarios_then_the_default() -> None:
    keys = [{"name": "a", "runs": 1}]
    scenario = Scenario.model_validate({"keys": keys, "vtime": {"window": 5, "quantum": 2.0}})
    treatment = Treatment.model_validate({"discipline": "vtime", "vtime_window": 7})
    assert knobs_for(scenario, treatment) == VtimeKnobs(quantum=2.0, window=7)
