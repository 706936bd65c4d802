"""Property test of the run lifecycle on the real Redis: random small workloads whose runs fail
and retry (or dead-letter), wait for a delay, expire, or take the fast path, under a
discipline, batch size and number of consumers drawn too. The invariants are checked after
every trip (a run in exactly one place, none expired twice); every run ends settled, each
serve is an attempt of some run, and the same seed gives the same run."""

from __future__ import annotations

import redis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ckviz.model.lifecycle import RetrySettings, TtlSettings
from ckviz.model.matrix import Treatment
from ckviz.model.scenario import KeySpec, Scenario
from ckviz.sim.cell.session import new_namespace, open_cell

KEY_NAMES = ["a", "b", "heavy", "tenant:42"]

lifecycle_keys = st.builds(
    KeySpec,
    name=st.just("?"),
    runs=st.integers(1, 6),
    arrival=st.sampled_from(["immediate", "poisson"]),
    rate_per_sec=st.floats(20, 200),
    hold_ms_mean=st.floats(1, 40),
    fail_rate=st.none() | st.sampled_from([0.5, 1.0]),
    delay_ms=st.none() | st.integers(0, 120),
    ttl_ms=st.none() | st.integers(1, 150),
    fast_path=st.none() | st.booleans(),
)
retries = st.none() | st.builds(
    RetrySettings,
    max_attempts=st.none() | st.integers(1, 4),
    min_timeout_ms=st.sampled_from([0.0, 10.0, 40.0]),
    max_timeout_ms=st.just(200.0),
    randomize=st.booleans(),
)
sweeps = st.none() | st.builds(TtlSettings, sweep_ms=st.sampled_from([0, 25, 100]))


@st.composite
def scenarios(draw: st.DrawFn) -> Scenario:
    names = draw(st.lists(st.sampled_from(KEY_NAMES), min_size=1, max_size=3, unique=True))
    keys = []
    for name in names:
        spec = draw(lifecycle_keys)
        fails = draw(st.integers(1, 3)) if spec.fail_rate is not None else None
        keys.append(spec.model_copy(update={"name": name, "fail_attempts": fails}))
    env = draw(st.integers(1, 3))
    ttl = draw(sweeps) or TtlSettings()  # a table, so the scenario runs the lifecycle
    return Scenario(name="life", env_limit=env, keys=keys, retry=draw(retries), ttl=ttl)


SETTINGS = settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@SETTINGS
@given(
    scenario=scenarios(),
    seed=st.text("abc-", min_size=1, max_size=4),
    discipline=st.sampled_from(["baseline", "vtime", "vtime-v17", "sfq"]),
    max_count=st.integers(1, 2),
    consumers=st.integers(1, 2),
)
def test_every_run_settles_in_one_place_and_seeds_repeat(
    client: redis.Redis,
    scenario: Scenario,
    seed: str,
    discipline: str,
    max_count: int,
    consumers: int,
) -> None:
    treatment = Treatment(discipline=discipline)
    outcomes = []
    for _ in range(2):
        prefix = new_namespace("ckviz-test")
        cell = open_cell(client, scenario, seed, treatment, prefix, max_count, consumers=consumers)
        with cell as driver:
            driver.run()  # a broken invariant raises
            ledger, outcome = driver.ledger, driver.outcome()
            assert ledger.settled == ledger.total_runs
            assert ledger.queued_count == 0
            tallies = outcome.lifecycle
            assert tallies is not None
            assert sum(t.attempts for t in tallies.values()) == len(outcome.events)
            done = sum(len(t.success_waits) for t in tallies.values())
            dead = sum(t.dead_lettered for t in tallies.values())
            expired = sum(t.expired for t in tallies.values())
            assert done + dead + expired == ledger.total_runs
            outcomes.append(
                (outcome.events, {k: (t.retries, t.expired) for k, t in tallies.items()})
            )
    assert outcomes[0] == outcomes[1]
