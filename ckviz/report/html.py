"""The HTML report: one file, nothing fetched. Styles inline; each figure an SVG document
inlined as a base64 `data:` image, so figures keep their own ids (glyph and clip ids of two
matplotlib SVGs would clash in one DOM) and the page needs no script."""

from __future__ import annotations

import base64
from collections.abc import Callable, Sequence
from html import escape as html_escape

from ckviz.model.names import shown_name
from ckviz.model.results import Spread
from ckviz.report import plots, strip_plot, sweep_plots
from ckviz.report.findings import findings, sweep_findings
from ckviz.report.gate import Gate
from ckviz.report.sources import Source, redis_versions_note
from ckviz.report.sweeps import SweepView, sweep_views
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
from ckviz.report.views import Row, ScenarioView

CSS = """
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:2rem auto;
max-width:1200px;padding:0 1rem;color:#1d1d1f;background:#fff}
h1{font-size:1.6rem}h2{border-bottom:1px solid #ddd;padding-bottom:.2rem;margin-top:2.5rem}
table{border-collapse:collapse;margin:.6rem 0 1rem;font-size:12.5px}
th,td{border:1px solid #d8d8d8;padding:.2rem .5rem;text-align:right;vertical-align:top;
overflow-wrap:break-word}th{font-weight:600}
th{background:#f4f4f6}td:first-child,th:first-child{text-align:left}
caption{text-align:left;font-weight:600;padding:.2rem 0}
figure{margin:1rem 0}figure img{max-width:100%;height:auto}
figcaption{color:#555;font-size:12.5px}ul.findings li{margin:.2rem 0}
.note{color:#555;font-size:12.5px}.failed{color:#b00020;font-weight:600}
.sweep figure{display:inline-block;width:49%;vertical-align:top;margin:.5rem 0}
.scroll{overflow-x:auto;max-width:100%}.verdict{font-weight:600}
p.description{color:#333;font-style:italic;margin:.2rem 0 .6rem}
ul.verdicts li{margin:.3rem 0}.passed{color:#1b7f3b}.skipped{color:#777}nav a{margin-right:.8rem}
"""

Drawing = Callable[[ScenarioView], str]
FIGURES: tuple[tuple[str, Drawing, str], ...] = (
    (
        "fairness",
        plots.fairness_svg,
        "Fairness and waits by treatment: bar = mean over seeds, "
        "whisker = min..max; waits on a log scale past 10.",
    ),
    (
        "wait-cdf",
        plots.wait_cdf_svg,
        "Per-key wait distribution (first seed): the share of a "
        "key's runs that waited at most x; the light key in black, pooled keys grey.",
    ),
    (
        "service",
        plots.service_svg,
        "Service over time (first seed): each key's share of all runs dequeued so far.",
    ),
)
ATTAINMENT_FIGURE = (
    "attainment",
    plots.attainment_svg,
    "Per-key fair-share attainment (first seed): the dequeues each key got over those it was "
    "owed, lowest first, the last three bars the most over-served (who gained); red below half "
    "its share, orange below 0.9, green above 1.1, the line at 1 is fair; each panel's axis "
    "runs to its highest key.",
)
TENANT_FIGURE = (
    "tenant-attainment",
    plots.tenant_attainment_svg,
    "Per-tenant fair-share attainment (first seed), where keys belong to tenants: the dequeues "
    "a tenant's keys got over those it was owed, each tenant owed an equal share among the "
    "tenants waiting (a tenant split over many keys owed no more); lowest first, colours as "
    "above, the line at 1 is fair, each panel's axis runs to its highest tenant.",
)
STRIP_FIGURE = (
    "strip",
    strip_plot.strip_svg,
    "Keys over time (first seed), as the app's key strip: a row per key, each cell the runs "
    "it was dequeued in that stretch (darker: more); a white stretch in a row is a key unserved.",
)
CAPS_FIGURE = (
    "caps",
    plots.caps_svg,
    "Caps treatments: hatched bars apply a cap; bar = mean over seeds, whisker = min..max.",
)


SweepFigure = tuple[str, str, Callable[[Row], Spread | None], sweep_plots.SweepScale, str]


def escape(text: str) -> str:
    """Text as HTML shows it: markup escaped, invisible and bidi characters as escapes."""
    return html_escape(shown_name(text))


