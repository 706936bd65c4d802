"""Property tests with several consumers: random small workloads x disciplines x max count x
caps x 2-4 consumers on the real Redis. Every run is dequeued exactly once, the limits hold
after every turn (the invariants after every trip), per-consumer service adds up, and stepping
turn by turn gives the same run as running unwatched (with several consumers nothing rides
along, so even the round trips match)."""

from __future__ import annotations

import redis
from hypothesis import given, settings
from hypothesis import strategies as st

from ckviz.disciplines.registry import DEFAULT_DISCIPLINES
from ckviz.inputs.workload import generate
from ckviz.model.matrix import Treatment
from ckviz.model.scenario import Scenario
from ckviz.sim.cell.session import new_namespace, open_cell
from tests.property.test_driver_properties import SETTINGS, caps, scenarios, step_and_check_limits


@settings(SETTINGS, max_examples=30)
@given(
    scenario=scenarios(),
    seed=st.text("abc-", min_size=1, max_size=6),
    discipline=st.sampled_from(DEFAULT_DISCIPLINES),
    max_count=st.integers(1, 3),
    per_key=caps,
    total=caps,
    consumers=st.integers(2, 4),
)
def test_several_consumers_serve_every_run_once_within_limits_and_repeat(
    client: redis.Redis,
    scenario: Scenario,
    seed: str,
    discipline: str,
    max_count: int,
    per_key: int | None,
    total: int | None,
    consumers: int,
) -> None:
    treatment = Treatment(discipline=discipline, per_key_cap=per_key, total_cap=total)
    outcomes = []
    for stepped in (True, False):
        prefix = new_namespace("ckviz-test")
        cell = open_cell(client, scenario, seed, treatment, prefix, max_count, consumers=consumers)
        with cell as driver:
            if stepped:
                step_and_check_limits(driver, per_key, total)
            else:
                driver.run()
            assert driver.invariants is not None and driver.invariants.checks > 0
            service = driver.turns.service()
            assert len(service) == consumers
            assert sum(c.dequeued for c in service) == len(driver.events)
            outcomes.append((list(driver.events), driver.round_trips, driver.t, service))
        assert client.keys(f"{prefix}*") == []  # the cell deleted its own keys
    events = outcomes[0][0]
    planned = generate(scenario, seed)
    assert sorted(e.run_id for e in events) == sorted(r.run_id for r in planned)
    assert len({e.run_id for e in events}) == len(planned)  # each exactly once
    assert outcomes[0] == outcomes[1]
