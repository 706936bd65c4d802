"""One word "starved", one meaning (fairness.STARVED_MEANS) in the tables' notes, the verdict
and the findings; the terminal says what its columns mean once, and only the columns shown."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console

from ckviz.fairness import STARVED_MEANS
from ckviz.headless.report import print_tables
from ckviz.report.findings import findings
from ckviz.report.markdown import render_markdown
from ckviz.report.sources import load_sources
from ckviz.report.tables import DEFINED
from tests.report.handmade import SEEDS, results, run, write


def starving(tmp_path: Path) -> Path:
    runs = []
    for seed in SEEDS:
        for label, starved in (("baseline", ["light"]), ("sfq", [])):
            runs.append(run(label, seed, 14.0, most_underserved_key="light",
                            most_underserved_attainment=0.5, starved_keys=starved))  # fmt: skip
    res = results(runs)
    twin = res.scenarios[0].model_copy(deep=True)
    twin.name = "ck_twin"
    res.scenarios.append(twin)
    return write(tmp_path / "r.json", res)


def test_the_terminal_defines_its_columns_once_and_starved_one_way(tmp_path: Path) -> None:
    (source,) = load_sources([str(starving(tmp_path))])
    console = Console(record=True, width=400)
    print_tables(source.results, console)
    text = console.export_text()
    assert text.count(DEFINED["attainment"][:40]) == 1  # once, not under every table
    assert text.count("Verdict:") == 2
    assert "Keys below 0.9:" not in text  # a column the terminal does not show
    assert "0 = starved" not in text
    said = " ".join(text.split())  # as printed, wrapped or not
    assert said.count(" ".join(STARVED_MEANS.split())[1:]) == 1


def test_the_verdict_findings_and_notes_say_starved_the_same_way(tmp_path: Path) -> None:
    path = starving(tmp_path)
    md = " ".join(render_markdown(load_sources([str(path)])).split())
    assert "baseline starved light on seed-a and seed-b" in md
    assert f"({STARVED_MEANS})" in md.replace("\\", "")  # the finding, Markdown's escapes aside
    assert STARVED_MEANS[1:] in md.replace("\\", "")  # the note
    assert "0 = starved" not in md
    from ckviz.report.views import scenario_views

    first = findings(scenario_views(load_sources([str(path)]))[0])[0]
    assert first.endswith(f"({STARVED_MEANS}).")
