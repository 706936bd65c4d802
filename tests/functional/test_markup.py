"""Issue 20 item 9, headless: key names, seeds, scenario names and paths are shown as text,
never read as Rich markup (a key named `[/]` crashed the tables after the results were
written; `[b]BIG[/b]` rendered bold)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.functional.trust_support import run_ckviz

SCENARIO = """
env_limit = 1
[[keys]]
name = "[/]"
runs = 30
arrival = "immediate"
[[keys]]
name = "[b]BIG[/b]"
runs = 3
arrival = "immediate"
start_at_ms = 5
"""


@pytest.mark.slow
def test_names_that_look_like_markup_are_printed_as_they_are(tmp_path: Path) -> None:
    folder = tmp_path / "[red]dir"
    folder.mkdir()
    scenario = folder / "[i]sc.toml"
    scenario.write_text(SCENARIO)
    out = folder / "[b]r.json"
    proc = run_ckviz("--headless", "--scenario", str(scenario), "--seeds", "[b]s",
                     "--discipline", "baseline", "--discipline", "sfq", "--out", str(out))  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "[i]sc" in proc.stdout  # the table's title
    assert "most under-served key ([b]s), mean wait ms" in " ".join(proc.stdout.split())
    assert "[b]BIG[/b] " in proc.stdout and "[/] " in proc.stdout  # baseline's, sfq's
    assert f"results: {out}" in proc.stderr
    assert json.loads(out.read_text())["complete"] is True
