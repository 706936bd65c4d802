"""Make the README's two pictures from the real thing: docs/images/app.svg and report.png.

The app: ck_skew under sfq on an embedded Redis, driven by Textual's Pilot (30 rounds), saved
as the SVG screenshot Textual exports. The report: the default matrix run headless in a
temporary folder, `ckviz report` of its results, and the top of that page as a PNG taken by
headless Chromium (Debian's `chromium` package; `--chromium PATH` names another binary).

    uv run python scripts/make_doc_pictures.py [--only app|report]

The pictures go stale when the app or the report changes, so tests/tui/test_doc_pictures.py
makes them again and compares what is deterministic, never pixels (fonts differ between
machines):
- app.svg: the characters of the screenshot with their cell positions and their styles
  (`svg_cells`), Textual's per-screenshot id in the class names resolved away;
- report.png: a PNG holds no text to read back, so the script writes `report.sha256` beside
  it: the SHA-256 of the report's HTML made from the same results with their wall-clock
  timings set to 0 (`report_fingerprint`). The timings are the only bytes that differ run to
  run; everything the page shows otherwise (findings, tables, figures) is in the hash, so a
  change to the report's content or to the results it is made of changes it.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import html
import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

IMAGES = Path(__file__).resolve().parent.parent / "docs" / "images"
APP_SIZE = (140, 42)  # columns, rows: wide enough for the side-by-side layout
APP_ROUNDS = 30
REPORT_WINDOW = "1400,1300"  # pixels: the findings, the first table and the first figures
SETTLE_S = 0.3
STEP_POLL_S, STEP_POLLS = 0.01, 6000  # a minute at most


def make_app_picture(out: Path) -> None:
    out.write_text(render_app_svg(), encoding="utf-8")


def render_app_svg() -> str:
    """ck_skew under sfq after APP_ROUNDS steps at APP_SIZE, as Textual's SVG screenshot."""
    from ckviz.player.lanes import Lockstep
    from ckviz.sim.cell.session import new_namespace
    from ckviz.store.prefix import delete_prefix
    from ckviz.store.server import open_server
    from ckviz.tui.app import CkvizApp

    with open_server() as server:
        client = server.client()
        namespace = new_namespace("ckviz-pictures")
        app = CkvizApp(Lockstep(client, namespace), "ck_skew", "sfq")
        try:
            svg = asyncio.run(_stepped_screenshot(app))
        finally:
            delete_prefix(client, namespace)
            client.close()
    return svg


_STYLE = re.compile(r"\.(terminal-\d+-[\w-]+) \{([^}]*)\}")
_TEXT = re.compile(r'<text class="([^"]+)"([^>]*)>([^<]*)</text>')
_AT = re.compile(r'\b(x|y)="([^"]+)"')


def svg_cells(svg: str) -> list[str]:
    """Each text run of a Textual SVG screenshot as `x y style text`: what it shows and where,
    with the class names (which carry a per-screenshot id) replaced by their style."""
    styles = {name: " ".join(rule.split()) for name, rule in _STYLE.findall(svg)}
    cells = []
    for name, attributes, text in _TEXT.findall(svg):
        at = dict(_AT.findall(attributes))
        style = styles.get(name, name.split("-", 2)[-1])
        cells.append(f"{at.get('x')} {at.get('y')} {style} {html.unescape(text)}")
    return cells


async def _stepped_screenshot(app: object) -> str:
    from textual.app import App

    assert isinstance(app, App)
    async with app.run_test(size=APP_SIZE) as pilot:
        await _stepped(app, pilot, None)  # the first frame, before the first step
        for _ in range(APP_ROUNDS):
            before = app.player.recording.current
            await pilot.press("space")
            await _stepped(app, pilot, before)
        await _settled(app, pilot)  # the screen drawn once, after the last step only
        svg: str = app.export_screenshot(title="ckviz: ck_skew under sfq")
    return svg


