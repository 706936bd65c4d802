"""A mixed rollout in a scenario file (`consumers = "vtime:2,baseline:1"` or a table) and how a
treatment meets it (Treatment.facing): the flag-on consumers run the treatment's discipline."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from ckviz.model import lineup as lineup_module
from ckviz.model import matrix as matrix_module
from ckviz.model.lineup import Lineup
from ckviz.model.matrix import Treatment
from ckviz.model.scenario import Scenario
from ckviz.model.steps import StepScenario

KEYS = [{"name": "a", "runs": 1}]


def scenario(consumers: object) -> Scenario:
    return Scenario.model_validate({"name": "s", "consumers": consumers, "keys": KEYS})


def test_a_mix_is_read_as_the_flag_reads_it_from_a_string_or_a_table() -> None:
    given = scenario("vtime:2, baseline")
    assert given.consumers == "vtime:2,baseline:1"
    assert scenario({"vtime": 2, "baseline": 1}).consumers == given.consumers
    assert scenario(3).consumers == 3
    step = StepScenario.model_validate(
        {"consumers": {"vtime-v17": 1, "baseline": 2}, "harness": {"kind": "steps"}, "keys": KEYS}
    )
    assert step.consumers == "vtime-v17:1,baseline:2"


@pytest.mark.parametrize(
    ("value", "needle"),
    [
        ("vtime:0,baseline:1", "a discipline needs at least 1 consumer"),
        ("vtime:x", "the count after ':' must be a whole number"),
        ({"vtime": "2"}, "'vtime': the count must be a whole number"),
        ("baseline:3", "a mix of baseline alone runs no treatment's discipline"),
        (0, "must be 1 to 64"),
        (True, "expected a whole number"),
        ("vtime:40,baseline:30", "70 consumers in all"),
    ],
)
def test_a_bad_mix_says_what_is_wrong_with_the_consumers_field(value: object, needle: str) -> None:
    with pytest.raises(ValidationError) as caught:
        scenario(value)
    (error,) = caught.value.errors()
    assert error["loc"] == ("consumers",) and needle in error["msg"]


@pytest.mark.parametrize(
    ("discipline", "mix", "expected"),
    [
        ("vtime", "vtime:2,baseline:1", "vtime:2,baseline:1"),
        ("vtime-v17", "vtime:2,baseline:1", "vtime-v17:2,baseline:1"),
        ("vtime", "baseline:1,vtime:1,vtime-v17:1", "baseline:1,vtime:2"),  # order kept
    ],
)
def test_the_flag_on_consumers_of_a_scenarios_mix_run_the_treatments_discipline(
    discipline: str, mix: str, expected: str
) -> None:
    facing = Treatment(discipline=discipline).facing(scenario(mix).mix)
    assert facing.consumers == expected
    assert facing.name == discipline  # the results group its runs under the treatment
    assert facing.lineup is not None and facing.discipline == facing.lineup.label


def test_under_baseline_every_consumer_is_flag_off_and_the_treatments_own_consumers_win() -> None:
    mix = scenario("vtime:2,baseline:1").mix
    assert Treatment(discipline="baseline").facing(mix) == Treatment(
        discipline="baseline", consumers=3
    )
    own = Treatment(discipline="vtime", consumers=2)
    assert own.facing(mix) is own
    flag_mix = Treatment(discipline="vtime:1+baseline:1", consumers="vtime:1,baseline:1")
    assert flag_mix.facing(mix) is flag_mix
    plain = Treatment(discipline="vtime")
    assert plain.facing(scenario(3).mix) is plain
    assert plain.facing(mix).consumers_on(1) == 3


def test_a_mix_is_read_once_when_its_file_is_and_carried(monkeypatch: pytest.MonkeyPatch) -> None:
    given = scenario("vtime:2,baseline:1")
    flag_mix = Treatment(discipline="vtime:1+baseline:1", consumers="vtime:1,baseline:1")
    plain = Treatment(discipline="vtime")
    wider = flag_mix.model_copy(update={"consumers": "vtime:3,baseline:1"})

    def read_again(text: str, most: int) -> Lineup:
        raise AssertionError(f"'{text}' read again")

    monkeypatch.setattr(lineup_module, "parse_lineup", read_again)
    monkeypatch.setattr(matrix_module, "parse_lineup", read_again)
    assert given.mix is not None and given.consumer_count == 3
    facing = plain.facing(given.mix)
    assert facing.lineup == given.mix and facing.disciplines == ("vtime", "baseline")
    assert facing.per_consumer(facing.consumers_on(1)) == ("vtime", "vtime", "baseline")
    assert flag_mix.consumers_on(given.consumer_count) == 2
    assert flag_mix.lineup is flag_mix.lineup
    assert wider.lineup is not None and len(wider.lineup) == 4  # a copy's mix is its own


def test_a_mix_in_a_scenario_or_a_treatment_is_read_once_as_it_is_validated(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    reads: list[str] = []
    parse = lineup_module.parse_lineup

    def counting(text: str, most: int) -> Lineup:
        reads.append(text)
        return parse(text, most)

    for module in (lineup_module, matrix_module):
        monkeypatch.setattr(module, "parse_lineup", counting)
    assert scenario("vtime:2, baseline").consumer_count == 3
    step = StepScenario.model_validate(
        {"consumers": "vtime-v17:1,baseline:2", "harness": {"kind": "steps"}, "keys": KEYS}
    )
    assert step.mix is not None and step.consumer_count == 3
    treatment = Treatment(consumers="vtime:1, baseline:1")
    assert treatment.lineup is not None and treatment.discipline == "vtime:1+baseline:1"
    assert reads == ["vtime:2, baseline", "vtime-v17:1,baseline:2", "vtime:1, baseline:1"]
