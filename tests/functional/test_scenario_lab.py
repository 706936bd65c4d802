"""Caps as treatments, weighted keys, and --check, on the real server."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import redis

from ckviz.inputs import scenario_files
from ckviz.model.matrix import Treatment
from ckviz.sim.cell.session import open_cell
from tests.functional.cli_support import ckviz
from tests.unit.test_scenario_files import CAPS_TREATMENTS


def held_by_key(snapshot) -> dict[str, int]:  # type: ignore[no-untyped-def]
    counts: dict[str, int] = {}
    for h in snapshot.held:
        counts[h.key] = counts.get(h.key, 0) + 1
    return counts


def test_per_key_cap_is_enforced_by_the_lua_gate(client: redis.Redis, prefix: str) -> None:
    sc = scenario_files.load("ck_skew")
    treatment = Treatment(discipline="baseline", per_key_cap=2)
    with open_cell(client, sc, "seed-a", treatment, prefix) as driver:
        assert client.get(driver.queue.keys.queue_limit) == "2"  # B:concurrency is set
        most = 0
        while not driver.done:
            driver.step()
            counts = held_by_key(driver.snapshot())
            most = max([most, *counts.values()])
            # the env limit is 4, but no key may hold more than 2
            assert all(n <= 2 for n in counts.values()), counts
        assert most == 2
        assert len(driver.events) == sc.total_runs


def test_total_cap_holds_back_admission(client: redis.Redis, prefix: str) -> None:
    sc = scenario_files.load("ck_heavy_idle")
    with open_cell(client, sc, "seed-b", Treatment(discipline="sfq", total_cap=2), prefix) as d:
        peak = 0
        while not d.done:
            d.step()
            peak = max(peak, len(d.snapshot().held))
        capped_makespan = d.events[-1].dequeued_ms
    assert peak == 2
    with open_cell(client, sc, "seed-b", Treatment(discipline="sfq"), f"{prefix}free:") as d:
        d.run()
        assert capped_makespan > 1.5 * d.events[-1].dequeued_ms


def test_weighted_disciplines_serve_three_to_one(client: redis.Redis, prefix: str) -> None:
    sc = scenario_files.load("ck_weighted")
    assert sc.weights()["gold"] == 3.0
    for name in ("sfq", "drr", "stride"):
        with open_cell(client, sc, "seed-a", Treatment(discipline=name), f"{prefix}{name}:") as d:
            d.run()
            events = d.events
        # while both backlogged keys still have runs, count who was served
        last = {k: max(i for i, e in enumerate(events) if e.key == k) for k in ("gold", "bronze")}
        window = events[: min(last.values())]
        gold = sum(e.key == "gold" for e in window)
        bronze = sum(e.key == "bronze" for e in window)
        assert 2.7 <= gold / bronze <= 3.3, (name, gold, bronze)


@pytest.mark.slow
def test_caps_matrix_results_carry_treatments(tmp_path: Path) -> None:
    out = tmp_path / "caps.json"
    proc = ckviz(
        "--headless",
        "--matrix",
        "caps",
        "--scenario",
        "ck_heavy_idle",
        "--seeds",
        "seed-a",
        "--check",
        "--out",
        str(out),
    )
    assert proc.returncode == 0, proc.stderr
    data = json.loads(out.read_text())
    (scenario,) = data["scenarios"]
    labels = [t["label"] for t in scenario["treatments"]]
    assert labels == CAPS_TREATMENTS
    t = {x["label"]: x for x in scenario["treatments"]}
    assert set(t["baseline"]) == {
        "label",
        "light_key",
        "light_key_mean_wait",
        "worst_key_mean_wait",
        "makespan_ms",
        "contention_worst_share_over_weight",
    }
    assert t["per-key-cap"]["makespan_ms"]["mean"] > 1.5 * t["baseline"]["makespan_ms"]["mean"]
    assert {c["status"] for c in data["checks"]} == {"passed"}
    assert "PASSED" in proc.stdout and "FAILED" not in proc.stdout


@pytest.mark.slow
def test_check_fails_and_names_a_broken_rule(tmp_path: Path) -> None:
    broken = tmp_path / "broken.toml"
    broken.write_text(
        scenario_files.resolve("ck_skew").read_text()
        + '\n[[expect]]\ndiscipline = "baseline"\nmetric = "light_key_mean_wait"\n'
        + 'better_than = "sfq"\n',
        encoding="utf-8",
    )
    out = tmp_path / "r.json"
    proc = ckviz(
        "--headless",
        "--scenario",
        str(broken),
        "--discipline",
        "baseline",
        "--discipline",
        "sfq",
        "--discipline",
        "drr",
        "--seeds",
        "seed-a",
        "--check",
        "--out",
        str(out),
    )
    assert proc.returncode == 1, proc.stderr
    assert "FAILED  broken: baseline light_key_mean_wait better_than sfq" in proc.stdout
    checks = json.loads(out.read_text())["checks"]
    assert [c["status"] for c in checks].count("failed") == 1


def test_a_full_total_cap_shows_no_scan_window(client: redis.Redis, prefix: str) -> None:
    # the ckIndex pane once showed "scan window 3 · next pick" while the cap blocked every dequeue
    sc = scenario_files.load("ck_skew")
    with open_cell(client, sc, "seed-a", Treatment(discipline="sfq", total_cap=2), prefix) as d:
        seen_full = seen_open = False
        while not d.done and not (seen_full and seen_open):
            d.step()
            snap = d.snapshot()
            if len(snap.held) >= 2:
                assert (snap.scan_window, snap.full) == (0, "total cap full")
                seen_full = True
            elif snap.index_read:
                assert (snap.scan_window, snap.full) == (3, None)
                seen_open = True
        assert seen_full and seen_open