async def _stepped(app: object, pilot: object, before: object) -> None:
    """Until the player shows a frame other than `before`, its step done: the next press is
    a step of its own (a settled screen awaited after each step, two 0.3 s pauses and two
    screenshots a step, made the test ~20 s longer)."""
    from textual.pilot import Pilot

    from ckviz.tui.app import CkvizApp

    assert isinstance(app, CkvizApp) and isinstance(pilot, Pilot)
    for _ in range(STEP_POLLS):
        await app.workers.wait_for_complete()
        await pilot.pause()
        current = app.player.recording.current
        if not app.player.busy and current is not None and current is not before:
            return
        await pilot.pause(STEP_POLL_S)
    raise TimeoutError("the app's step did not come")


async def _settled(app: object, pilot: object) -> None:
    """Until the step ran on the driver thread and the screen stops changing: the player
    says when its step is done (a screen unchanged while the step is still to start would
    leave the picture a step short, as it did one run in two)."""
    from textual.pilot import Pilot

    from ckviz.tui.app import CkvizApp

    assert isinstance(app, CkvizApp) and isinstance(pilot, Pilot)
    before = None
    for _ in range(100):
        await app.workers.wait_for_complete()
        await pilot.pause(SETTLE_S)
        if app.player.busy or app.player.recording.current is None:
            continue
        now = app.export_screenshot()
        if now == before:
            return
        before = now
    raise TimeoutError("the app did not settle")


CKVIZ = [sys.executable, "-m", "ckviz"]


def make_report_picture(out: Path, chromium: str) -> None:
    with tempfile.TemporaryDirectory(prefix="ckviz-pictures-") as folder:
        work = Path(folder)
        _headless(work)
        _report(work)
        out.with_suffix(".sha256").write_text(_untimed_report_hash(work) + "\n")
        profile = work / "chromium-profile"
        subprocess.run(
            [
                chromium,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--no-first-run",
                "--hide-scrollbars",
                f"--user-data-dir={profile}",
                f"--window-size={REPORT_WINDOW}",
                f"--screenshot={out}",
                (work / "report.html").as_uri(),
            ],
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )


def report_fingerprint(results: Path | None = None) -> str:
    """The hash stored in report.sha256, made again from the default matrix's `results` (a
    fresh headless run when none are given)."""
    with tempfile.TemporaryDirectory(prefix="ckviz-pictures-") as folder:
        work = Path(folder)
        if results is None:
            _headless(work)
        else:
            shutil.copy(results, work / "r.json")
        return _untimed_report_hash(work)  # of the untimed report alone: no other drawn


def _headless(work: Path) -> None:
    """The default matrix run headless in `work`, as r.json."""
    headless = [*CKVIZ, "--headless", "--out", "r.json"]
    subprocess.run(headless, cwd=work, check=True, stdout=subprocess.DEVNULL)


def _report(work: Path) -> None:
    """The report of work/r.json, as work/report.html."""
    report = [*CKVIZ, "report", "r.json", "--out", "report.html"]
    subprocess.run(report, cwd=work, check=True, stdout=subprocess.DEVNULL)


def _untimed_report_hash(work: Path) -> str:
    """SHA-256 of the report made from work/r.json with its wall-clock timings set to 0."""
    untimed = work / "untimed"
    untimed.mkdir()
    results = json.loads((work / "r.json").read_text(encoding="utf-8"))
    (untimed / "r.json").write_text(json.dumps(_untimed(results)), encoding="utf-8")
    report = [*CKVIZ, "report", "r.json", "--out", "report.html"]
    subprocess.run(report, cwd=untimed, check=True, stdout=subprocess.DEVNULL)
    return hashlib.sha256((untimed / "report.html").read_bytes()).hexdigest()


def _untimed(value: Any) -> Any:
    """`value` with every wall_clock_* field 0: the only figures that differ run to run."""
    if isinstance(value, dict):
        return {k: 0 if k.startswith("wall_clock") else _untimed(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_untimed(v) for v in value]
    return value


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=["app", "report"])
    parser.add_argument("--chromium", default=shutil.which("chromium") or "chromium")
    args = parser.parse_args()
    IMAGES.mkdir(parents=True, exist_ok=True)
    if args.only in (None, "app"):
        make_app_picture(IMAGES / "app.svg")
        print(IMAGES / "app.svg")
    if args.only in (None, "report"):
        make_report_picture(IMAGES / "report.png", args.chromium)
        print(IMAGES / "report.png", IMAGES / "report.sha256")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
