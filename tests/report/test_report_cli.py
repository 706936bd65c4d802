"""`ckviz report` as a user runs it: on real --headless results, in a real browser when one is
installed, and on bad files (one line naming the file, exit 2)."""

from __future__ import annotations

import json
import os
import shutil
import struct
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from ckviz.store.server import RedisServer
from tests.functional import cli_support
from tests.functional.cli_support import ckviz, ckviz_here

pytestmark = [pytest.mark.xdist_group("test_report_cli"), pytest.mark.slow]

BROWSERS = ("chromium", "chromium-browser", "google-chrome")
PROBE = """<script>
window.addEventListener("error", e => console.error("resource failed: " + (e.target.src || e.message)), true);
window.addEventListener("load", () => {
  document.body.dataset.widths = [...document.images].map(i => i.naturalWidth).join(",");
});
</script>"""


@pytest.fixture(scope="module")
def caps_results(redis_server: RedisServer, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Real --headless results (in this process, on the session's server: the report, not
    the run, is what these tests are about)."""
    out = tmp_path_factory.mktemp("caps") / "results.json"
    more = ("--scenario", "ck_sybil", "--seeds", "seed-a", "--check")
    assert cli_support.headless(redis_server, Path("caps"), out, *more) == 0
    return out


@pytest.fixture(scope="module")
def caps_report(
    caps_results: Path, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Path, Path, subprocess.CompletedProcess[str]]:
    """`ckviz report` on the real results, HTML and Markdown, made once for the tests that
    read it (a report of six figures takes seconds to draw)."""
    folder = tmp_path_factory.mktemp("caps-report")
    html, md = folder / "report.html", folder / "report.md"
    proc = ckviz("report", str(caps_results), "--out", str(html), "--markdown", str(md))
    return html, md, proc


def test_report_on_real_results_writes_html_and_markdown(
    caps_report: tuple[Path, Path, subprocess.CompletedProcess[str]],
) -> None:
    html, md, proc = caps_report
    assert proc.returncode == 0, proc.stderr
    page, text = html.read_text(encoding="utf-8"), md.read_text(encoding="utf-8")
    # fairness, per-key and (ck_sybil's keys belong to tenants) per-tenant attainment, wait CDFs,
    # service over time, keys over time, caps
    assert page.count("<figure") == 7
    assert 'data-figure="tenant-attainment"' in page
    assert (
        "per-key-cap does nothing for light's mean wait" in text
    )  # the sybil split walks around it
    # one seed: one sample, so no cut is claimed for a wait, which has no interval of its own
    assert "sfq cuts light's mean wait from" not in text
    assert "one sample: no interval for waits, so not a claim" in text
    assert "Verdict: one sample (seed seed-a):" in text and "seeds' spread" not in text
    assert "### Checks: results" in text and "| PASSED | ck\\_sybil |" in text
    assert f"report: {html}" in proc.stderr


def without_timelines(results: Path, out: Path) -> Path:
    """The results as a file written before runs kept a timeline (three figures to draw)."""
    data = json.loads(results.read_text())
    for scenario in data["scenarios"]:
        for r in scenario["runs"]:
            del r["metrics"]["timeline"]
    out.write_text(json.dumps(data))
    return out


@pytest.fixture(scope="module")
def old_report(
    caps_results: Path, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Path, subprocess.CompletedProcess[str]]:
    """`ckviz report OLD.json` with no --out, in a folder of its own: the folder and the run
    (made once for the tests that read it)."""
    folder = tmp_path_factory.mktemp("old-report")
    old = without_timelines(caps_results, folder / "old.json")
    return folder, ckviz_here("report", str(old), cwd=folder)


def test_report_defaults_to_report_html_in_the_current_folder(
    old_report: tuple[Path, subprocess.CompletedProcess[str]],
) -> None:
    folder, proc = old_report
    assert proc.returncode == 0, proc.stderr
    assert (folder / "report.html").is_file() and not (folder / "report.md").exists()


def browser_or_skip() -> str:
    """Chromium on PATH; elsewhere the test is skipped, saying so (CI installs it and sets
    CKVIZ_REQUIRE_BROWSER, so there a missing browser fails instead)."""
    browser = next((b for b in BROWSERS if shutil.which(b)), None)
    if browser is None:
        reason = (
            f"no Chromium on PATH ({', '.join(BROWSERS)}): the in-browser check of the HTML "
            "report needs one (Debian: apt-get install chromium)"
        )
        if os.environ.get("CKVIZ_REQUIRE_BROWSER"):
            pytest.fail(reason)
        pytest.skip(reason)
    return browser


def headless(browser: str, profile: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """Chromium without a window, a fresh profile, nothing fetched in the background."""
    return subprocess.run(
        [
            browser,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--no-first-run",
            f"--user-data-dir={profile}",
            *args,
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )


FIT = """<script>
window.addEventListener("load", () => {
  const width = document.documentElement.clientWidth;
  const cut = [...document.querySelectorAll("table")].filter(t => {
    const box = t.parentElement;
    return t.getBoundingClientRect().right > width + 0.5 || box.scrollWidth > box.clientWidth + 0.5;
  }).map(t => t.caption ? t.caption.textContent : "?");
  document.body.dataset.fit = JSON.stringify({width, page: document.documentElement.scrollWidth, cut});
});
</script>"""


def png_size(path: Path) -> tuple[int, int]:
    """Width and height from a PNG's header (IHDR comes first)."""
    head = path.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    width, height = struct.unpack(">II", head[16:24])
    return width, height


@dataclass(frozen=True)
class Shown:
    """The report as a browser window `width` px wide showed it: the page after load (the
    probes' findings in it), the browser's log, and a screenshot."""

    figures: int
    browser: subprocess.CompletedProcess[str]
    shot: Path

    def found(self, probe: str) -> str:
        return self.browser.stdout.split(f'data-{probe}="', 1)[1].split('"', 1)[0]


@pytest.fixture(scope="module")
def shown_at(
    caps_report: tuple[Path, Path, subprocess.CompletedProcess[str]],
    tmp_path_factory: pytest.TempPathFactory,
) -> Callable[[int], Shown]:
    """The report in a headless Chromium at a width, once per width for the tests that read
    it: its DOM after load with both probes' findings, its console, and its screenshot (one
    browser start a width: a start costs about a second of CPU)."""
    html, _, made = caps_report
    assert made.returncode == 0, made.stderr
    page = html.read_text(encoding="utf-8")
    shown: dict[int, Shown] = {}

    def at(width: int) -> Shown:
        if width not in shown:
            browser = browser_or_skip()
            folder = tmp_path_factory.mktemp(f"browser-{width}")
            probe = folder / "probe.html"  # the report, and scripts that write what they find
            probe.write_text(page.replace("</body>", PROBE + FIT + "</body>"), encoding="utf-8")
            shot = folder / f"report-{width}.png"
            proc = headless(
                browser,
                folder / "profile",
                f"--window-size={width},1200",
                "--enable-logging=stderr",
                "--v=0",
                "--virtual-time-budget=10000",
                "--dump-dom",
                f"--screenshot={shot}",
                probe.as_uri(),
            )
            shown[width] = Shown(page.count("<figure"), proc, shot)
        return shown[width]

    return at


def test_report_renders_in_a_headless_browser_without_console_errors(
    shown_at: Callable[[int], Shown],
) -> None:
    shown = shown_at(1024)
    proc = shown.browser
    assert proc.returncode == 0, proc.stderr[-2000:]
    console = [line for line in proc.stderr.splitlines() if ":CONSOLE" in line]
    assert console == []
    widths = shown.found("widths").split(",")
    assert len(widths) == shown.figures and all(int(w) > 100 for w in widths), widths


@pytest.mark.parametrize("width", [1024, 1920])
def test_report_tables_are_never_cut_in_a_browser(
    shown_at: Callable[[int], Shown], width: int
) -> None:
    """At a laptop's 1024 px and a meeting room's 1920 px: every table fits the page (wrapped),
    none spills past it or hides columns behind a scroll bar; a screenshot is that wide."""
    shown = shown_at(width)
    proc = shown.browser
    assert proc.returncode == 0, proc.stderr[-2000:]
    fit = json.loads(shown.found("fit").replace("&quot;", '"'))
    assert fit["cut"] == [] and fit["page"] <= fit["width"] <= width, fit
    assert shown.shot.is_file(), proc.stderr[-2000:]
    assert png_size(shown.shot) == (width, 1200)


@pytest.mark.parametrize(
    ("content", "says"),
    [
        (None, "file not found"),
        ("{not json", "not valid JSON"),
        ('{"scenarios": []}', "not a ckviz results file: ckviz_version: Field required"),
        ("[1, 2]", "not a ckviz results file: (top level)"),
        ('{"schema_version": 3}', "results schema_version 3; this ckviz reads 1 to 2"),
        ("\udcff", "cannot read"),
    ],
)
def test_a_bad_results_file_is_one_line_naming_it(
    tmp_path: Path, content: str | None, says: str
) -> None:
    bad = tmp_path / "bad.json"
    if content == "\udcff":
        bad.write_bytes(b"\xff\xfe\x00garbage")
    elif content is not None:
        bad.write_text(content, encoding="utf-8")
    proc = ckviz_here("report", str(bad), "--out", str(tmp_path / "r.html"))
    assert proc.returncode == 2
    (line,) = proc.stderr.strip().splitlines()
    assert line.startswith(f"ckviz: error: {bad}: ") and says in line, line
    assert not (tmp_path / "r.html").exists()


def test_bad_report_flags_are_usage_errors(tmp_path: Path, caps_results: Path) -> None:
    proc = ckviz_here("report")
    assert proc.returncode == 2 and "RESULTS.json" in proc.stderr
    proc = ckviz_here("report", str(caps_results), "--out", str(tmp_path))
    assert proc.returncode == 2 and "is a directory" in proc.stderr
    proc = ckviz_here("report", str(caps_results), "--markdown", str(tmp_path / "nope" / "r.md"))
    assert proc.returncode == 2 and "does not exist (create it first)" in proc.stderr


def test_old_results_without_timelines_still_report(
    old_report: tuple[Path, subprocess.CompletedProcess[str]],
) -> None:
    folder, proc = old_report
    assert proc.returncode == 0, proc.stderr
    page = (folder / "report.html").read_text()
    assert [
        kind
        for kind in ("fairness", "attainment", "wait-cdf", "service", "strip", "caps")
        if f'data-figure="{kind}"' in page
    ] == ["fairness", "attainment", "caps"]
