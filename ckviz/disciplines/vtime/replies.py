"""How the vtime scripts' replies read: a dequeue's runs, trace and floor; the state read."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ckviz.disciplines.vtime.values import Visit, VtimeDequeue, VtimeState
from ckviz.store.keys import CK_MEMBER_PREFIX, key_of_member
from ckviz.store.replies import dequeued_runs

_CUT = len(CK_MEMBER_PREFIX)  # a member is the prefix, then its key (store/keys.py)


def _pairs(flat: list[Any]) -> zip[tuple[str, float]]:
    return zip(flat[::2], map(float, flat[1::2]), strict=True)


def vtime_dequeue(reply: list[Any] | None) -> VtimeDequeue:
    """dequeue.lua's {runs, trace, floor} ({} when the env was full)."""
    if not reply:
        return VtimeDequeue([], [], None)
    runs, trace, floor = reply
    visits = [
        Visit(
            int(trace[i]),
            key_of_member(trace[i + 1]),
            trace[i + 2],
            trace[i + 3],
            float(trace[i + 4]) if trace[i + 4] else None,
        )
        for i in range(0, len(trace), 5)
    ]
    return VtimeDequeue(dequeued_runs(runs), visits, float(floor))


def vtime_state(reply: list[Any]) -> VtimeState:
    """state.lua's {floor, listed, tags, idle} (read after every trip: the keys are cut from
    the members here rather than by a call each)."""
    floor, listed, tags, idle = reply
    ours, cut = CK_MEMBER_PREFIX, _CUT
    return VtimeState(
        None if floor is None else float(floor),
        listed == 1,
        {m[cut:]: t for m, t in _pairs(tags) if m.startswith(ours)},
        {m[cut:]: t for m, t in _pairs(idle)},
        tuple(m for m in tags[::2] if not m.startswith(ours)),
    )


def join_state_pages(replies: Sequence[list[Any]]) -> list[Any]:
    """state.lua's {floor, listed, tags, idle} read in pages (store/pages.py) as one: the first
    page's floor and listing, then every page's tags and parked tags (a key reported twice
    has the same tag in both)."""
    floor, listed, tags, idle = replies[0]
    tags = tags + [value for page in replies[1:] for value in page[2]]
    idle = idle + [value for page in replies[1:] for value in page[3]]
    return [floor, listed, tags, idle]
