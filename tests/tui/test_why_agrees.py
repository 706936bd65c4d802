"""The "why" says what the dequeue did (issue 37 item 1): on random frames of every discipline,
the winner and runner-up its text names, and the reason it gives, agree with the ranks the
call compared (a rescoring discipline's: its clock after the floor, then ckIndex's score as
read, then the member) and with the clocks the Discipline pane shows."""

from __future__ import annotations

import random

import pytest
import redis
from rich.text import Text

from ckviz.disciplines.registry import REGISTRY
from ckviz.model.decision import STOPPED, Candidate, fate_words
from ckviz.model.snapshot import Snapshot
from ckviz.tui.palette import KeyPalette
from ckviz.tui.why import explain
from tests.tui.test_why import stepped

BY_MEMBER = "then by member bytes"


def values(candidate: Candidate) -> tuple[object, ...]:
    return tuple(value for _, value in candidate.rank)


def floor_of(snap: Snapshot) -> float | None:
    fields = dict(snap.discipline_state.fields)
    floor = fields.get("floor")
    return float(floor) if isinstance(floor, int | float) else None


def check_frame(snap: Snapshot) -> int:
    """The frame's why against its ranks and panes; 1 if it compared a runner-up."""
    decision = snap.decision
    if decision is None or decision.winner is None or decision.runner_up is None:
        return 0
    winner, runner_up = decision.winner, decision.runner_up
    text = explain(Text(), snap, KeyPalette([], [])).plain
    assert f"runner-up {runner_up.key}:" in text
    candidates = list(decision.candidates)
    before = candidates.index(runner_up) < candidates.index(winner)
    if runner_up.fate in STOPPED or before or runner_up.fate == "served":
        assert fate_words(runner_up.fate) in text  # passed over for what stopped it, said so
        return 1
    assert values(winner) <= values(runner_up), (text, winner, runner_up)
    if values(winner) == values(runner_up):
        assert BY_MEMBER in text  # the last tie-break, and the winner's member is first
        return 1
    assert BY_MEMBER not in text, text  # a difference decided it: the text names it
    label = next(
        lw for (lw, vw), (_, vr) in zip(winner.rank, runner_up.rank, strict=False) if vw != vr
    )
    assert label in text, (text, label)
    floor = floor_of(snap)
    clocks = dict(snap.discipline_state.per_key)
    for candidate in (winner, runner_up):
        said = dict(candidate.rank).get("clock", dict(candidate.rank).get("pass"))
        pane = dict(clocks.get(candidate.key, ())).get("clock")
        if floor is not None and isinstance(said, float) and isinstance(pane, float):
            assert said == max(pane, floor) or candidate.fate == "served"
    return 1


@pytest.mark.parametrize("discipline", list(REGISTRY))
def test_the_why_agrees_with_the_ranks_and_panes_on_random_frames(
    client: redis.Redis, prefix: str, discipline: str
) -> None:
    scenario = "micro_skew" if discipline.startswith("vtime") else "ck_skew"
    snaps = stepped(client, prefix, scenario, discipline, 260)
    picked = random.Random(f"why-{discipline}").sample(snaps, min(80, len(snaps)))
    compared = sum(check_frame(snap) for snap in picked)
    assert compared >= 5


def test_the_why_of_issue_37_s_frame_says_the_score_and_the_floor(
    client: redis.Redis, prefix: str
) -> None:
    """ck_skew under sfq at t=209: light-4 beat heavy, both at the floor's clock 14, on
    ckIndex's score as the call read it (its entry first in the last rescore): not by name."""
    snaps = stepped(client, prefix, "ck_skew", "sfq", 120)
    (snap,) = [s for s in snaps if s.t == 209 and s.taken][-1:]
    text = explain(Text(), snap, KeyPalette([], [])).plain
    assert "runner-up heavy: tied before it, then ckIndex score rescored now-" in text
    assert "won with clock 14" in text  # at the floor, as the call ranked it
    assert "by name" not in text
