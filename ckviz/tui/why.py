"""Why the last call picked its key, and why the runner-up lost: read from the decision the
engine put in the snapshot (ckviz.model.decision), in the discipline's own words (its rule is
the registry's, its ranks' labels its own)."""

from __future__ import annotations

from rich.console import Console
from rich.text import Text

from ckviz.disciplines.registry import RULES
from ckviz.model.decision import Candidate, Decision, fate_words, shown, why_lost
from ckviz.model.snapshot import Snapshot
from ckviz.tui.palette import KeyPalette
from ckviz.tui.text import BOLD, DIM

_CONSOLE = Console(width=200, color_system=None, legacy_windows=False)  # to measure lines


def rule(discipline: str) -> str:
    """Why `discipline`'s first key wins, in its own words (the registry's; the tie-breaks are
    the code's); a discipline not registered: its own order."""
    return RULES.get(discipline, "first in its own order")


def caller_discipline(snapshot: Snapshot) -> str | None:
    """In a mixed rollout, the discipline of the consumer whose call the last round made (its
    rule decided the call); None otherwise."""
    caller = snapshot.caller
    return next((c.discipline for c in snapshot.consumers if c.name == caller), None)


def call_rule(snapshot: Snapshot) -> str:
    """The rule that decided the last call: its caller's discipline's in a mix."""
    return rule(caller_discipline(snapshot) or snapshot.discipline)


def explain(out: Text, snapshot: Snapshot, palette: KeyPalette, named: bool = False) -> Text:
    """`won by <rule> (clock 1) · runner-up light-2: clock 3 > light-1's 1` (`named`: the
    winner's name first), or the rule alone when the snapshot has no decision of a call."""
    decision = snapshot.decision
    winner = decision.winner if decision is not None else None
    if decision is None or winner is None:
        return out.append(call_rule(snapshot), BOLD)
    if named:
        out.append(winner.key, palette.style(winner.key, bold=True)).append(" ")
    out.append("won", DIM)
    if winner.rank:
        out.append(" with ", DIM).append(ranked(winner))
    out.append(" by ", DIM).append(call_rule(snapshot), BOLD)
    runner_up = decision.runner_up
    out.append(" · runner-up ", DIM)
    if runner_up is None:
        return out.append("none (the only candidate)", DIM)
    out.append(runner_up.key, palette.style(runner_up.key, bold=True))
    out.append(f": {why_lost(runner_up, winner)}")
    return out.append(floored(snapshot, (winner, runner_up)), DIM)


def floored(snapshot: Snapshot, named: tuple[Candidate, ...]) -> str:
    """` (light-4's clock 1 counts as the floor 14)`: a clock the Discipline pane shows below
    the floor, which the call ranked at the floor (an idle key rejoins there)."""
    state = snapshot.discipline_state
    floor = dict(state.fields).get("floor")
    if not isinstance(floor, int | float):
        return ""
    panes = dict(state.per_key)
    said = []
    for candidate in named:
        for label, value in panes.get(candidate.key, ()):
            ranked = dict(candidate.rank).get(label)
            if isinstance(value, int | float) and value < floor and ranked == floor:
                said.append(f"{candidate.key}'s {label} {shown(value)}")
    return f" ({' and '.join(said)} counted as the floor {shown(floor)})" if said else ""


def ranked(candidate: Candidate) -> str:
    return ", ".join(f"{label} {shown(value, label)}" for label, value in candidate.rank)


def why_lines(snapshot: Snapshot, palette: KeyPalette) -> list[Text]:
    """The `why` view: the rule, then every candidate the call ranked, best first, with what
    it was ranked by and what became of it (the winner and the runner-up marked)."""
    head = Text().append(f"{snapshot.discipline}", BOLD)
    called_as = caller_discipline(snapshot)
    if called_as is not None:  # a mix: the rule of whoever made the call
        head.append(f" · {snapshot.caller} {called_as}'s call", BOLD)
    lines = [head.append(" · rule: ", DIM).append(call_rule(snapshot))]
    decision = snapshot.decision
    if decision is None or decision.winner is None:
        lines.append(Text("No call has picked a key yet (nothing to explain).", DIM))
        return lines
    ahead = snapshot.decision_ahead  # a live queue's next call, worked out from its read
    if not snapshot.taken and not ahead:
        lines.append(Text("This step took no run; the last call that did:", DIM))
    label = "the next call (worked out from the read): " if ahead else "this call: "
    lines.append(explain(Text(label, DIM), snapshot, palette, named=True))
    lines.append(Text("candidates, in the order the call looked at them:", DIM))
    lines += [_candidate(c, decision, palette) for c in decision.candidates]
    return lines


def _candidate(candidate: Candidate, decision: Decision, palette: KeyPalette) -> Text:
    winner, runner_up = decision.winner, decision.runner_up
    mark = "▶ " if candidate is winner else "2 " if candidate is runner_up else "  "
    out = Text(mark, BOLD).append(candidate.key, palette.style(candidate.key))
    out.append(f" {fate_words(candidate.fate)}", BOLD if candidate is winner else DIM)
    if candidate.rank:
        out.append(f" · {ranked(candidate)}", DIM)
    if candidate is runner_up and winner is not None:
        out.append(f" · lost: {why_lost(candidate, winner)}")
    return out


def wrapped(text: Text, width: int) -> list[Text]:
    """`text` as lines of at most `width` cells, broken between words (never cut)."""
    lines = list(text.wrap(_CONSOLE, max(8, width), overflow="fold"))
    for line in lines:
        line.end, line.no_wrap = "", True
    return lines or [Text(end="")]
