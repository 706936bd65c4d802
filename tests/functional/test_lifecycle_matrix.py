"""The `lifecycle` matrix's scenarios (SPEC-lifecycle 8) each show their effect, on the real
embedded Redis: a test per shape asserts which way it moves the results (never a figure)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis

from ckviz.cli import main
from ckviz.inputs import scenario_files
from ckviz.model.key_columns import to_rows
from ckviz.model.matrix import Treatment
from ckviz.sim.clocks import EngineOptions, open_engine
from ckviz.store.keys import ck_member
from ckviz.store.lifecycle.calls import LifecycleCalls
from ckviz.store.runqueue import Trip

pytestmark = pytest.mark.xdist_group("test_lifecycle_matrix")

Run = dict[str, Any]


def headless(out: Path, *args: str) -> list[dict[str, Any]]:
    assert main(["--headless", "--quiet", "--out", str(out), *args]) == 0
    scenarios: list[dict[str, Any]] = json.loads(out.read_text())["scenarios"]
    return scenarios


@pytest.fixture(scope="module")
def matrix(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[Run]]:
    """The lifecycle matrix on its first seed: each scenario's runs, by scenario."""
    out = tmp_path_factory.mktemp("life") / "r.json"
    scenarios = headless(out, "--matrix", "lifecycle", "--seeds", "seed-a")
    return {s["name"]: s["runs"] for s in scenarios}


def run_of(runs: list[Run], treatment: str) -> Run:
    (run,) = [r for r in runs if r["treatment"] == treatment]
    return run


def rows_of(run: Run) -> dict[str, dict[str, Any]]:
    return {row["key"]: row for row in to_rows(run["metrics"]["per_key"])}


def family_wait(run: Run, prefix: str) -> float:
    waits = [row["mean_wait"] for key, row in rows_of(run).items() if key.startswith(prefix)]
    return sum(waits) / len(waits)


def test_the_matrix_bundles_the_specs_shapes() -> None:
    listed = scenario_files.load_matrix("lifecycle").scenarios
    for shape in (
        "life_micro_storm",  # a retry storm crowding pass 1's window
        "life_ttl_light",  # a light tenant's runs expiring behind a backlog
        "life_rollout_drain",  # a flag-off instance draining keys mid-rollout
        "life_stranded_dead_letter",  # a dead-letter of a stranded key
        "life_cold_start",  # the member-name tie-break at a cold start
    ):
        assert shape in listed


@pytest.mark.slow
def test_a_retry_storm_crowds_v17s_pass_1_window_not_the_heads(
    matrix: dict[str, list[Run]],
) -> None:
    """More storm keys than v17's window and fewer than the PR head's scan: v17's pass 1 finds
    only future heads and falls back to age order, which serves the light key last."""
    runs = matrix["life_micro_storm"]
    wait = {
        t: run_of(runs, t)["metrics"]["steps"]["victim_wait_p50"]
        for t in ("vtime", "vtime-v17", "baseline")
    }
    assert wait["vtime"] < wait["vtime-v17"] < wait["baseline"]
    retries = [
        rows_of(run_of(runs, "vtime"))[f"storm{i}"]["lifecycle"]["retries"] for i in range(5)
    ]
    assert all(r > 0 for r in retries)


@pytest.mark.slow
def test_a_light_tenants_runs_expire_behind_a_backlog_under_age_order_only(
    matrix: dict[str, list[Run]],
) -> None:
    runs = matrix["life_ttl_light"]
    expired = {
        t: rows_of(run_of(runs, t))["light"]["lifecycle"]["expired"]
        for t in ("baseline", "vtime", "vtime-v17")
    }
    assert expired["baseline"] > expired["vtime"] and expired["baseline"] > expired["vtime-v17"]


@pytest.mark.slow
def test_at_a_cold_start_the_tie_break_by_member_name_gives_the_a_keys_a_head_start(
    matrix: dict[str, list[Run]],
) -> None:
    for treatment in ("vtime", "vtime-v17"):
        run = run_of(matrix["life_cold_start"], treatment)
        assert family_wait(run, "a-tenant") < family_wait(run, "z-tenant")


@pytest.mark.slow
def test_a_stranded_keys_runs_are_dead_lettered_by_both_kinds_of_consumer(
    matrix: dict[str, list[Run]],
) -> None:
    for treatment in ("vtime", "vtime-v17"):
        run = run_of(matrix["life_stranded_dead_letter"], treatment)
        per = run["metrics"]["per_consumer"]
        assert [c["discipline"] for c in per] == [treatment, "baseline"]
        assert all(c["dead_lettered"] > 0 for c in per)
        doomed = [row for key, row in rows_of(run).items() if key.startswith("doomed")]
        assert all(row["lifecycle"]["dead_lettered"] == 2 for row in doomed)


