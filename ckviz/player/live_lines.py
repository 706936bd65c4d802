"""vtime's state in a live queue, as the discipline pane's lines draw it (a `PaneDetail`):
the floor, the lowest tags, the idle set, then the next call pass by pass, each candidate
with why (as a simulated call's passes read). Textual-free."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ckviz.live.picture import NextPick, VtimeRead
from ckviz.model.decision import fate_words
from ckviz.model.queue import Ink, PaneLine, shown_number

LISTED = 64  # tags a line lists (more than a pane shows): the rest are counted


@dataclass(frozen=True, slots=True)
class LiveVtime:
    """vtime's state as one refresh read it, and the next call worked out from it."""

    read: VtimeRead
    picks: Sequence[NextPick]
    why: str = ""  # what the discipline was told from (LivePicture.discipline_from)

    def pane_lines(self) -> list[PaneLine]:
        read = self.read
        floor = "none yet" if read.floor is None else shown_number(read.floor)
        lines: list[PaneLine] = [
            (("vtime ", "bold"), ("· floor ", "dim"), (floor, "plain")),
            *((((f"  told from: {self.why}", "dim"),),) if self.why else ()),
            _tags(read.tags, read.tags_total, "tags (pass 1 order)"),
            _tags(read.idle, read.idle_total, "idle (parked)"),
            (("next call (worked out from the read), pass by pass:", "dim"),),
        ]
        if not self.picks:
            lines.append((("  takes nothing", "dim"),))
        lines += [_pick(pick) for pick in self.picks]
        return lines


def _tags(tags: Sequence[tuple[str, float]], total: int, label: str) -> PaneLine:
    out: list[tuple[str, Ink]] = [(f"{label}: ", "dim")]
    if not tags:
        return (*out, ("none", "dim"))
    for n, (key, tag) in enumerate(tags[:LISTED]):
        out += [("  " if n else "", "plain"), (key, "key"), (f" {shown_number(tag)}", "plain")]
    if total > min(len(tags), LISTED):
        out.append((f"  … {total - min(len(tags), LISTED)} more", "dim"))
    return tuple(out)


def _pick(pick: NextPick) -> PaneLine:
    passno = dict(pick.rank).get("pass")
    label = f" pass {passno}: " if passno is not None else "  "
    served = pick.fate == "served"
    return (
        (label, "dim"),
        (pick.key, "served" if served else "key"),
        (f" {fate_words(pick.fate)}", "plain" if served else "dim"),
        (f" · {pick.why}", "dim"),
    )
