"""The player's moves, as the app reads them: a frame already recorded (`Show`), work for the
one driver thread (`Ask`, whose result comes back through `Player.landed`), or a refusal
(`Refused`: the app rings the bell or says why); and what an export carries (`Export`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from ckviz.player.frames import Frame, Setup
from ckviz.player.jumps import Jump
from ckviz.sim.engine import Outcome

Result = list[Frame] | Jump
Landing = Literal["step", "fresh", "redrawn"]
Severity = Literal["information", "warning", "error"]


@dataclass(frozen=True, slots=True)
class Show:
    """A frame already recorded: show it, nothing runs."""

    frame: Frame


@dataclass(frozen=True, slots=True)
class Ask:
    """Work for the driver thread; its result goes to `Player.landed` with this landing:
    `step` records what it made, `fresh` starts the recording over, `redrawn` replaces the
    live frame (the same moment, other rows)."""

    job: Callable[[], Result]
    landing: Landing = "step"


@dataclass(frozen=True, slots=True)
class Refused:
    """Nothing to do: the bell, or `note` said."""

    note: str | None = None
    severity: Severity = "warning"


@dataclass(frozen=True, slots=True)
class Export:
    """The live moment with every key's row, and each lane's run so far under its setup."""

    frames: list[Frame]
    outcomes: list[Outcome]
    setup: Setup


Move = Show | Ask | Refused | None  # None: nothing to show now, nothing wrong either
BELL = Refused()
