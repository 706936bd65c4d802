"""What a discipline's knob is, declared once (its own package says which it has): the
scenario's table, the matrix treatment's fields, the flags, their checks, the docs table and
the schema are all made from the declaration, so a knob has one name everywhere: `NAME` in a
scenario's `[FAMILY]` table, `FAMILY_NAME` in a treatment, `--FAMILY-NAME` on the command line."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Generic, Literal, TypeVar

from pydantic import Field

Clock = Literal["ms", "steps"]
T = TypeVar("T", int, float)


@dataclass(frozen=True, slots=True)
class Knob(Generic[T]):
    """One knob: its name, type, default, range (`above` exclusive, `at_least` and `at_most`
    inclusive), help and the clocks it tunes."""

    name: str
    kind: type[T]
    default: T
    help: str
    metavar: str
    above: float | None = None
    at_least: float | None = None
    at_most: float | None = None
    clocks: tuple[Clock, ...] = ("ms", "steps")
    default_text: str = ""  # how help and docs show the default (else the number)

    def shown_default(self) -> str:
        return self.default_text or f"{self.default:g}"

    def range_text(self) -> str:
        low = f"> {self.above:g}" if self.above is not None else f">= {self.at_least:g}"
        return f"{low}, <= {self.at_most:g}" if self.at_most is not None else low

    def field(self) -> Any:
        """The pydantic field of a file's table or treatment: unset (None) means not given."""
        return Field(
            default=None, gt=self.above, ge=self.at_least, le=self.at_most, description=self.help
        )

    def problem(self, value: float) -> str:
        """What is wrong with a value given on the command line ('' if nothing)."""
        if not math.isfinite(value):
            return f"must be a finite number, got {value}"
        if self.above is not None and value <= self.above:
            return f"must be above {self.above:g}, got {value:g}"
        if self.at_least is not None and value < self.at_least:
            return f"must be at least {self.at_least:g}, got {value:g}"
        if self.at_most is not None and value > self.at_most:
            return f"must be at most {self.at_most:g}, got {value:g}"
        return ""


@dataclass(frozen=True, slots=True)
class KnobFamily:
    """A discipline family's knobs: `family` names its scenario table and prefixes its
    treatment fields and flags."""

    family: str
    knobs: tuple[Knob[int] | Knob[float], ...]

    def treatment_field(self, knob: Knob[int] | Knob[float]) -> str:
        return f"{self.family}_{knob.name}"

    def flag(self, knob: Knob[int] | Knob[float]) -> str:
        return f"--{self.family}-{knob.name}".replace("_", "-")

    def table_fields(self) -> dict[str, Any]:
        """The fields of the scenario's `[family]` table (pydantic's create_model form)."""
        return {k.name: (k.kind | None, k.field()) for k in self.knobs}

    def treatment_fields(self) -> dict[str, Any]:
        """The fields a matrix treatment sets them by."""
        return {self.treatment_field(k): (k.kind | None, k.field()) for k in self.knobs}
