"""Matrix files: which scenarios, seeds and treatments (discipline + caps) to run together."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ModelWrapValidatorHandler,
    PrivateAttr,
    create_model,
    field_validator,
    model_validator,
)

from ckviz.defaults import DEFAULT_SEEDS, MAX_CONSUMERS
from ckviz.disciplines.vtime.knobs import KNOBS as VTIME_KNOBS
from ckviz.model.lineup import FLAG_OFF, MIX_FORM, Lineup, mix_of, parse_lineup
from ckviz.model.names import first_duplicate
from ckviz.model.scenario import MAX_CLOCK_LIMIT_MS, Caps

__all__ = ["DEFAULT_SEEDS", "MatrixSpec", "Sweep", "Treatment"]

MAX_SWEEP_VALUES = 50
SweepValue = int | float


class _Treatment(BaseModel):
    """A discipline, optionally under caps, with the label results use for it. `consumers`:
    how many take turns, or which consumer runs what (a mix, model/lineup.py), whose label
    (model/lineup.py) is then the treatment's discipline."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True, allow_inf_nan=False)

    label: str = ""
    discipline: str = Field(min_length=1)
    per_key_cap: int | None = Field(default=None, ge=1)
    total_cap: int | None = Field(default=None, ge=1)
    consumers: int | str | None = Field(
        default=None, description=f"1 to {MAX_CONSUMERS}, or a mix {MIX_FORM}"
    )
    _lineup: Lineup | None = PrivateAttr(default=None)  # `consumers` read, when a mix

    @classmethod
    def mixed(cls, lineup: Lineup) -> Self:
        """The treatment a mix is on its own (the flag's): the mix names each discipline.
        Made from the mix as read (its label and form are what validation would make of it),
        so the flag's text is parsed once, where it comes in."""
        treatment = cls.model_construct(discipline=lineup.label, consumers=lineup.form)
        treatment._lineup = lineup
        return treatment

    @model_validator(mode="wrap")
    @classmethod
    def _read_the_mix(cls, data: Any, handler: ModelWrapValidatorHandler[Self]) -> Self:
        """A mix read once, when the treatment is made: it names every consumer's discipline
        (the treatment's is its label), the field's validator takes it as read and its users
        take `lineup`. A bad mix is left to the field's validator, which names the field."""
        if not isinstance(data, dict) or not isinstance(data.get("consumers"), str):
            return handler(data)
        try:
            lineup: Lineup | None = parse_lineup(data["consumers"], MAX_CONSUMERS)
        except ValueError:
            lineup = None
        label = lineup.label if lineup is not None else data["consumers"]
        if data.get("discipline", label) != label:
            raise ValueError(
                "a mix in 'consumers' names each consumer's discipline: drop 'discipline'"
            )
        treatment = handler({**data, "discipline": label, "consumers": lineup or data["consumers"]})
        treatment._lineup = lineup
        return treatment

    @field_validator("consumers", mode="before")
    @classmethod
    def _count_or_mix(cls, value: object) -> object:
        if isinstance(value, Lineup):  # read as the treatment was (_read_the_mix)
            return value.form
        out_of_range = isinstance(value, int) and not 1 <= value <= MAX_CONSUMERS
        if out_of_range and not isinstance(value, bool):  # a bool: not a count (strict)
            raise ValueError(f"must be 1 to {MAX_CONSUMERS} (one connection each), got {value}")
        if isinstance(value, str):  # a mix that did not read: say why, on this field
            parse_lineup(value, MAX_CONSUMERS)
        return value

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> Self:
        """A copy (pydantic's, which validates nothing) whose mix is its `consumers`'."""
        copy = super().model_copy(update=update, deep=deep)
        if update and "consumers" in update:
            copy._lineup = _read(copy.consumers)
        return copy

    @property
    def name(self) -> str:
        return self.label or self.discipline

    @property
    def lineup(self) -> Lineup | None:
        """Which consumer runs what, when a mix (None: every consumer runs `discipline`)."""
        return self._lineup

    @property
    def disciplines(self) -> tuple[str, ...]:
        """The disciplines its consumers run, each once."""
        lineup = self.lineup
        return lineup.names if lineup is not None else (self.discipline,)

    def per_consumer(self, count: int) -> tuple[str, ...]:
        """Each consumer's discipline, c1..cN: the mix's, else `count` times `discipline`."""
        lineup = self.lineup
        if lineup is not None:
            return lineup.per_consumer
        return (self.discipline,) * count

    def caps_on(self, scenario: Caps) -> Caps:
        """The caps this treatment runs under: its own, else the scenario's."""
        return Caps(
            per_key=self.per_key_cap or scenario.per_key, total=self.total_cap or scenario.total
        )

    def consumers_on(self, scenario: int) -> int:
        """How many consumers take turns: the treatment's (or the flag's), else the scenario's
        (its `consumer_count`)."""
        if self._lineup is not None:
            return len(self._lineup)
        return self.consumers if isinstance(self.consumers, int) else scenario

    def facing(self, mix: Lineup | None) -> Self:
        """This treatment on a scenario whose consumers are `mix` (its `mix`: None for a
        count). A scenario's mix says how far a rollout has gone: its `baseline` consumers are
        the flag-off instances, and every other consumer runs this treatment's discipline (the
        one being rolled out), so under `baseline` all of them do. The treatment's own
        consumers (a count or a mix, its own or the flag's) win over the scenario's; a count
        scenario changes nothing."""
        if self.consumers is not None or mix is None:
            return self
        parts: dict[str, int] = {}
        for name, count in mix.parts:
            name = name if name == FLAG_OFF else self.discipline
            parts[name] = parts.get(name, 0) + count
        lineup = Lineup(tuple(parts.items()))
        if len(parts) == 1:  # one discipline for all: consumers taking turns, not a mix
            return self.model_copy(update={"consumers": len(lineup)})
        copy = super().model_copy(
            update={"label": self.name, "discipline": lineup.label, "consumers": lineup.form}
        )
        copy._lineup = lineup  # as read from the form it was given
        return copy


