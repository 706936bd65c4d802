"""The few figures of every key's wait that a frame keeps for the wait CDF read as the whole
sorted list would, at every fraction a CDF of 4 to 10 rows asks for."""

from __future__ import annotations

import math

from hypothesis import given
from hypothesis import strategies as st

from ckviz.model.snapshot import CDF_LEVELS, Waits


def nearest_rank(ordered: list[float], fraction: float) -> float:
    """The quantile as the CDF took it from every key's wait."""
    return ordered[max(1, min(len(ordered), math.ceil(fraction * len(ordered)))) - 1]


@given(st.lists(st.floats(min_value=0, max_value=1e9), min_size=1, max_size=300))
def test_every_fraction_the_cdf_draws_reads_as_from_the_whole_list(values: list[float]) -> None:
    ordered = sorted(values)
    waits = Waits.of(ordered)
    assert waits.count == len(ordered) and waits.longest == ordered[-1]
    assert len(waits.at_rank) <= sum(CDF_LEVELS)  # a few figures, however many keys
    for levels in CDF_LEVELS:
        for i in range(levels):
            fraction = (levels - i) / levels  # as the pane's rows ask
            assert waits.quantile(fraction) == nearest_rank(ordered, fraction)


def test_no_wait_yet_has_no_figures() -> None:
    assert Waits.of([]) == Waits(0, {})
