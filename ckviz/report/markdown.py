"""The Markdown report: GitHub-flavoured, sized for a job summary (tables and findings; the
figures live in the HTML report, as a job summary shows no inline images)."""

from __future__ import annotations

from collections.abc import Sequence

from ckviz.model.names import shown_name
from ckviz.report.findings import findings, sweep_findings
from ckviz.report.gate import Gate
from ckviz.report.sources import Source, redis_versions_note
from ckviz.report.sweeps import sweep_views
from ckviz.report.tables import (
    DEFINITIONS,
    Table,
    checks_status,
    checks_table,
    figures_table,
    optional_tables,
    sweep_table,
)
from ckviz.report.verdicts import verdicts
from ckviz.report.views import ScenarioView, scenario_views


def render_markdown(
    sources: Sequence[Source],
    scenarios: Sequence[ScenarioView] | None = None,
    differ: Sequence[str] = (),
    gate: Gate | None = None,
) -> str:
    """`differ`: how the files differ, when compared anyway (--allow-mismatch); `gate`: the
    --fail-if-worse outcome, the first line when given."""
    scenarios = scenario_views(sources) if scenarios is None else scenarios
    out = [*_gate_md(gate), *_status_md(sources), "## ckviz report", ""]
    if differ:
        out += ["**Compared despite running different things (--allow-mismatch):**", ""]
        out += [f"- {_inline(line)}" for line in differ] + [""]
    for s in sources:
        r = s.results
        runs = sum(len(sc.runs) for sc in r.scenarios)
        state = "" if r.complete else f" **incomplete**: {_inline(r.error or 'cells missing')}"
        out.append(
            f"- {_inline(s.label)}: {len(r.scenarios)} scenarios, {runs} runs "
            f"({len(r.matrix.disciplines)} treatments; seeds run: {_inline(', '.join(s.seeds_run))}"
            f"), ckviz {_inline(r.ckviz_version)}, "
            f"redis {_inline(r.redis.version)}{state}"
        )
    note = redis_versions_note(sources)
    out += ["", f"> **Note**: {_inline(note)}"] if note else []
    out.append("")
    out += ["### Verdicts", ""]
    out += [f"- **{_inline(s.name)}**: {_inline(line)}" for s in scenarios for line in verdicts(s)]
    out.append("")
    for s in sources:
        if s.results.checks is not None:
            out += _checks_md(s)
    for sweep in sweep_views(sources, scenarios):
        out += [f"### {_inline(sweep.title)}", ""]
        out += [f"- {_inline(line)}" for line in sweep_findings(sweep)]
        table = sweep_table(sweep)
        out += ["", *_table_md(table, titled=False), f"<sub>{_inline(table.note)}</sub>", ""]
    for scenario in scenarios:
        out += [f"### {_inline(scenario.name)}", ""]
        if scenario.description:
            out += [f"_{_inline(scenario.description)}_", ""]
        out += [f"- {_inline(line)}" for line in findings(scenario)]
        out.append("")
        if scenario.views:
            out += _table_md(figures_table(scenario), titled=False)
            for table in optional_tables(scenario):
                out += _table_md(table)
    out += [f"<sub>{_inline(DEFINITIONS)}</sub>", ""]
    return "\n".join(out) + "\n"


def _gate_md(gate: Gate | None) -> list[str]:
    """The gate's outcome, then each figure that failed it."""
    if gate is None:
        return []
    mark = "❌" if gate.failed else "✅"
    lines = [f"**{mark} ckviz {_inline(gate.headline)}**", ""]
    if len(gate.failures) > 1:
        lines += [f"- FAILED {_inline(str(r))}" for r in gate.failures] + [""]
    return lines


def _status_md(sources: Sequence[Source]) -> list[str]:
    """With --check rules: the status first (passed / N failed), then each failed rule."""
    lines = []
    for s in sources:
        checks = s.results.checks
        if checks is None:
            continue
        failed = [c for c in checks if c.status == "failed"]
        mark = "❌" if failed else "✅"
        lines.append(f"**{mark} ckviz --check ({_inline(s.label)}): {checks_status(checks)}**")
        lines += [""] + [
            f"- FAILED {_inline(c.scenario)}: {_inline(c.rule)} ({_inline(c.detail)})"
            for c in failed
        ]
        lines.append("")
    return lines


def _checks_md(source: Source) -> list[str]:
    table = checks_table(source.label, source.results.checks or [])
    if not table.rows:
        return [f"### {_inline(table.title)}", "", "No [[expect]] rules in the scenarios run.", ""]
    return [
        f"### {_inline(table.title)}",
        "",
        _inline(table.note),
        "",
        *_table_md(table, titled=False),
    ]


def _table_md(table: Table, titled: bool = True) -> list[str]:
    lines = [f"**{_inline(table.title)}**", ""] if titled else []
    lines.append("| " + " | ".join(_cell(h) for h in table.header) + " |")
    lines.append(
        "|" + "|".join("---" if i == 0 else "---:" for i in range(len(table.header))) + "|"
    )
    lines += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in table.rows]
    note = [f"<sub>{_inline(table.note)}</sub>", ""] if table.note and titled else []
    return [*lines, "", *note]


def _cell(text: str) -> str:
    return _inline(text).replace("|", "\\|")


def _inline(text: str) -> str:
    """One line of Markdown that shows the text as written: no HTML, no entity, no stray
    emphasis or strikethrough, no link."""
    text = shown_name(" ".join(text.split()))  # invisible and bidi characters escaped
    for ch in "\\`*_[]<>#&~":
        text = text.replace(ch, "\\" + ch)
    return text
