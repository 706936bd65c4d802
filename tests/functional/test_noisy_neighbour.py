"""The noisy-neighbour trace a new user tries first: one tenant floods, nineteen trickle.

Fair scheduling makes the flooding tenant wait for its own backlog; the verdict must not
mistake that for unfairness (issue: the report once named the flooder as worst-served)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ckviz.model.results import Results
from ckviz.report.findings import findings
from ckviz.report.sources import load_sources
from ckviz.report.verdicts import verdicts
from ckviz.report.views import scenario_views
from ckviz.sim.cell.session import new_namespace
from ckviz.store.server import RedisServer
from tests.functional.cli_support import ckviz, ckviz_here

pytestmark = pytest.mark.slow


def test_baseline_underserves_a_quiet_tenant_and_the_verdict_says_so(tmp_path: Path) -> None:
    out = tmp_path / "nn.json"
    picked = [f"--discipline={d}" for d in ("baseline", "sfq", "vtime")]
    proc = ckviz("--headless", "--scenario", "ck_noisy_neighbour", *picked, "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    results = Results.model_validate_json(out.read_text())
    (scenario,) = results.scenarios
    assert scenario.description and scenario.digest
    assert len({k for k in scenario.weights}) == 20
    for r in scenario.runs:
        m = r.metrics
        if r.treatment == "baseline":  # a quiet tenant, not the flooder, is most under-served
            assert m.most_underserved_key is not None and m.most_underserved_key != "burst"
            assert m.most_underserved_attainment is not None
            assert m.most_underserved_attainment < 0.5
        burst = next(k for k in m.per_key if k.key == "burst")
        assert burst.fair_share_attainment is not None and burst.fair_share_attainment > 0.9
    (view,) = scenario_views(load_sources([str(out)]))
    (line,) = verdicts(view)
    assert line.startswith("Verdict: sfq is fairer than baseline: ")
    assert "also fairer than baseline: vtime (difference +" in line
    # who gained: the flooder, far past its share, beside the worst-served quiet tenant
    gained = line.split("under baseline (seed-a), burst got ", 1)[1]
    assert float(gained.split("x its fair share, tenant-", 1)[0]) > 5
    said = findings(view)
    assert said[0].startswith("Consistent bias (not the seeds' luck): under baseline, ")
    assert said[1].startswith("sfq cuts tenant-1's mean wait from")
    assert not any("No discipline cuts" in s or "raises it" in s for s in said)
    assert "Verdict: sfq is fairer than baseline" in proc.stdout  # the terminal table's footer


CANDIDATE = """
scenarios = ["ck_noisy_neighbour"]
seeds = ["seed-a", "seed-b"]

[[treatments]]
label = "candidate"
discipline = "{discipline}"
"""


def test_fail_if_worse_catches_a_real_regression(redis_server: RedisServer, tmp_path: Path) -> None:
    """The same treatment label whose figures become age order's, as a change to its code
    that made it age order would: the gate fails on it, and passes the same results compared
    with themselves. A label that names another discipline in the later file is refused. The
    runs and the refusals in this process; the gate's failure in a real one."""
    files = []
    for discipline in ("sfq", "baseline"):
        matrix = tmp_path / f"{discipline}.toml"
        matrix.write_text(CANDIDATE.format(discipline=discipline))
        out = tmp_path / f"{discipline}.json"
        root = new_namespace("ckviz-test").rstrip(":").replace(":", "-")
        on = ("--redis-url", redis_server.url, "--prefix", root)
        proc = ckviz_here("--headless", "--matrix", str(matrix), *on, "--out", str(out))
        assert proc.returncode == 0, proc.stderr
        files.append(str(out))
    md = str(tmp_path / "r.md")
    same = ckviz_here(
        "report", files[0], files[0], "--markdown", md, "--force", "--fail-if-worse", "1"
    )
    assert same.returncode == 0, same.stderr
    relabelled = ckviz_here("report", *files, "--markdown", md, "--force", "--fail-if-worse", "10")
    assert relabelled.returncode == 2, relabelled.stderr
    assert "treatment candidate of ck_noisy_neighbour: discipline sfq" in relabelled.stderr
    sfq, aged = (Results.model_validate_json(Path(f).read_text()) for f in files)
    by_seed = {r.seed: r.metrics for r in aged.scenarios[0].runs}
    for r in sfq.scenarios[0].runs:
        r.metrics = by_seed[r.seed]  # sfq's label and discipline, age order's figures
    regressed = tmp_path / "regressed.json"
    regressed.write_text(sfq.model_dump_json(), encoding="utf-8")
    worse = ckviz("report", files[0], str(regressed), "--markdown", md, "--force",
                  "--fail-if-worse", "10")  # fmt: skip
    assert worse.returncode == 1, worse.stderr
    assert worse.stderr.startswith("ckviz: gate failed (--fail-if-worse 10%): ")
    assert "ck_noisy_neighbour/candidate: fair-share attainment" in worse.stderr
    assert "ck_noisy_neighbour/candidate: light-key mean wait" in worse.stderr
