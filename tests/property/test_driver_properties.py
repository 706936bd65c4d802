"""Property tests: random small workloads x disciplines x max count x caps on the real Redis.

Every run is dequeued exactly once, the limits hold after every step (and the invariants are
checked after every trip), and the same seed gives the same run.
"""

from __future__ import annotations

import redis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ckviz.disciplines.registry import DEFAULT_DISCIPLINES
from ckviz.inputs.workload import generate
from ckviz.model.matrix import Treatment
from ckviz.model.scenario import KeySpec, Scenario
from ckviz.sim.cell.session import new_namespace, open_cell
from ckviz.sim.millisecond_clock.driver import Driver

KEY_NAMES = ["a", "b", "heavy", "tenant:42", "tenant", "café-☕", "k~0#1", " x "]

key_specs = st.builds(
    KeySpec,
    name=st.just("?"),
    runs=st.integers(1, 8),
    arrival=st.sampled_from(["immediate", "poisson"]),
    rate_per_sec=st.floats(5, 200),
    hold_ms_mean=st.floats(1, 80),
    start_at_ms=st.integers(0, 200),
    weight=st.sampled_from([1.0, 2.0, 3.0]),
)


@st.composite
def scenarios(draw: st.DrawFn) -> Scenario:
    names = draw(st.lists(st.sampled_from(KEY_NAMES), min_size=1, max_size=4, unique=True))
    keys = [draw(key_specs).model_copy(update={"name": name}) for name in names]
    return Scenario(name="prop", env_limit=draw(st.integers(1, 4)), keys=keys)


caps = st.none() | st.integers(1, 3)
SETTINGS = settings(
    max_examples=50,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


def step_and_check_limits(driver: Driver, per_key: int | None, total: int | None) -> None:
    """Step to the end; after every step the snapshot keeps every limit."""
    per_key_limit = min(per_key or driver.config.env_limit, driver.config.env_limit)
    while not driver.done:
        driver.step()
        snap = driver.snapshot()
        held_by_key: dict[str, int] = {}
        for run in snap.held:
            held_by_key[run.key] = held_by_key.get(run.key, 0) + 1
        assert len(snap.held) <= snap.env_limit
        assert total is None or len(snap.held) <= total
        assert all(n <= per_key_limit for n in held_by_key.values()), held_by_key
        assert all(row.held == held_by_key.get(row.key, 0) for row in snap.keys)


@SETTINGS
@given(
    scenario=scenarios(),
    seed=st.text("abc-", min_size=1, max_size=6),
    discipline=st.sampled_from(DEFAULT_DISCIPLINES),
    max_count=st.integers(1, 3),
    per_key=caps,
    total=caps,
)
def test_every_run_once_limits_hold_and_seeds_repeat(
    client: redis.Redis,
    scenario: Scenario,
    seed: str,
    discipline: str,
    max_count: int,
    per_key: int | None,
    total: int | None,
) -> None:
    treatment = Treatment(discipline=discipline, per_key_cap=per_key, total_cap=total)
    outcomes = []
    for stepped in (True, False):
        prefix = new_namespace("ckviz-test")
        with open_cell(client, scenario, seed, treatment, prefix, max_count) as driver:
            if stepped:
                step_and_check_limits(driver, per_key, total)
            else:
                driver.run()
            assert driver.invariants is not None and driver.invariants.checks > 0
            outcomes.append((list(driver.events), driver.queue.round_trips, driver.t))
        assert client.keys(f"{prefix}*") == []  # the cell deleted its own keys

    events, _, _ = outcomes[0]
    planned = generate(scenario, seed)
    assert sorted(e.run_id for e in events) == sorted(r.run_id for r in planned)
    assert len({e.run_id for e in events}) == len(planned)  # each exactly once
    arrivals = {r.run_id: (r.key, r.arrival_ms) for r in planned}
    assert all(arrivals[e.run_id] == (e.key, e.arrival_ms) for e in events)
    assert all(e.dequeued_ms >= e.arrival_ms for e in events)
    (stepped_events, stepped_trips, stepped_t), (run_events, run_trips, run_t) = outcomes
    assert (stepped_events, stepped_t) == (run_events, run_t)  # same seed, same run
    # unwatched, a dequeue sure to take one run rides with the next trip: never more trips
    assert run_trips <= stepped_trips
