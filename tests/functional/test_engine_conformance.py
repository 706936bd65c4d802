"""ckviz against the reference's published figures (SPEC section 9), and the driver's basics."""

from __future__ import annotations

import pytest
import redis

from ckviz.inputs import scenario_files
from ckviz.metrics import run_metrics
from ckviz.model.matrix import Treatment
from ckviz.model.results import MetricsResult
from ckviz.sim.cell.session import open_cell
from tests.functional.servers import redis_server  # noqa: F401  (6.2 and 7)

SEEDS = ("seed-a", "seed-b", "seed-c")

# SPEC section 9: ck_skew, contention worst share/weight over three seeds (mean, min, max)
PUBLISHED_SKEW = {
    "baseline": (0.18665, 0.18581, 0.18771),
    "sfq": (0.72289, 0.65476, 0.76923),
    "drr": (0.60772, 0.55556, 0.64815),
    "stride": (0.72289, 0.65476, 0.76923),
    "codel-sfq": (0.72289, 0.65476, 0.76923),
    "codel-baseline": (0.10399, 0.00000, 0.15679),
}


def run(
    client: redis.Redis, prefix: str, scenario: str, discipline: str, seed: str, **caps: int
) -> MetricsResult:
    sc = scenario_files.load(scenario)
    treatment = Treatment(discipline=discipline, **caps)
    with open_cell(client, sc, seed, treatment, f"{prefix}{discipline}:{seed}:") as driver:
        driver.run()
        assert driver.done
        assert len(driver.events) == sc.total_runs
        return run_metrics(driver.events, sc.weights())


@pytest.mark.parametrize("discipline", tuple(PUBLISHED_SKEW))  # the spike's six
@pytest.mark.slow
def test_ck_skew_reproduces_the_published_worst_share(
    client: redis.Redis, prefix: str, discipline: str
) -> None:
    values = [
        run(client, prefix, "ck_skew", discipline, s).contention_worst_share_over_weight
        for s in SEEDS
    ]
    total = 0.0
    for v in values:
        total += v
    got = (round(total / 3, 5), round(min(values), 5), round(max(values), 5))
    assert got == PUBLISHED_SKEW[discipline]


def test_ck_skew_baseline_seed_a_per_key_rows(client: redis.Redis, prefix: str) -> None:
    m = run(client, prefix, "ck_skew", "baseline", "seed-a")
    rows = {
        k.key: (k.dequeued, round(k.mean_wait, 4), k.wait_p50, k.wait_p99, k.wait_max)
        for k in m.per_key
    }
    assert rows == {
        "heavy": (240, 871.9875, 875, 1644, 1646),
        "light-1": (15, 1321.0, 1239, 1653, 1653),
        "light-2": (15, 981.6667, 1043, 1659, 1659),
        "light-3": (15, 679.1333, 753, 1661, 1661),
        "light-4": (15, 915.0, 839, 1677, 1677),
    }


def test_baseline_starves_light_keys_and_sfq_fixes_it(client: redis.Redis, prefix: str) -> None:
    base = run(client, prefix, "ck_skew", "baseline", "seed-a")
    fair = run(client, prefix, "ck_skew", "sfq", "seed-a")
    light = [k for k in base.per_key if k.key.startswith("light")]
    light_fair = [k for k in fair.per_key if k.key.startswith("light")]
    assert min(k.mean_wait for k in light) > 500
    assert max(k.mean_wait for k in light_fair) < 100
    assert fair.contention_worst_share_over_weight > 3 * base.contention_worst_share_over_weight


def test_stepping_exposes_the_starvation(client: redis.Redis, prefix: str) -> None:
    sc = scenario_files.load("ck_skew")
    with open_cell(client, sc, "seed-a", Treatment(discipline="baseline"), prefix) as driver:
        driver.step()
        snap = driver.snapshot()
        assert snap.t == 0
        assert [h.key for h in snap.held] == ["heavy"]
        for _ in range(3):
            driver.step()
        snap = driver.snapshot()
        assert [h.key for h in snap.held] == ["heavy"] * 4
        assert snap.free_slots == 0
        before = snap.step
        driver.step_instant()
        assert driver.snapshot().t > 0
        assert driver.snapshot().step > before
        assert len(snap.events) == 4  # an older snapshot is not changed by later steps


def test_snapshot_shows_rescored_entries_and_discipline_state(
    client: redis.Redis, prefix: str
) -> None:
    sc = scenario_files.load("ck_skew")
    with open_cell(client, sc, "seed-a", Treatment(discipline="sfq"), prefix) as driver:
        while driver.t < 150:
            driver.step_instant()
        snap = driver.snapshot()
        assert snap.index_rescored, "sfq rescores before each dequeue"
        assert any(e.score > snap.score_base + 10_000_000 for e in snap.index_rescored)
        assert snap.discipline_state.name == "sfq"
        assert dict(snap.discipline_state.fields)["floor"]
        assert any(k.key.startswith("light") and k.dequeued for k in snap.keys)
        assert snap.round_trips > 0


def test_round_trips_per_dequeued_run_stay_low(client: redis.Redis, prefix: str) -> None:
    sc = scenario_files.load("ck_skew")
    for name, ceiling in (("baseline", 1.2), ("sfq", 2.5)):
        with open_cell(client, sc, "seed-a", Treatment(discipline=name), f"{prefix}{name}:") as d:
            d.run()
            assert d.queue.round_trips / len(d.events) <= ceiling, name


def test_run_deletes_its_own_keys(client: redis.Redis, prefix: str) -> None:
    run(client, prefix, "ck_trickle", "drr", "seed-b")
    assert list(client.scan_iter(match=f"{prefix}*")) == []


def test_batches_with_max_count_above_one_still_serve_every_run(
    client: redis.Redis, prefix: str
) -> None:
    sc = scenario_files.load("ck_skew")
    with open_cell(client, sc, "seed-c", Treatment(discipline="sfq"), prefix, max_count=4) as d:
        d.run()
        ids = [e.run_id for e in d.events]
        assert len(ids) == len(set(ids)) == sc.total_runs
