"""What one millisecond-clock run is: its scenario, seed, limits and caps."""

from __future__ import annotations

from dataclasses import dataclass

from ckviz.model.lineup import Lineup
from ckviz.model.scenario import DEFAULT_CLOCK_LIMIT_MS


@dataclass(frozen=True, slots=True)
class DriverConfig:
    """What a run is: scenario name, seed, limits and caps."""

    scenario: str
    seed: str
    env_limit: int
    weights: dict[str, float]
    max_count: int = 1
    per_key_cap: int | None = None
    total_cap: int | None = None
    max_logical_ms: int = DEFAULT_CLOCK_LIMIT_MS  # the scenario's clock_limit
    check_invariants: bool = True  # compare the books with Redis after every trip
    lineup: Lineup | None = None  # a mixed rollout: which consumer runs what (lineup.py)
