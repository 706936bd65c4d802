"""Why a dequeue call picked what it picked: the candidates it ranked first, each with the values
its discipline ranked it by and what the dequeue made of it. The engine puts the last call's in
each snapshot; the app reads the winner and the runner-up from it and says why the one beat the
other, in the discipline's own words (a rank's labels are the discipline's).
"""

from __future__ import annotations

from dataclasses import dataclass

from ckviz.model.clock import SCORE_BASE, WALL_NOW
from ckviz.model.queue import Shown

# What became of a candidate, in the dequeue scripts' words (both Luas walk the same way)
FATES = {
    "served": "served",
    "limit": "at its limit",
    "not-ready": "head not ready",
    "outside-window": "outside the window",
    "batch-full": "batch full",
    "empty": "empty",
    "expired": "expired",
    "orphan": "orphan dropped",
    "discovered": "registered",
    "later": "not reached",
}
TOP = 4  # candidates a decision keeps: enough for the window of a one-run call (3) and one more

Rank = tuple[tuple[str, Shown], ...]  # (label, value), most significant first; lower wins
# A rescoring call's tie-break, last before the member: ckIndex's score as the call read it
# (ms from the run's start: a head's arrival; a score an earlier rescore wrote sits near the
# dequeue's `now`, 10^9 ms on, above every head: model/clock.py's WALL_NOW)
INDEX_SCORE = "ckIndex score"
RESCORED_FROM = 100_000_000  # a score this far from the run's start is a rescore's
NOW_FROM_START = WALL_NOW - SCORE_BASE  # where a rescore's scores end (now - n .. now - 1)
BY_MEMBER = "tied, then by member bytes"  # the dequeue's last tie-break (Redis's order)


@dataclass(frozen=True, slots=True)
class Candidate:
    """One key the call ranked: by what (`rank`, as its discipline saw it when it decided) and
    what the dequeue made of it (`fate`: a FATES name)."""

    key: str
    rank: Rank
    fate: str


@dataclass(frozen=True, slots=True)
class Decision:
    """The last dequeue call's best-ranked candidates, in the order the call looked at them."""

    candidates: tuple[Candidate, ...]

    @property
    def winner(self) -> Candidate | None:
        """The first candidate served."""
        return next((c for c in self.candidates if c.fate == "served"), None)

    @property
    def runner_up(self) -> Candidate | None:
        """The closest contender: a candidate ranked above the winner that the dequeue passed
        over, else the one ranked right after it."""
        winner = self.winner
        if winner is None:
            return None
        others = [c for c in self.candidates if c is not winner]
        return others[0] if others else None


def fate_words(fate: str) -> str:
    return FATES.get(fate, fate)


STOPPED = ("limit", "not-ready", "outside-window", "expired", "empty", "orphan")


def why_lost(loser: Candidate, winner: Candidate) -> str:
    """`clock 3 > light-1's 1`, `at its limit`, `outside the window`: why `loser` did not come
    first, from the call's own data: what stopped the dequeue taking it, else where its
    discipline ranked it (the first value it lost on; equal ones: by name)."""
    words = fate_words(loser.fate)
    if loser.fate in STOPPED:
        return words
    ranked = _first_difference(loser.rank, winner.rank, winner.key) or BY_MEMBER
    if loser.fate == "served":
        return f"served next: {ranked}"
    return ranked if loser.fate == "later" else f"{ranked} ({words})"


def _first_difference(loser: Rank, winner: Rank, winner_key: str) -> str:
    theirs = dict(winner)
    for label, value in loser:
        other = theirs.get(label)
        if other is None or other == value:
            continue
        if isinstance(value, str) or isinstance(other, str):
            return f"{value} ({winner_key} {other})"
        sign = ">" if value > other else "<"  # a tie-break read the other way (older first)
        said = f"{label} {shown(value, label)} {sign} {winner_key}'s {shown(other, label)}"
        return f"tied before it, then {said}" if label == INDEX_SCORE else said
    return ""


def shown(value: Shown, label: str = "") -> str:
    """`value` as the panes show it (a ckIndex score: `t=204`, or `rescored`)."""
    if label == INDEX_SCORE and not isinstance(value, str):
        if value < RESCORED_FROM:
            return f"t={value:g}"
        return f"rescored now{value - NOW_FROM_START:+g}"  # its place in that rescore
    if isinstance(value, float):
        return f"{value:g}" if value == int(value) or abs(value) >= 100 else f"{value:.3g}"
    return str(value)
