"""What `inspect.lua` reports: the run queue's counts, for the invariant checks."""

from __future__ import annotations

from typing import Any, NamedTuple

from ckviz.store.keys import CK_MEMBER_PREFIX

NOT_INDEXED = -1  # the queued count of a CK queue that is not in ckIndex (not counted)
NO_COUNTER = -1  # the lengthCounter of a base queue whose counter key is absent
_CUT = len(CK_MEMBER_PREFIX)


class QueueDigest(NamedTuple):
    """The env's counts, plus (queued, held) per CK queue counted.

    With `index_listed`, every ckIndex member is counted (and any key the caller named);
    without, only the named keys. `queued` is NOT_INDEXED for a CK queue outside ckIndex.
    `length_counter` is the base queue's lengthCounter (NO_COUNTER: the key is absent).
    A named tuple: one per checked trip, and a frozen dataclass costs three times as much.
    """

    env_held: int
    env_queued: int
    master_has_member: bool
    index_size: int
    index_listed: bool
    queues: dict[str, tuple[int, int]]
    length_counter: int = NO_COUNTER


def decode_digest(reply: list[Any]) -> QueueDigest:
    """The inspect script's flat reply as a `QueueDigest`."""
    queues = {reply[i][_CUT:]: (reply[i + 1], reply[i + 2]) for i in range(6, len(reply), 3)}
    return QueueDigest(reply[0], reply[1], reply[2] == 1, reply[3], reply[4] == 1, queues, reply[5])
