"""What `--headless` writes for CI beside the results: JUnit XML of the --check rules, the
Markdown summary (`--summary-md`), and the GitHub job summary (appended to the file
GITHUB_STEP_SUMMARY names, when it is set)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from ckviz.errors import UsageError
from ckviz.headless.junit import write_junit
from ckviz.model.results import Results

ENV_STEP_SUMMARY = "GITHUB_STEP_SUMMARY"


def output_path(text: str, what: str) -> Path:
    """A file ckviz may write: not a folder, in a folder that exists."""
    path = Path(text)
    if path.is_dir():
        raise UsageError(f"{what}: {text} is a directory; give a file path")
    parent = path.parent if str(path.parent) else Path(".")
    if parent.exists() and not parent.is_dir():
        raise UsageError(f"{what}: {parent} is not a directory")
    return path


def write_ci_outputs(
    results: Results,
    results_path: Path,
    junit: Path | None,
    summary_md: Path | None,
    step_summary: Path | None,
) -> list[str]:
    """Write each requested output; returns what was written, one line each. An output that
    cannot be written raises UsageError naming it (the results file is already safe)."""
    written = []
    if junit is not None:
        _guard(junit, lambda: write_junit(results.checks or [], junit))
        written.append(f"junit: {junit}")
    if summary_md is None and step_summary is None:
        return written
    from ckviz.report.markdown import render_markdown
    from ckviz.report.sources import Source

    text = render_markdown([Source(results_path.stem, results_path, results)])
    if summary_md is not None:
        _guard(summary_md, lambda: summary_md.write_text(text, encoding="utf-8"))
        written.append(f"summary: {summary_md}")
    if step_summary is not None:
        _guard(step_summary, lambda: _append(step_summary, text))
        written.append(f"summary: appended to {ENV_STEP_SUMMARY}")
    return written


def _append(path: Path, text: str) -> None:
    with path.open("a", encoding="utf-8") as f:
        f.write(text)


def _guard(path: Path, write: Callable[[], object]) -> None:
    try:
        write()
    except OSError as exc:
        raise UsageError(f"{path}: cannot write: {exc.strerror or exc}") from None