@pytest.fixture
def dead_letters(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[tuple[str, bool, list[Any]]]]:
    """Each dead-letter as (key, whether a flag-on door sent it, [its tag in ckVtime and its
    key in ckIndex just before; its tag in ckVtime and in ckVtimeIdle just after]), read in
    the dead-letter's own trip (a spy: the commands go out as they were, with reads around)."""
    seen: list[tuple[str, bool, list[Any]]] = []
    pending: list[tuple[str, bool, list[int], Trip]] = []
    dead_letter, send = LifecycleCalls.dead_letter, Trip.send

    def reading(trip: Trip, key: str, run_id: str) -> int:
        q, member = trip._queue, ck_member(key)
        tags, idle = q.keys.base_key("ckVtime"), q.keys.base_key("ckVtimeIdle")
        slots = [trip._add(("ZSCORE", tags, member), _same, False)]
        slots.append(trip._add(("ZSCORE", q.keys.ck_index, member), _same, False))
        slot = dead_letter(trip, key, run_id)
        slots += [trip._add(("ZSCORE", where, member), _same, False) for where in (tags, idle)]
        pending.append((key, q.door.reads is not None, slots, trip))
        return slot

    def sending(trip: Trip, *args: Any, **kwargs: Any) -> list[Any]:
        replies: list[Any] = send(trip, *args, **kwargs)
        for entry in [e for e in pending if e[3]._commands is trip._commands]:
            pending.remove(entry)
            seen.append((entry[0], entry[1], [replies[i] for i in entry[2]]))
        return replies

    monkeypatch.setattr(LifecycleCalls, "dead_letter", reading)
    monkeypatch.setattr(Trip, "send", sending)
    yield seen


def _same(reply: Any) -> Any:
    return reply


def test_a_flag_on_dead_letter_parks_a_stranded_tag_a_flag_off_one_leaves_it(
    client: redis.Redis, prefix: str, dead_letters: list[tuple[str, bool, list[Any]]]
) -> None:
    """SPEC-lifecycle 3: the PR head's dead-letter parks a stranded entry (ckVtime -> idle);
    the flag-off one, which is also vtime-v17's, leaves it in ckVtime."""
    scenario = scenario_files.load("life_stranded_dead_letter")
    found: dict[tuple[str, bool], list[tuple[Any, Any]]] = {}
    for discipline in ("vtime", "vtime-v17"):
        dead_letters.clear()
        treatment = Treatment(discipline=discipline)
        cell = f"{prefix}{discipline}:"
        with open_engine(client, scenario, "seed-a", treatment, cell, EngineOptions()) as run:
            run.run()
        for _, flag_on, (tag, indexed, tag_after, idle_after) in dead_letters:
            if tag is not None and indexed is None:  # its key was stranded
                found.setdefault((discipline, flag_on), []).append((tag_after, idle_after))
        assert any(indexed is None and tag is not None for *_, (tag, indexed, _, _) in dead_letters)
    parked = found[("vtime", True)]
    assert parked and all(after is None and idle is not None for after, idle in parked)
    left = [
        entry
        for (name, flag_on), entries in found.items()
        for entry in entries
        if name == "vtime-v17" or not flag_on
    ]
    assert found.get(("vtime", False)) and any(name == "vtime-v17" for name, _ in found)
    assert all(after is not None for after, _ in left)


@pytest.mark.slow
def test_a_flag_off_instance_mid_rollout_strands_keys_and_leaves_fairness_in_between(
    matrix: dict[str, list[Run]], tmp_path: Path
) -> None:
    """With one instance of three flag-off, the bursty and light keys wait longer than with
    every instance on, and far less than with none: fairness between the endpoints."""
    runs = matrix["life_rollout_drain"]
    every = headless(
        tmp_path / "on.json",
        *("--scenario", "life_rollout_drain", "--seeds", "seed-a", "--consumers", "3"),
        *("--discipline", "vtime", "--discipline", "vtime-v17"),
    )
    (on,) = every
    for treatment in ("vtime", "vtime-v17"):
        mixed, all_on = run_of(runs, treatment), run_of(on["runs"], treatment)
        assert mixed["lineup"] == f"{treatment}:2,baseline:1" and "lineup" not in all_on
        for key in ("burst", "light"):
            wait = [rows_of(r)[key]["mean_wait"] for r in (all_on, mixed, run_of(runs, "baseline"))]
            assert wait == sorted(wait) and wait[0] < wait[2], (treatment, key, wait)


@pytest.mark.parametrize(("consumers", "strands"), [(None, True), (3, False)])
def test_only_a_flag_off_drain_strands_a_key(
    client: redis.Redis, prefix: str, consumers: int | None, strands: bool
) -> None:
    """SPEC-lifecycle 7.1: a flag-off dequeue that drains a registered key leaves its tag in
    ckVtime with no ckIndex entry; with every instance flag-on, never (7.3's invariant)."""
    scenario = scenario_files.load("life_rollout_drain")
    treatment = Treatment(discipline="vtime", consumers=consumers)
    stranded: set[str] = set()
    with open_engine(client, scenario, "seed-a", treatment, prefix, EngineOptions()) as run:
        keys = run.queue.keys  # type: ignore[attr-defined]
        while not run.done:
            run.step_instant()
            tags = set(client.zrange(keys.base_key("ckVtime"), 0, -1))
            stranded |= tags - set(client.zrange(keys.ck_index, 0, -1))
    assert bool(stranded) is strands
