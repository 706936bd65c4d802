"""Matrix files: which scenarios, seeds and treatments (discipline + caps) to run together."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, model_validator

from ckviz.defaults import DEFAULT_SEEDS
from ckviz.model.names import first_duplicate
from ckviz.model.scenario import Caps

__all__ = ["DEFAULT_SEEDS", "MatrixSpec", "Treatment"]


class Treatment(BaseModel):
    """A discipline, optionally under caps, with the label results use for it."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True, allow_inf_nan=False)

    label: str = ""
    discipline: str = Field(min_length=1)
    per_key_cap: int | None = Field(default=None, ge=1)
    total_cap: int | None = Field(default=None, ge=1)
    vtime_quantum: float | None = Field(default=None, gt=0, le=1e6)
    vtime_window: int | None = Field(default=None, ge=1, le=1000, description="window multiplier")
    vtime_arrival_cap: float | None = Field(
        default=None, ge=0, le=2.0**53, description="arrival cap multiplier (x quantum)"
    )

    @property
    def name(self) -> str:
        return self.label or self.discipline

    def caps_on(self, scenario: Caps) -> Caps:
        """The caps this treatment runs under: its own, else the scenario's."""
        return Caps(
            per_key=self.per_key_cap or scenario.per_key, total=self.total_cap or scenario.total
        )


class MatrixSpec(BaseModel):
    """A named benchmark matrix."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True, allow_inf_nan=False)

    name: str = ""
    description: str = ""
    scenarios: list[str] = Field(min_length=1)
    seeds: list[str] = Field(default=list(DEFAULT_SEEDS), min_length=1)
    disciplines: list[str] = []
    treatments: list[Treatment] = []
    max_count: int = Field(default=1, ge=1, le=1000)

    @model_validator(mode="after")
    def _has_treatments(self) -> MatrixSpec:
        if not self.disciplines and not self.treatments:
            raise ValueError("needs 'disciplines' or [[treatments]]")
        labels = [t.name for t in self.all_treatments()]
        dup = first_duplicate(labels)
        if dup is not None:
            raise ValueError(f"treatment label '{dup}' appears twice")
        return self

    def all_treatments(self) -> list[Treatment]:
        plain = [Treatment(discipline=d) for d in self.disciplines]
        return plain + list(self.treatments)
