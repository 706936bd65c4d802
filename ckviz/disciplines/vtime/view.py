"""What the app shows of vtime on the step clock: the order pass 1 would take and the state
as the call's trip read it (data only; the pane that draws it is the app's)."""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Iterable, Sequence

from ckviz.disciplines.vtime.knobs import Version
from ckviz.disciplines.vtime.values import Visit, VtimeState, VtimeView
from ckviz.model.decision import TOP, Candidate, Decision
from ckviz.model.queue import DisciplineState, Shown


def tag_order(
    keys: Iterable[str], state: VtimeState | None, limit: int | None = None
) -> tuple[str, ...]:
    """`keys` lowest tag first, ties by name (pass 1's order), the first `limit` of them; a key
    without a tag sits at the floor; without a state read, `keys` as given."""
    if state is None:
        return tuple(itertools.islice(keys, limit))
    floor = state.floor or 0.0

    def rank(key: str) -> tuple[float, str]:
        return max(state.tags.get(key, floor), floor), key

    if limit is None:
        return tuple(sorted(keys, key=rank))
    return tuple(heapq.nsmallest(limit, keys, key=rank))  # the first read lists every key


def call_state(
    name: str,
    version: Version,
    fields: Sequence[tuple[str, Shown]],
    state: VtimeState | None,
    last: tuple[tuple[Visit, ...], float | None] | None,
    calls: int,
    before: dict[str, float] | None = None,
) -> DisciplineState:
    """The discipline pane's state after a call: `fields` and the floor, each key's tag, and
    the view of the state with the last call's passes (`last`: its visits and floor)."""
    visits, floor = last if last is not None else ((), None)
    view = VtimeView(version, state, visits, floor, True, calls, before or {})
    per_key = tuple((k, (("tag", t),)) for k, t in state.tags.items()) if state else ()
    shown = (*fields, ("floor", (state.floor or 0.0) if state else 0.0))
    return DisciplineState(name, shown, per_key, view)


def decision_of(view: VtimeView) -> Decision | None:
    """The last call's candidates, as its trace reported them, pass by pass, each with its pass
    and its tag before the call; then the keys it did not reach, next in tag order. None: no
    call traced yet."""
    if not view.visits:
        return None
    state = view.state
    tags = state.tags if state is not None else {}
    candidates = []
    for visit in view.visits:
        tag = view.before.get(visit.key)
        if tag is None and visit.fate != "served":
            tag = tags.get(visit.key)  # a call leaves an unserved key's tag as it was
        rank: tuple[tuple[str, Shown], ...] = (("pass", visit.passno),)
        candidates.append(
            Candidate(visit.key, rank + ((("tag", tag),) if tag is not None else ()), visit.fate)
        )
    seen = {visit.key for visit in view.visits}
    for key in tag_order(tags, state, TOP + len(seen)):  # enough after the seen ones
        if len(candidates) >= TOP:
            break
        if key not in seen:
            candidates.append(Candidate(key, (("pass", 1), ("tag", tags[key])), "later"))
    return Decision(tuple(candidates))
