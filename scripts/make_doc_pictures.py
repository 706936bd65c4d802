"""Make the README's two pictures from the real thing: docs/images/app.svg and report.png.

The app: ck_skew under sfq on an embedded Redis, driven by Textual's Pilot (30 rounds), saved
as the SVG screenshot Textual exports. The report: the default matrix run headless in a
temporary folder, `ckviz report` of its results, and the top of that page as a PNG taken by
headless Chromium (Debian's `chromium` package; `--chromium PATH` names another binary).

    uv run python scripts/make_doc_pictures.py [--only app|report]
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

IMAGES = Path(__file__).resolve().parent.parent / "docs" / "images"
APP_SIZE = (140, 42)  # columns, rows: wide enough for the side-by-side layout
APP_ROUNDS = 30
REPORT_WINDOW = "1400,1300"  # pixels: the findings, the first table and the first figures
SETTLE_S = 0.3


def make_app_picture(out: Path) -> None:
    from ckviz.sim.session import new_namespace
    from ckviz.store.prefix import delete_prefix
    from ckviz.store.server import open_server
    from ckviz.tui.app import CkvizApp
    from ckviz.tui.lanes import Lockstep

    with open_server() as server:
        client = server.client()
        namespace = new_namespace("ckviz-pictures")
        app = CkvizApp(Lockstep(client, namespace), "ck_skew", "sfq")
        try:
            svg = asyncio.run(_stepped_screenshot(app))
        finally:
            delete_prefix(client, namespace)
            client.close()
    out.write_text(svg, encoding="utf-8")


async def _stepped_screenshot(app: object) -> str:
    from textual.app import App

    assert isinstance(app, App)
    async with app.run_test(size=APP_SIZE) as pilot:
        for _ in range(APP_ROUNDS):
            await pilot.press("space")
            await _settled(app, pilot)
        svg: str = app.export_screenshot(title="ckviz: ck_skew under sfq")
    return svg


async def _settled(app: object, pilot: object) -> None:
    """Until the screen stops changing: the step ran on the driver thread and is drawn."""
    from textual.app import App
    from textual.pilot import Pilot

    assert isinstance(app, App) and isinstance(pilot, Pilot)
    before = None
    for _ in range(100):
        await app.workers.wait_for_complete()
        await pilot.pause(SETTLE_S)
        now = app.export_screenshot()
        if now == before:
            return
        before = now
    raise TimeoutError("the app did not settle")


def make_report_picture(out: Path, chromium: str) -> None:
    with tempfile.TemporaryDirectory(prefix="ckviz-pictures-") as folder:
        work = Path(folder)
        ckviz = [sys.executable, "-m", "ckviz"]
        headless = [*ckviz, "--headless", "--out", "r.json"]
        subprocess.run(headless, cwd=work, check=True, stdout=subprocess.DEVNULL)
        subprocess.run([*ckviz, "report", "r.json", "--out", "report.html"], cwd=work, check=True)
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
        print(IMAGES / "report.png")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
