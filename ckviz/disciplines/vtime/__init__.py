"""Virtual time, natively: the reference's production fair dequeue, whose state lives in Redis.

Everything vtime is here: its Lua (`lua/`), its door (`door.py`: scripts, state keys, ARGV,
which version a name means), its replies, its values and knobs (`values.py`), and the
discipline the driver consults (`discipline.py`).
"""

from ckviz.disciplines.vtime.discipline import VirtualTime
from ckviz.disciplines.vtime.door import VERSIONS, version_of, vtime_door
from ckviz.disciplines.vtime.values import (
    DEFAULT_TUNING,
    Tuning,
    Version,
    Visit,
    VtimeDequeue,
    VtimeKnobs,
    VtimeState,
    VtimeView,
)

__all__ = [
    "DEFAULT_TUNING",
    "VERSIONS",
    "Tuning",
    "Version",
    "VirtualTime",
    "Visit",
    "VtimeDequeue",
    "VtimeKnobs",
    "VtimeState",
    "VtimeView",
    "version_of",
    "vtime_door",
]
