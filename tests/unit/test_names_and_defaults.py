"""Names and defaults kept once: the registry's usage error, duplicates, effective caps."""

from __future__ import annotations

import pytest

from ckviz.commands.root import build_parser
from ckviz.defaults import DEFAULT_DISCIPLINE, DEFAULT_SCENARIO, DEFAULT_SEED, ROOT_PREFIX
from ckviz.disciplines import registry
from ckviz.disciplines.registry import FACTORIES, check_discipline, make_discipline, tuning_for
from ckviz.errors import UsageError, first_line
from ckviz.model.matrix import Treatment
from ckviz.model.names import first_duplicate
from ckviz.model.scenario import Caps, Scenario
from ckviz.player.choice import app_choice


def test_an_unknown_discipline_is_a_usage_error_naming_where_and_the_choices() -> None:
    with pytest.raises(UsageError, match=r"^--discipline: unknown discipline 'fifo' \(choose"):
        check_discipline("fifo")
    with pytest.raises(UsageError, match=r"^matrix 'm': unknown discipline 'fifo'"):
        check_discipline("fifo", "matrix 'm'")
    assert check_discipline(DEFAULT_DISCIPLINE) in FACTORIES


def test_a_discipline_name_is_checked_where_it_comes_in_not_again_where_it_runs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    checked: list[str] = []
    monkeypatch.setattr(registry, "check_discipline", lambda name, where="": checked.append(name))
    treatment = Treatment(discipline="vtime")
    scenario = Scenario.model_validate({"name": "s", "keys": [{"name": "a", "runs": 1}]})
    make_discipline("sfq", {"a": 1.0}, tuning_for("sfq", scenario, treatment))
    make_discipline("vtime", tuning=tuning_for("vtime", scenario, treatment))
    assert checked == []
    registry.check_treatment(treatment, "matrix 'm'")
    assert checked == ["vtime"]


def test_first_duplicate() -> None:
    assert first_duplicate(["a", "b", "a", "b"]) == "a"
    assert first_duplicate(["b", "a", "a", "b"]) == "a"
    assert first_duplicate([]) is None and first_duplicate(["x", "y"]) is None


def test_a_treatments_caps_override_the_scenarios_one_by_one() -> None:
    scenario = Caps(per_key=3, total=5)
    assert Treatment(discipline="sfq").caps_on(scenario) == scenario
    assert Treatment(discipline="sfq", total_cap=2).caps_on(scenario) == Caps(per_key=3, total=2)
    assert Treatment(discipline="sfq", per_key_cap=1).caps_on(Caps()) == Caps(per_key=1)


def test_the_app_and_the_flags_share_the_defaults() -> None:
    ns = build_parser().parse_args([])
    assert ns.prefix == ROOT_PREFIX
    assert app_choice(ns) == (DEFAULT_SCENARIO, DEFAULT_DISCIPLINE, DEFAULT_SEED)


def test_first_line() -> None:
    assert first_line(ValueError("  one\ntwo")) == "one"
    assert first_line(ValueError("")) == "ValueError"


def test_natural_key_orders_numbers_as_people_read_them() -> None:
    from ckviz.model.names import natural_key

    names = ["reg-1000", "reg-10", "reg-2", "heavy~0#100", "heavy~0#9", "reg-100", "a"]
    assert sorted(names, key=natural_key) == [
        "a",
        "heavy~0#9",
        "heavy~0#100",
        "reg-2",
        "reg-10",
        "reg-100",
        "reg-1000",
    ]


def test_natural_key_takes_digits_int_cannot_read_as_text() -> None:
    """`²` is a digit to str.isdigit() but not to int(): a key `k1²` crashed the app's sort
    (issue 35 item 5, a sibling of the lineup's)."""
    from ckviz.model.names import natural_key

    assert sorted(["k1²", "k10", "k2"], key=natural_key) == ["k1²", "k2", "k10"]
