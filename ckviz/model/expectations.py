"""A scenario's CI rules (its `[[expect]]` tables): a bound on one treatment's mean over
seeds, or a comparison with another treatment's; `ckviz --check` holds the results to them."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator


class _Strict(BaseModel):
    # strict: TOML is typed, so "4" or true for a count is a mistake, not a 4 or a 1
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True, allow_inf_nan=False)


Metric = Literal[
    "light_key_mean_wait",
    "worst_key_mean_wait",
    "makespan_ms",
    "contention_worst_share_over_weight",
    "contention_jain",
    "most_underserved_attainment",  # the demand-aware figures (docs/fairness.md)
    "share_of_keys_below_0_9",
]


COMPARISONS = (
    "at_most",
    "at_least",
    "better_than",
    "worse_than",
    "no_better_than",
    "no_worse_than",
)


class Expectation(_Strict):
    """A CI rule on one treatment's mean over seeds: a bound, or a comparison with another.

    `better_than` / `worse_than` / `no_better_than` / `no_worse_than` name another treatment;
    "better" means lower for waits and makespan, higher for shares and Jain. `margin` is a
    fraction of the other treatment's value: better_than with margin 0.5 = at least 50% better.
    """

    discipline: str = Field(min_length=1, description="treatment label or discipline name")
    metric: Metric
    at_most: float | None = None
    at_least: float | None = None
    better_than: str | None = None
    worse_than: str | None = None
    no_better_than: str | None = None
    no_worse_than: str | None = None
    margin: float = Field(default=0.0, ge=0, le=10)

    @model_validator(mode="after")
    def _one_comparison(self) -> Expectation:
        given = [getattr(self, word) for word in COMPARISONS]
        if sum(v is not None for v in given) != 1:
            raise ValueError(
                "needs exactly one of at_most, at_least, better_than, worse_than, "
                "no_better_than, no_worse_than"
            )
        return self

    def describe(self) -> str:
        for word in COMPARISONS:
            value = getattr(self, word)
            if value is not None:
                margin = (
                    f" (margin {self.margin:g})" if self.margin and isinstance(value, str) else ""
                )
                return f"{self.discipline} {self.metric} {word} {value}{margin}"
        return f"{self.discipline} {self.metric}"
