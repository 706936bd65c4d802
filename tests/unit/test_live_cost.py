"""What a refresh costs the server, from INFO commandstats before and after (others' calls of
the same kinds taken out in proportion), and the refresh's back-off over its budget."""

from __future__ import annotations

from collections import Counter

from ckviz.live.cost import (
    MAX_INTERVAL_S,
    Meter,
    command_kind,
    next_interval,
    read_cost,
    stats_of,
)
from ckviz.live.picture import ReadCost


def cost(server_us: float) -> ReadCost:
    return ReadCost(server_us, 10, 2, 1.0, 0, 1.0)


def test_alone_the_cost_is_the_usec_delta_exactly() -> None:
    before = {"zrange": (10, 100.0), "info": (5, 50.0)}
    after = {"zrange": (13, 130.0), "info": (6, 60.0), "get": (2, 4.0)}
    sent = Counter({"zrange": 3, "info": 1, "get": 2})
    found = read_cost(before, after, sent, 2, 1.5)
    assert (found.server_us, found.commands, found.others_calls) == (44.0, 6, 0)
    assert found.exact and found.slowest_us == 10.0


def test_others_calls_meanwhile_are_taken_out_in_proportion() -> None:
    found = read_cost({"get": (0, 0.0)}, {"get": (4, 40.0)}, Counter({"get": 1}), 2, 1.0)
    assert (found.server_us, found.others_calls, found.exact) == (10.0, 3, False)


def test_commandstats_names_and_kinds_agree() -> None:
    info = {"cmdstat_zrange": {"calls": 2, "usec": 7, "usec_per_call": 3.5}, "other": 1}
    assert stats_of(info) == {"zrange": (2, 7.0)}
    assert command_kind(("ZRANGE", "k", 0, 1)) == "zrange"
    assert command_kind(("CLIENT", "SETNAME", "x")) == "client|setname"


def test_over_budget_the_interval_doubles_and_comes_back_once_under() -> None:
    interval = next_interval(1.0, 1.0, cost(6000), budget_ms=5)
    assert interval == 2.0
    interval = next_interval(1.0, interval, cost(9000), budget_ms=5)
    assert interval == 4.0
    assert next_interval(1.0, 4.0, cost(100), budget_ms=5) == 2.0
    assert next_interval(1.0, 1.0, cost(100), budget_ms=5) == 1.0
    assert next_interval(1.0, 50.0, cost(9000), budget_ms=5) == MAX_INTERVAL_S


def test_commandstats_is_read_every_tenth_refresh_and_priced_between() -> None:
    meter = Meter(every=10)
    sent = Counter({"zrange": 2, "get": 4})
    assert meter.due()
    first = meter.measured({"zrange": (0, 0.0)}, {"zrange": (2, 6.0), "get": (4, 2.0)}, sent, 3, 1)
    assert first.measured and first.server_us == 8.0
    for _ in range(9):
        assert not meter.due()
        meter.estimated(sent, 3, 1.0)
    assert meter.due()
    priced = meter.estimated(Counter({"zrange": 1, "zcard": 2}), 3, 1.0)
    # a kind never measured is priced at the mean of those that were: (3 + 0.5) / 2
    assert (priced.server_us, priced.measured_ago, priced.exact) == (3.0 + 2 * 1.75, 10, False)
