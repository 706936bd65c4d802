"""The bundled sybil split with its tenants (issue 36 item 2): fair per key under sfq, yet the
honest tenant pays for the split, and the verdict says so at the tenant grain."""

from __future__ import annotations

from pathlib import Path

import pytest

from ckviz.fairness_intervals import RESAMPLES
from ckviz.model.results import Results
from ckviz.report.findings import findings
from ckviz.report.sources import load_sources
from ckviz.report.tables import tenant_tables
from ckviz.report.verdicts import verdicts
from ckviz.report.views import scenario_views
from tests.functional.cli_support import ckviz

pytestmark = pytest.mark.slow


def test_the_verdict_names_the_honest_tenants_loss_at_the_tenant_grain(tmp_path: Path) -> None:
    out = tmp_path / "sybil.json"
    picked = [f"--discipline={d}" for d in ("baseline", "sfq")]
    proc = ckviz("--headless", "--scenario", "ck_sybil", *picked, "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    (scenario,) = Results.model_validate_json(out.read_text()).scenarios
    for run in scenario.runs:
        m = run.metrics
        assert m.per_tenant is not None
        tenants = {t.tenant: t for t in m.per_tenant}
        assert tenants["sybil"].keys == [f"heavy-{i}" for i in range(20)]
        assert tenants["honest"].keys == ["light"]
        assert m.most_underserved_tenant == "honest"
        assert m.most_underserved_tenant_attainment is not None
        assert m.most_underserved_tenant_attainment < 0.5  # owed half, got a 21st
        if run.treatment == "sfq":  # per key, sfq is fair to the light key
            assert m.most_underserved_attainment is not None
            assert m.most_underserved_attainment > 0.85
    (view,) = scenario_views(load_sources([str(out)]))
    (line,) = verdicts(view)
    assert "sfq is fairer than baseline" in line  # per key
    assert (
        "under sfq (seed-a), tenant sybil got 1.9x its fair share, tenant honest got 0.12" in line
    )
    # every discipline here is blind to tenants: no claim among them, said with its interval
    assert (
        "at the tenant grain, no difference shown: baseline's most under-served tenant gets 0.12 ±"
        in line
    )
    tenant_clause = line[line.index("at the tenant grain") :]
    assert "95% interval" in tenant_clause and "fairer" not in tenant_clause
    said = findings(view)
    assert any(f.startswith("Tenants: ") and "tenant honest got 0.12" in f for f in said)
    (grain,) = [f for f in said if f.startswith("At the tenant grain")]
    assert "against baseline: sfq no difference shown (" in grain and "95% interval" in grain
    resamples = [run.metrics.tenant_attainment_resamples for run in scenario.runs]
    assert all(r is not None and len(r) == RESAMPLES for r in resamples)
    (table,) = tenant_tables(view)
    rows = {(r[0], r[1]): r[2:] for r in table.rows}
    assert rows["sfq", "honest"][0] == "1" and rows["sfq", "honest"][-1] == "0.12"
    assert rows["sfq", "sybil"][0] == "20"