def sweep_figures(sweep: SweepView) -> list[SweepFigure]:
    """(kind, title, figure, scale, caption) of each plot a sweep's section holds."""
    over = f"against {sweep.parameter}, one line per treatment through the means over seeds"
    band = f"{over}, shaded min..max"
    found: list[SweepFigure] = [
        (
            "sweep-worst-share",
            "worst share/weight",
            lambda r: r.worst_share,
            "share",
            f"Worst share/weight (1 = its fair share) {band}.",
        ),
        ("sweep-jain", "Jain", lambda r: r.jain, "share", f"Jain's index {band}."),
    ]
    if sweep.light_key is not None:
        what = f"{sweep.light_key} mean wait, {sweep.unit}"
        found.append(
            (
                "sweep-light-wait",
                what,
                lambda r: r.light_wait,
                "wait",
                f"The light key's mean wait {band}; log scale past 10.",
            )
        )
    found.append(
        (
            "sweep-cost",
            "ms per dequeued run (timing: machine-dependent)",
            lambda r: r.cost_per_run,
            "cost",
            f"Wall ms per dequeued run {over}: a timing figure, which depends on the "
            "machine and its load, unlike every other figure.",
        )
    )
    return found


def figure_kinds(scenario: ScenarioView) -> list[str]:
    """The figures a scenario's section holds, by kind."""
    return [kind for kind, _, _ in _figures(scenario)]


def _figures(scenario: ScenarioView) -> list[tuple[str, Drawing, str]]:
    """Timeline figures need runs that recorded one (step-harness runs and older files do not);
    the attainment chart, runs with the demand-aware figures; the tenants' chart, runs whose keys
    belong to tenants."""
    drawn = [FIGURES[0], *([ATTAINMENT_FIGURE] if plots.has_attainment(scenario) else [])]
    drawn += [TENANT_FIGURE] if plots.has_tenants(scenario) else []
    if scenario.has_timelines:
        drawn += [*FIGURES[1:], STRIP_FIGURE]
    return [*drawn, *([CAPS_FIGURE] if scenario.has_caps else [])]


def render_html(
    sources: Sequence[Source],
    scenarios: Sequence[ScenarioView],
    differ: Sequence[str] = (),
    gate: Gate | None = None,
) -> str:
    """`differ`: how the files differ, when compared anyway (--allow-mismatch); `gate`: the
    --fail-if-worse outcome, the page's first line when given."""
    sweeps = sweep_views(sources, scenarios)
    links = [(f"sweep-{i}", w.title) for i, w in enumerate(sweeps)]
    links += [(f"scenario-{i}", s.name) for i, s in enumerate(scenarios)]
    nav = " ".join(f'<a href="#{anchor}">{escape(name)}</a>' for anchor, name in links)
    body = [
        *_gate_html(gate),
        "<h1>ckviz report</h1>",
        *_differ_html(differ),
        _verdicts_html(scenarios),
        *(_checks_html(s) for s in sources if s.results.checks is not None),
        _table_html(_sources_table(sources)),
        *(
            f'<p class="note"><b>Note</b>: {escape(n)}</p>'
            for n in [redis_versions_note(sources)]
            if n
        ),
        f"<nav>{nav}</nav>",
        *(_sweep_html(i, w) for i, w in enumerate(sweeps)),
        *(_scenario_html(i, s) for i, s in enumerate(scenarios)),
        f'<h2 id="definitions">What the figures mean</h2><p class="note">{escape(DEFINITIONS)}</p>',
    ]
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8"/>\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1"/>\n'
        f"<title>ckviz report: {escape(', '.join(s.label for s in sources))}</title>\n"
        f"<style>{CSS}</style>\n</head>\n<body>\n" + "\n".join(body) + "\n</body>\n</html>\n"
    )


def _gate_html(gate: Gate | None) -> list[str]:
    if gate is None:
        return []
    mark, cls = ("❌", "failed") if gate.failed else ("✅", "passed")
    lines = [f'<p class="{cls}" id="gate">{mark} ckviz {escape(gate.headline)}</p>']
    if len(gate.failures) > 1:
        items = "".join(f"<li>{escape(str(r))}</li>" for r in gate.failures)
        lines.append(f'<ul class="failed">{items}</ul>')
    return lines


def _differ_html(differ: Sequence[str]) -> list[str]:
    if not differ:
        return []
    items = "".join(f"<li>{escape(line)}</li>" for line in differ)
    return [
        '<p class="failed">Compared despite running different things (--allow-mismatch): a '
        f"difference below may be the workload's, not the code's.</p><ul>{items}</ul>"
    ]


