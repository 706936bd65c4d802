"""What `--headless` writes for CI beside the results: JUnit XML of the --check rules, the
Markdown summary (`--summary-md`), and the GitHub job summary (appended to the file
GITHUB_STEP_SUMMARY names, when it is set). All through the one output writer."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from ckviz.errors import UsageError, echo, echo_path
from ckviz.model.results import CheckResult, Results
from ckviz.outputs.ci_log import annotation_data, annotation_property, own_command, under_actions
from ckviz.outputs.writer import Output, append_output, write_output

ENV_STEP_SUMMARY = "GITHUB_STEP_SUMMARY"


def error_annotations(checks: Sequence[CheckResult]) -> list[str]:
    """Under GitHub Actions, each failed rule as an `::error` workflow command: GitHub shows
    it on the run's page and in the PR (scenario, rule, measured vs wanted). The scenario's
    and the rule's text are escaped as data; the line is ckviz's own (outputs/ci_log.py)."""
    if not under_actions():
        return []
    return [
        own_command(
            f"::error title={annotation_property(f'ckviz check failed: {c.scenario}')}::"
            f"{annotation_data(f'{c.scenario}: {c.rule} ({c.detail})')}"
        )
        for c in checks
        if c.status == "failed"
    ]


def summary_path(text: str) -> Path:
    """The job summary file: appended to, so it may exist; not a folder, in a folder."""
    path = Path(text)
    if path.is_dir():
        raise UsageError(f"{ENV_STEP_SUMMARY}: {echo_path(text)} is a directory; give a file path")
    parent = path.parent if str(path.parent) else Path(".")
    if not parent.is_dir():
        raise UsageError(f"{ENV_STEP_SUMMARY}: {echo(str(parent))} is not a directory")
    return path


def write_ci_outputs(
    results: Results,
    label: str,
    junit: Output | None,
    summary_md: Output | None,
    step_summary: Path | None,
) -> list[str]:
    """Write each requested output; returns what was written, one line each. An output that
    cannot be written raises OutputError naming it (the results file is already safe)."""
    written = []
    if junit is not None:
        from ckviz.headless.junit import junit_xml  # XML's modules only when asked for

        write_output(junit, junit_xml(results.checks or []))
        written.append(f"junit: {junit}")
    if summary_md is None and step_summary is None:
        return written
    from ckviz.report.markdown import render_markdown
    from ckviz.report.sources import Source

    text = render_markdown([Source(label, Path(label), results)])
    if summary_md is not None:
        write_output(summary_md, text)
        written.append(f"summary: {summary_md}")
    if step_summary is not None:
        append_output(step_summary, text, ENV_STEP_SUMMARY)
        written.append(f"summary: appended to {ENV_STEP_SUMMARY}")
    return written
