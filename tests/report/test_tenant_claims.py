"""Every comparison at the tenant grain carries its interval and claims by the key grain's rule
(issue 36): the verdict, the findings and the compare between files; over one sample the
interval is the run's own resamples of its tenants."""

from __future__ import annotations

from pathlib import Path

from ckviz.fairness_intervals import RESAMPLES
from ckviz.model.results import RunResult, TenantRowResult
from ckviz.report.findings import findings
from ckviz.report.sources import load_sources
from ckviz.report.tables import tenant_grain_tables
from ckviz.report.verdicts import verdicts
from ckviz.report.views import ScenarioView, scenario_views
from tests.report.handmade import SEEDS, results, run, write


def tenanted(
    label: str, seed: str, honest: float, resamples: list[float | None] | None
) -> RunResult:
    """A run fair per key (0.9) whose honest tenant gets `honest` of its share, sybil 1.9."""
    return run(
        label,
        seed,
        10.0,
        most_underserved_key="light",
        most_underserved_attainment=0.9,
        starved_keys=[],
        per_tenant=[
            TenantRowResult(
                tenant="sybil", keys=["heavy"], owed=10.0, dequeued=19, fair_share_attainment=1.9
            ),
            TenantRowResult(
                tenant="honest", keys=["light"], owed=10.0, dequeued=1, fair_share_attainment=honest
            ),
        ],
        most_underserved_tenant="honest",
        most_underserved_tenant_attainment=honest,
        tenant_attainment_resamples=resamples,
    )


def view_of(tmp_path: Path, runs: list[RunResult], name: str = "r.json") -> ScenarioView:
    path = write(tmp_path / name, results(runs))
    (scenario,) = scenario_views(load_sources([str(path)]))
    return scenario


def spread(centre: float, width: float) -> list[float | None]:
    return [centre - width + 2 * width * i / (RESAMPLES - 1) for i in range(RESAMPLES)]


def test_one_sample_claims_among_tenants_by_the_runs_own_interval(tmp_path: Path) -> None:
    runs = [
        tenanted("baseline", "seed-a", 0.12, spread(0.12, 0.05)),
        tenanted("tenant-fair", "seed-a", 0.95, spread(0.95, 0.05)),
    ]
    (line,) = verdicts(view_of(tmp_path, runs))
    assert (
        "at the tenant grain, tenant-fair is fairer than baseline: its most under-served " in line
    )
    assert "tenant gets 0.95 ± 0.05 (one sample) of its fair share, baseline's 0.12 ± 0.05" in line
    assert "(difference +0.83, 95% interval +0.83..+0.83, one sample: the run's 10 time" in line
    said = findings(view_of(tmp_path, runs))
    (grain,) = [f for f in said if f.startswith("At the tenant grain")]
    assert "against baseline: tenant-fair fairer (+0.83, 95% interval +0.83..+0.83" in grain
    (table,) = tenant_grain_tables(view_of(tmp_path, runs))
    assert table.rows[0] == ["baseline", "0.120 ± 0.048 (one sample)", "honest", "-", "reference"]
    assert table.rows[1][1:3] == ["0.950 ± 0.048 (one sample)", "honest"]
    assert table.rows[1][3].startswith("difference +0.83, 95% interval +0.83..+0.83, one sample")
    assert table.rows[1][4] == "fairer"


def test_seeds_that_disagree_show_no_difference_among_tenants(tmp_path: Path) -> None:
    runs = []
    for seed, (mine, theirs) in zip(SEEDS, [(0.6, 0.2), (0.2, 0.5)], strict=True):
        runs += [tenanted("baseline", seed, theirs, None), tenanted("sfq", seed, mine, None)]
    (line,) = verdicts(view_of(tmp_path, runs))
    tenant_clause = line[line.index("at the tenant grain") :]
    assert tenant_clause.startswith(
        "at the tenant grain, no difference shown: baseline's most under-served tenant gets 0.35 ± "
    )
    assert "(the largest: sfq (difference +0.05, 95% interval" in tenant_clause
    assert "paired over 2 seeds" in tenant_clause and "fairer" not in tenant_clause


def test_a_file_without_tenant_resamples_makes_no_claim_among_tenants(tmp_path: Path) -> None:
    runs = [tenanted("baseline", "seed-a", 0.12, None), tenanted("sfq", "seed-a", 0.95, None)]
    (line,) = verdicts(view_of(tmp_path, runs))
    assert "at the tenant grain, no difference shown" in line
    assert "one sample, no interval" in line


def test_the_compare_between_files_gives_the_tenant_difference_its_interval(
    tmp_path: Path,
) -> None:
    base = [tenanted("sfq", s, 0.20 + i / 100, None) for i, s in enumerate(SEEDS)]
    head = [tenanted("sfq", s, 0.60 + i / 50, None) for i, s in enumerate(SEEDS)]
    paths = [write(tmp_path / "a.json", results(base)), write(tmp_path / "b.json", results(head))]
    (scenario,) = scenario_views(load_sources([str(p) for p in paths]))
    (moved,) = [f for f in findings(scenario) if " -> " in f and "tenant fair-share" in f]
    assert "tenant fair-share attainment 0.205 -> 0.610 (difference +0.40, 95% interval" in moved
    assert "paired over 2 seeds" in moved