def _verdicts_html(scenarios: Sequence[ScenarioView]) -> str:
    """One verdict per scenario, first thing on the page, each linking to its section."""
    items = "".join(
        f'<li><a href="#scenario-{i}">{escape(s.name)}</a>: {escape(line)}</li>'
        for i, s in enumerate(scenarios)
        for line in verdicts(s)
    )
    return f'<h2 id="verdicts">Verdicts</h2><ul class="verdicts">{items}</ul>'


def _sources_table(sources: Sequence[Source]) -> Table:
    header = ["results", "file", "ckviz", "redis", "complete", "seeds run", "treatments", "wall s"]
    rows = []
    for s in sources:
        r = s.results
        complete = "yes" if r.complete else f"no: {r.error or 'incomplete'}"
        rows.append(
            [
                s.label,
                s.shown_path,
                r.ckviz_version,
                f"{r.redis.version} ({r.redis.mode})",
                complete,
                ", ".join(s.seeds_run),
                ", ".join(r.matrix.disciplines),
                f"{r.wall_clock_s:.1f}",
            ]
        )
    return Table("Results files", header, rows)


def _scenario_html(i: int, scenario: ScenarioView) -> str:
    parts = [f'<section id="scenario-{i}">', f"<h2>{escape(scenario.name)}</h2>"]
    if scenario.description:
        parts.append(f'<p class="description">{escape(scenario.description)}</p>')
    lines = findings(scenario)
    parts.append(
        '<ul class="findings">' + "".join(f"<li>{escape(t)}</li>" for t in lines) + "</ul>"
    )
    if scenario.views:
        parts.append(_table_html(figures_table(scenario)))
        for kind, draw, caption in _figures(scenario):
            parts.append(_figure_html(kind, draw(scenario), f"{scenario.name}: {caption}"))
        parts += [_table_html(t) for t in optional_tables(scenario)]
    parts.append("</section>")
    return "\n".join(parts)


def _sweep_html(i: int, sweep: SweepView) -> str:
    lines = "".join(f"<li>{escape(t)}</li>" for t in sweep_findings(sweep))
    parts = [
        f'<section id="sweep-{i}" class="sweep" data-sweep="{escape(sweep.scenario)}">',
        f"<h2>{escape(sweep.title)}</h2>",
        f'<ul class="findings">{lines}</ul>',
        _table_html(sweep_table(sweep)),
    ]
    for kind, title, get, scale, caption in sweep_figures(sweep):
        svg = sweep_plots.sweep_svg(sweep, title, get, scale)
        parts.append(_figure_html(kind, svg, f"{sweep.scenario}: {caption}"))
    parts.append("</section>")
    return "\n".join(parts)


def _figure_html(kind: str, svg: str, caption: str) -> str:
    data = base64.b64encode(svg.encode("utf-8")).decode("ascii")
    return (
        f'<figure data-figure="{kind}"><img alt="{escape(caption)}" '
        f'src="data:image/svg+xml;base64,{data}"/>'
        f"<figcaption>{escape(caption)}</figcaption></figure>"
    )


def _checks_html(source: Source) -> str:
    """The --check rules under the verdicts, failed ones first."""
    checks = source.results.checks or []
    table = checks_table(source.label, checks)
    if not table.rows:
        return f"<h2>{escape(table.title)}</h2><p>No [[expect]] rules in the scenarios run.</p>"
    failed = any(c.status == "failed" for c in checks)
    heading = f'<h2 class="{"failed" if failed else "passed"}">{escape(table.title)}: '
    heading += f"{escape(checks_status(checks))}</h2>"
    return heading + _table_html(table, status_column=True)


def _table_html(table: Table, status_column: bool = False) -> str:
    head = "".join(f"<th>{escape(h)}</th>" for h in table.header)
    rows = []
    for row in table.rows:
        cls = f' class="{escape(row[0].lower())}"' if status_column else ""
        rows.append(
            f"<tr{cls}>" + "".join(f"<td>{escape(shown_name(c))}</td>" for c in row) + "</tr>"
        )
    note = f'<p class="note">{escape(table.note)}</p>' if table.note else ""
    return (
        f'<div class="scroll"><table><caption>{escape(table.title)}</caption>'
        f"<thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table></div>{note}"
    )