def _read(consumers: int | str | None) -> Lineup | None:
    """A treatment's consumers as a mix, when one (checked by its field's validator)."""
    return mix_of(consumers, MAX_CONSUMERS)


if TYPE_CHECKING:

    class Treatment(_Treatment):
        """A discipline, optionally under caps, and its disciplines' knobs."""

else:  # and a field per knob vtime declares (ckviz/disciplines/vtime/knobs.py)
    Treatment = create_model(
        "Treatment",
        __base__=_Treatment,
        __doc__=_Treatment.__doc__,
        __module__=__name__,
        **VTIME_KNOBS.treatment_fields(),
    )


class Sweep(BaseModel):
    """One scenario run once per value of one of its parameters: `<field> = [..]` for a
    scenario field (`env_limit = [2, 4, 8]`) or `<key>.<field> = [..]` for one [[keys]] entry
    by name (`light.count = [10, 100, 1000]`). Each variant is a scenario of the results,
    named `<scenario>[<parameter>=<value>]`."""

    model_config = ConfigDict(extra="allow", frozen=True, strict=True, allow_inf_nan=False)

    scenario: str = Field(min_length=1, description="the scenario swept (name or .toml path)")

    @model_validator(mode="after")
    def _one_parameter(self) -> Sweep:
        self.parameter()
        return self

    def parameter(self) -> tuple[str, list[SweepValue]]:
        """(`field` or `key.field`, its values); ValueError unless exactly one is given."""
        given = list((self.model_extra or {}).items())
        if len(given) != 1:
            names = ", ".join(name for name, _ in given) or "none"
            raise ValueError(
                f"needs exactly one swept parameter besides 'scenario' (given: {names}), "
                "e.g. light.count = [10, 100, 1000]"
            )
        name, value = given[0]
        if isinstance(value, dict):  # `key.field = [...]` reads as a table {field: [...]}
            if len(value) != 1:
                raise ValueError(f"'{name}': sweep one field of one key, e.g. {name}.count")
            field, value = next(iter(value.items()))
            name = f"{name}.{field}"
        return name, _values(name, value)


def _values(name: str, value: object) -> list[SweepValue]:
    listed = value if isinstance(value, list) else []
    values: list[SweepValue] = [
        v for v in listed if isinstance(v, int | float) and not isinstance(v, bool)
    ]
    if not values or len(values) != len(listed) or len(values) > MAX_SWEEP_VALUES:
        raise ValueError(f"'{name}' must be a list of 1 to {MAX_SWEEP_VALUES} numbers")
    dup = first_duplicate([str(v) for v in values])
    if dup is not None:
        raise ValueError(f"'{name}' lists {dup} twice")
    return values


class MatrixSpec(BaseModel):
    """A named benchmark matrix."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True, allow_inf_nan=False)

    name: str = ""
    description: str = ""
    scenarios: list[str] = []
    sweep: Sweep | None = None  # run after `scenarios`, one scenario per swept value
    seeds: list[str] = Field(default=list(DEFAULT_SEEDS), min_length=1)
    disciplines: list[str] = []
    treatments: list[Treatment] = []
    max_count: int = Field(default=1, ge=1, le=1000)
    clock_limit_ms: int | None = Field(
        default=None, ge=1, le=MAX_CLOCK_LIMIT_MS, description="every scenario's, unless set"
    )
    consumers: int | None = Field(
        default=None, ge=1, le=MAX_CONSUMERS, description="every treatment's, unless its own"
    )

    @model_validator(mode="after")
    def _has_treatments(self) -> MatrixSpec:
        if not self.scenarios and self.sweep is None:
            raise ValueError("needs 'scenarios' or a [sweep]")
        if not self.disciplines and not self.treatments:
            raise ValueError("needs 'disciplines' or [[treatments]]")
        if self.disciplines and self.treatments:  # which would the caps flags apply to?
            raise ValueError("give either 'disciplines' or [[treatments]], not both")
        labels = [t.name for t in self.all_treatments()]
        dup = first_duplicate(labels)
        if dup is not None:
            raise ValueError(f"treatment label '{dup}' appears twice")
        return self

    def all_treatments(self) -> list[Treatment]:
        plain = [Treatment(discipline=d) for d in self.disciplines]
        return plain + list(self.treatments)
