"""Building a driver for one (scenario, seed, discipline) cell, in its own key namespace."""

from __future__ import annotations

import contextlib
import secrets
from collections.abc import Iterator

import redis

from ckviz.disciplines.registry import make_discipline
from ckviz.model.matrix import TreatmentSpec as Treatment
from ckviz.model.scenario import Scenario
from ckviz.sim.driver import Driver, DriverConfig
from ckviz.store.runqueue import RunQueue
from ckviz.workload import generate

ROOT_PREFIX = "ckviz"


def new_namespace(root: str = ROOT_PREFIX) -> str:
    """A fresh per-session prefix, `ckviz:<random>:`; cells add their own suffix."""
    return f"{root}:{secrets.token_hex(6)}:"


@contextlib.contextmanager
def open_cell(
    client: redis.Redis,
    scenario: Scenario,
    seed: str,
    treatment: Treatment,
    prefix: str,
    max_count: int = 1,
    check_invariants: bool = True,
) -> Iterator[Driver]:
    """A ready driver whose keys all start with `prefix`; they are deleted when it closes."""
    per_key = treatment.per_key_cap or scenario.caps.per_key
    total = treatment.total_cap or scenario.caps.total
    queue = RunQueue(client, prefix, scenario.env_limit, per_key_limit=per_key)
    config = DriverConfig(
        scenario=scenario.name,
        seed=seed,
        env_limit=scenario.env_limit,
        weights=scenario.weights(),
        max_count=max_count,
        per_key_cap=per_key,
        total_cap=total,
        check_invariants=check_invariants,
    )
    discipline = make_discipline(treatment.discipline, scenario.weights())
    try:
        queue.open()
        yield Driver(config, generate(scenario, seed), discipline, queue)
    finally:
        with contextlib.suppress(redis.RedisError, OSError):
            queue.delete_namespace()
        queue.close()
