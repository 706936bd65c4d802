"""The docs pictures are the real thing: made again the way scripts/make_doc_pictures.py
makes them, they match the committed ones (see the script's docstring for what is compared).
When one of these fails, the app or the report changed: run the script and commit the
pictures it makes."""

from __future__ import annotations

import difflib
import re

import pytest

from scripts.make_doc_pictures import IMAGES, render_app_svg, report_fingerprint, svg_cells
from tests.shared_runs import default_matrix_results

REMAKE = "stale: `uv run python scripts/make_doc_pictures.py` makes it again"


@pytest.mark.slow
def test_the_app_picture_is_what_the_app_draws_today() -> None:
    committed = svg_cells((IMAGES / "app.svg").read_text(encoding="utf-8"))
    drawn = svg_cells(render_app_svg())
    changed = list(difflib.unified_diff(committed, drawn, "app.svg", "the app", n=0, lineterm=""))
    assert not changed, f"docs/images/app.svg {REMAKE}:\n" + "\n".join(changed[:40])


@pytest.mark.slow
def test_the_report_picture_is_of_the_report_made_today(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    committed = (IMAGES / "report.sha256").read_text(encoding="utf-8").strip()
    made = report_fingerprint(default_matrix_results(tmp_path_factory))  # run today
    assert made == committed, f"docs/images/report.png {REMAKE}"


def test_the_cells_name_what_is_shown_where_and_how_not_the_screenshot_id() -> None:
    svg = (IMAGES / "app.svg").read_text(encoding="utf-8")
    cells = svg_cells(svg)
    assert cells and any("ck_skew" in cell for cell in cells)
    renamed = svg.replace("terminal-", "terminal-1")  # another id, the same picture
    assert svg_cells(renamed) == cells
    moved = re.sub(r'(<text class="terminal-\d+-r\d+" x=")', r"\g<1>1", svg, count=1)
    assert svg_cells(moved) != cells and len(svg_cells(moved)) == len(cells)
    recoloured = svg.replace("-r2 { fill: #", "-r2 { fill: #1", 1)
    assert svg_cells(recoloured) != cells
