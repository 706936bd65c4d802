"""The "this step" line: what the last step dequeued, which key won and by which rule."""

from __future__ import annotations

from rich.text import Text

from ckviz.disciplines.registry import RULES
from ckviz.model.snapshot import Snapshot
from ckviz.tui.palette import KeyPalette
from ckviz.tui.text import BOLD, DIM, number


def rule(discipline: str) -> str:
    """Why `discipline`'s first key wins, in its own words (the registry's; the tie-breaks are
    the code's); a discipline not registered: its own order."""
    return RULES.get(discipline, "first in its own order")


def this_step(snapshot: Snapshot, palette: KeyPalette) -> Text:
    """`this step: ▶ heavy +1 more (clock 3) · lowest start tag… · env 4/4, per-key cap 1`."""
    out = Text(no_wrap=True, overflow="ellipsis", end="").append("this step: ", DIM)
    taken = snapshot.taken
    if not taken:
        reason = snapshot.full or ("nothing queued" if not snapshot.index_read else "no pick")
        out.append(f"nothing dequeued ({reason})", DIM)
    else:
        winner = taken[0].key
        out.append("▶ ", DIM)
        out.append(winner, palette.style(winner, bold=True))
        if len(taken) > 1:
            out.append(f" +{len(taken) - 1} more", DIM)
        state = dict(snapshot.discipline_state.per_key).get(winner, ())
        shown = [f"{pair[0]} {number(pair[1])}" for pair in state if len(pair) == 2]
        if shown:
            out.append(f" ({', '.join(shown)})")
        out.append(" · ", DIM)
        out.append(rule(snapshot.discipline), BOLD)
    out.append(f" · env {len(snapshot.held)}/{snapshot.env_limit}", DIM)
    if snapshot.per_key_cap is not None:
        out.append(f", per-key cap {snapshot.per_key_cap}", DIM)
    if snapshot.total_cap is not None:
        out.append(f", total cap {snapshot.total_cap}", DIM)
    return out
