"""The classes of trace whose ground truth is known, replayed as a user would (a trace with
`--seeds seed-a`: one sample), and what the verdict says of each at both grains (issue 36):
a noisy neighbour (the flooder's gain and the worst-served quiet key named, a fair discipline
claimed fairer), a sybil split with a tenant column (the honest tenant's loss at the tenant
grain, and no discipline that is blind to tenants claimed fairer there), bursts (the bursty
key never called under-served for waiting on its own bursts) and identical tenants (no
difference shown at either grain). Each claim is said with the run's own interval."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from ckviz.report.findings import findings
from ckviz.report.sources import load_sources
from ckviz.report.verdicts import verdicts
from ckviz.report.views import scenario_views
from ckviz.sim.cell.session import new_namespace
from ckviz.store.server import RedisServer
from tests.functional.cli_support import ckviz_here

pytestmark = pytest.mark.slow

Row = tuple[str, int, int] | tuple[str, int, int, str]  # key, arrival, hold[, tenant]
HOLD = 20


def noisy(rng: random.Random) -> list[Row]:
    """One key floods 150 runs at t=0; five quiet keys trickle 12 runs each."""
    rows: list[Row] = [("burst", 0, HOLD) for _ in range(150)]
    for q in range(5):
        t = 0
        for _ in range(12):
            t += rng.randrange(20, 60)
            rows.append((f"quiet-{q}", t, HOLD))
    return rows


def sybil(rng: random.Random) -> list[Row]:
    """Tenant sybil's backlog over ten keys, tenant honest's one key trickling in."""
    rows: list[Row] = [(f"heavy-{k}", 0, HOLD, "sybil") for k in range(10) for _ in range(15)]
    t = 0
    for _ in range(20):
        t += rng.randrange(10, 40)
        rows.append(("light", t, HOLD, "honest"))
    return rows


def bursts(rng: random.Random) -> list[Row]:
    """A key sending 30 runs at once every 300 ms beside four steady keys."""
    rows: list[Row] = [("bursty", b * 300, HOLD) for b in range(4) for _ in range(30)]
    for s in range(4):
        t = 0
        while t < 1200:
            t += rng.randrange(20, 60)
            rows.append((f"steady-{s}", t, HOLD))
    return rows


def identical(rng: random.Random) -> list[Row]:
    """Six keys of the same Poisson load, two to a tenant."""
    rows: list[Row] = []
    for k in range(6):
        t = 0
        for _ in range(30):
            t += int(rng.expovariate(1 / 40))
            rows.append((f"k{k}", t, HOLD, f"team-{k // 2}"))
    return rows


def verdict_of(tmp_path: Path, redis_server: RedisServer, rows: list[Row]) -> tuple[str, str]:
    """The trace replayed under baseline, sfq and drr on one seed: its verdict and findings."""
    head = "key,arrival_ms,hold_ms" + (",tenant" if len(rows[0]) == 4 else "")
    lines = [",".join(map(str, r)) for r in sorted(rows, key=lambda r: r[1])]
    (tmp_path / "t.csv").write_text("\n".join([head, *lines]) + "\n", encoding="utf-8")
    scenario = tmp_path / "t.toml"
    scenario.write_text('env_limit = 4\n\n[trace]\npath = "t.csv"\n', encoding="utf-8")
    out = tmp_path / "r.json"
    root = new_namespace("ckviz-test").rstrip(":").replace(":", "-")
    picked = [f"--discipline={d}" for d in ("baseline", "sfq", "drr")]
    proc = ckviz_here(
        "--headless", "--scenario", str(scenario), *picked, "--seeds", "seed-a",
        "--redis-url", redis_server.url, "--prefix", root, "--jobs", "1", "--out", str(out), "-q",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    (view,) = scenario_views(load_sources([str(out)]))
    (line,) = verdicts(view)
    assert line.startswith("Verdict: one sample (seed seed-a): ")
    assert "spread" not in line and "over 1 seeds" not in line
    return line, "\n".join(findings(view))


def tenant_clause(line: str) -> str:
    return line[line.index("at the tenant grain") :]


def test_a_noisy_neighbour_names_the_flooders_gain_and_the_worst_served_quiet_key(
    tmp_path: Path, redis_server: RedisServer
) -> None:
    line, _ = verdict_of(tmp_path, redis_server, noisy(random.Random(36)))
    assert "sfq is fairer than baseline: its most under-served key gets " in line
    assert "one sample: the run's 10 time windows resampled" in line
    gained = line.split("under baseline (seed-a), burst got ", 1)[1]
    assert float(gained.split("x its fair share, quiet-", 1)[0]) > 3  # the flooder's gain
    assert "at the tenant grain" not in line  # no tenants: one grain


def test_a_sybil_split_names_the_honest_tenants_loss_at_the_tenant_grain(
    tmp_path: Path, redis_server: RedisServer
) -> None:
    line, said = verdict_of(tmp_path, redis_server, sybil(random.Random(36)))
    assert "sfq is fairer than baseline" in line  # per key, sfq is fair to the light key
    under_sfq = line.split("under sfq (seed-a), tenant sybil got ", 1)[1]
    gain, rest = under_sfq.split("x its fair share, tenant honest got ", 1)
    assert float(gain) > 1.5 and float(rest[:4]) < 0.5  # the honest tenant pays for the split
    clause = tenant_clause(line)
    assert clause.startswith("at the tenant grain, no difference shown: ")  # all tenant-blind
    assert "95% interval" in clause and "fairer" not in clause
    assert "At the tenant grain, the most under-served tenant gets from " in said


def test_bursts_never_call_the_bursty_key_under_served_for_its_own_backlog(
    tmp_path: Path, redis_server: RedisServer
) -> None:
    line, _ = verdict_of(tmp_path, redis_server, bursts(random.Random(36)))
    assert "sfq is fairer than baseline" in line
    gained = line.split("under baseline (seed-a), bursty got ", 1)[1]
    assert float(gained.split("x its fair share, steady-", 1)[0]) > 2  # bursts served first
    assert "starved" not in line.replace("no treatment starved a key", "")


def test_identical_tenants_show_no_difference_at_either_grain(
    tmp_path: Path, redis_server: RedisServer
) -> None:
    line, said = verdict_of(tmp_path, redis_server, identical(random.Random(36)))
    assert "Verdict: one sample (seed seed-a): no difference shown: " in line
    assert tenant_clause(line).startswith("at the tenant grain, no difference shown: ")
    assert "fairer" not in line and "less fair" not in line
    assert "fairer" not in said.replace("no difference shown", "")
