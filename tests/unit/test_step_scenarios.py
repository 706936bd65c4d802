"""Step-harness scenario files and step metrics: pure, no Redis."""

from __future__ import annotations

import math

import pytest
from pydantic import ValidationError

from ckviz.inputs.scenario_files import load_any
from ckviz.metrics import step_figures
from ckviz.model.snapshot import DequeueEvent
from ckviz.model.steps import StepScenario


def step(name: str) -> StepScenario:
    scenario = load_any(name)
    assert isinstance(scenario, StepScenario)
    return scenario


def test_families_use_the_reference_names() -> None:
    assert step("micro_skew").key_names() == ["heavy", "light0", "light1", "light2", "light3"]
    sybil = step("micro_sybil").key_names()
    assert sybil[:2] == ["att00", "att01"] and sybil[19] == "att19" and sybil[-1] == "light"
    assert step("micro_many_keys").key_names()[59] == "att59"
    assert step("vtime_drain_reregister").key_names()[1:3] == ["trickle-0", "trickle-1"]


def test_timestamps_are_start_plus_spacing_plus_stagger() -> None:
    skew = step("micro_skew")
    light = skew.keys[1]
    # light k, message i at t0 + 10000 + 4i + k
    assert [light.timestamp(i, 2) for i in range(3)] == [10002, 10006, 10010]
    assert skew.keys[0].timestamp(119, 0) == 0


def test_fresh_names_are_reserved_when_keys_are_minted() -> None:
    data = {
        "harness": {"kind": "steps"},
        "keys": [{"name": "fresh-1", "runs": 1}],
        "arrivals": {"fresh_per_call": 2},
    }
    with pytest.raises(ValidationError, match="names are for minted keys"):
        StepScenario.model_validate(data)


def events(*pairs: tuple[str, int]) -> list[DequeueEvent]:
    return [DequeueEvent(key, f"{key}-{i}", 0, step) for i, (key, step) in enumerate(pairs)]


def test_step_figures_nearest_rank_and_jain_over_non_zero_counts() -> None:
    serves = events(("h", 0), ("v", 4), ("v", 8), ("h", 12), ("v", 16))
    f = step_figures(serves, ["v"], {"h": 2, "v": 1, "z": 0}, drain_step=16, calls=5)
    assert (f.victim_first_serve, f.victim_wait_p50, f.victim_wait_p95) == (4, 8, 16)
    # z has a zero count and drops out: (2+1)^2 / (2 * (4+1)) = 0.9
    assert f.jain_nonzero is not None and math.isclose(f.jain_nonzero, 0.9)
    none = step_figures(serves, ["nobody"], {}, drain_step=-1, calls=5)
    assert (none.victim_first_serve, none.jain_nonzero, none.drain_step) == (-1, None, -1)
