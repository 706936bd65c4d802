"""The "this step" line: what the last step dequeued, which key won and by which rule."""

from __future__ import annotations

from rich.text import Text

from ckviz.model.queue import Shown
from ckviz.model.snapshot import DequeueEvent, Snapshot
from ckviz.tui.palette import KeyPalette
from ckviz.tui.text import BOLD, DIM, number
from ckviz.tui.why import caller_discipline, explain, rule

__all__ = ["next_call", "rule", "this_step"]


def this_step(snapshot: Snapshot, palette: KeyPalette) -> Text:
    """`this step: ▶ heavy +1 more (clock 3) · lowest start tag… · env 4/4, per-key cap 1`."""
    if snapshot.decision_ahead:
        return _limits(next_call(snapshot, palette), snapshot)
    out = Text(end="").append("this step: ", DIM)  # long: the panes wrap it, never cut
    taken = snapshot.taken
    if snapshot.called is False:  # a step scenario's step with the env full: no Lua call
        # its acks come after the call's turn: slots they freed show as free now
        out.append(f"no call ({snapshot.full or 'the env was full at the call; acks since'})", DIM)
    elif not taken:
        reason = snapshot.full or ("nothing queued" if not snapshot.index_read else "no pick")
        caller = calling(snapshot)
        if caller is None:
            out.append(f"nothing dequeued ({reason})", DIM)
        else:  # several consumers: whose call came back empty
            out.append("nothing dequeued by ", DIM).append(caller, BOLD)
            out.append(f" ({reason})", DIM)
    else:
        winner = taken[0].key
        out.append("▶ ", DIM)
        out.append(winner, palette.style(winner, bold=True))
        if len(taken) > 1:
            out.append(f" +{len(taken) - 1} more", DIM)
        caller = called_by(snapshot, taken[0])
        if caller is not None:  # several consumers: whose call it was, as the event log says
            out.append(" by ", DIM).append(caller, BOLD)
        state = winners_state(snapshot, winner)
        shown = [f"{pair[0]} {number(pair[1])}" for pair in state if len(pair) == 2]
        if shown:
            out.append(f" ({', '.join(shown)})")
        out.append(" · ", DIM)
        explain(out, snapshot, palette)  # who won by which rule, who came second and why
    return _limits(out, snapshot)


def calling(snapshot: Snapshot) -> str | None:
    """The consumer whose call the last round made, as the event log names it (`c2 baseline`
    in a mix, `c2` among consumers of one discipline); None with one consumer, or no call."""
    if snapshot.caller is None or len(snapshot.consumers) < 2:
        return None
    discipline = caller_discipline(snapshot)
    return snapshot.caller if discipline is None else f"{snapshot.caller} {discipline}"


def winners_state(snapshot: Snapshot, winner: str) -> tuple[tuple[str, Shown], ...]:
    """What the Discipline pane shows of `winner`, if that pane is the calling consumer's
    (it shows the next caller's: in a mix a baseline call has no vtime tag, and consumers of
    a client-side discipline each rank by their own copy of its state)."""
    state = snapshot.discipline_state
    called_as = caller_discipline(snapshot)
    if called_as is not None and state.name != called_as:
        return ()
    own_copies = snapshot.rescores and len(snapshot.consumers) > 1
    if own_copies and snapshot.caller not in (None, snapshot.next_consumer):
        return ()
    return dict(state.per_key).get(winner, ())


def called_by(snapshot: Snapshot, served: DequeueEvent) -> str | None:
    """The consumer whose call dequeued `served` (with its discipline in a mix: the event
    log's name for that dequeue); None with one consumer, or once out of the log."""
    for event in reversed(snapshot.recent):
        if event.kind == "dequeue" and event.run_id == served.run_id:
            return event.by
    return None


def next_call(snapshot: Snapshot, palette: KeyPalette) -> Text:
    """`next dequeue: ▶ heavy +2 more · won by…`: the call worked out from a live queue's
    read (none made), said as a simulated step's pick is."""
    out = Text(end="").append("next dequeue: ", DIM)
    decision = snapshot.decision
    served = [c for c in decision.candidates if c.fate == "served"] if decision else []
    if not served:
        return out.append(f"takes nothing ({snapshot.full or 'nothing due'})", DIM)
    winner = served[0].key
    out.append("▶ ", DIM).append(winner, palette.style(winner, bold=True))
    if len(served) > 1:
        out.append(f" +{len(served) - 1} more", DIM)
    return explain(out.append(" · ", DIM), snapshot, palette)


def _limits(out: Text, snapshot: Snapshot) -> Text:
    out.append(f" · env {len(snapshot.held)}/{snapshot.env_limit}", DIM)
    if snapshot.per_key_cap is not None:
        out.append(f", per-key cap {snapshot.per_key_cap}", DIM)
    if snapshot.total_cap is not None:
        out.append(f", total cap {snapshot.total_cap}", DIM)
    return out
