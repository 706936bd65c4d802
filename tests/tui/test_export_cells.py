"""The app's `x` CSVs cannot run in a spreadsheet (issue 35 item 4): a key named like a formula
is written with a leading `'`; ckviz's own numbers stay numbers."""

from __future__ import annotations

import csv
import json
from collections.abc import Callable
from pathlib import Path

import pytest

from ckviz.outputs.csv_text import csv_text, text_cell
from ckviz.tui.app import CkvizApp
from tests.tui.conftest import SIZE, press, press_n, settle

FORMULAS = ['=HYPERLINK("http://evil.example","x")', "+1+1", "-2+3", "@SUM(A1)"]  # no tab or
# CR: a key name may not hold control characters (the unit test below has them)


def scenario(folder: Path) -> Path:
    keys = "".join(  # a JSON string is a TOML basic string
        f'[[keys]]\nname = {json.dumps(name)}\nruns = 3\narrival = "immediate"\n'
        for name in FORMULAS
    )
    path = folder / "formulas.toml"
    path.write_text(keys, "utf-8")
    return path


def rows(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as source:
        return list(csv.DictReader(source))


async def test_keys_named_as_formulas_are_exported_as_text(
    make_app: Callable[..., CkvizApp], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    app = make_app(str(scenario(tmp_path)), "sfq")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press_n(pilot, 6)
        await press(pilot, "x")
        await settle(pilot)
        await pilot.press("q")
    events = rows(next(tmp_path.glob("*-events.csv")))
    keys = rows(next(tmp_path.glob("*-keys.csv")))
    assert sorted(k["key"] for k in keys) == sorted("'" + name for name in FORMULAS)
    assert events and all(e["key"].startswith("'") for e in events)
    assert all(
        e["run_id"].startswith("'") == e["key"][1:].startswith(("=", "+", "-", "@", "\t", "\r"))
        for e in events
    )
    assert all(int(e["wait_ms"]) >= 0 and e["lane"] == "0" for e in events)  # numbers as numbers


def test_only_text_cells_are_escaped() -> None:
    assert [text_cell(v) for v in ("=1", "-x", "ok", -3, -2.5, "")] == [
        "'=1",
        "'-x",
        "ok",
        -3,
        -2.5,
        "",
    ]
    assert csv_text([["@a", -1, "b"]]) == "'@a,-1,b\r\n"
