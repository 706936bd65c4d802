"""Virtual time, natively: the reference's production fair dequeue, whose state lives in Redis.

Everything vtime is here: its Lua (`lua/`), its door (`door.py`: scripts, state keys, ARGV,
which version a name means), its replies, its knobs (`knobs.py`), its values (`values.py`),
and the discipline the driver consults with its registry entries (`discipline.py`).
"""

from ckviz.disciplines.vtime.discipline import LISTED, VirtualTime
from ckviz.disciplines.vtime.door import VERSIONS, state_keys, version_of, vtime_door
from ckviz.disciplines.vtime.knobs import Version, VtimeKnobs, knobs_for
from ckviz.disciplines.vtime.values import Visit, VtimeDequeue, VtimeState, VtimeView

__all__ = [
    "LISTED",
    "VERSIONS",
    "Version",
    "VirtualTime",
    "Visit",
    "VtimeDequeue",
    "VtimeKnobs",
    "VtimeState",
    "VtimeView",
    "knobs_for",
    "state_keys",
    "version_of",
    "vtime_door",
]
