"""The why of a dequeue call: dequeue.lua's walk over the call's inputs, the words that say
why the runner-up lost (issue 23 item 8), and a rescore's decision as its discipline made it."""

from __future__ import annotations

from typing import Any, cast

from ckviz.disciplines.registry import make_discipline
from ckviz.model.clock import SCORE_BASE, WALL_NOW
from ckviz.model.decision import INDEX_SCORE, Candidate, Decision, why_lost
from ckviz.model.queue import DequeuedRun, IndexColumns, IndexEntry
from ckviz.sim.engine.decision import age_ranked, walked
from ckviz.sim.engine.serving import Rescoring
from ckviz.store.keys import ck_member
from ckviz.store.runqueue import RunQueue


def test_the_walk_gives_each_candidate_the_fate_the_lua_would() -> None:
    ranked = [(k, (("clock", float(i)),)) for i, k in enumerate(["heavy", "a", "b", "c", "d"])]
    held = {"heavy": 1}
    # one run a call: a window of 3; heavy is at its limit of 1, `a` is served
    decision = walked(ranked[:4], ["a"], lambda k: held.get(k, 0), 1, 1)
    fates = [c.fate for c in decision.candidates]
    assert fates == ["limit", "served", "batch-full", "outside-window"]
    assert decision.winner is not None and decision.winner.key == "a"
    runner_up = decision.runner_up
    assert runner_up is not None and runner_up.key == "heavy"  # ranked above, passed over
    assert why_lost(runner_up, decision.winner) == "at its limit"
    assert why_lost(decision.candidates[2], decision.winner) == "clock 2 > a's 1 (batch full)"
    assert why_lost(decision.candidates[3], decision.winner) == "outside the window"


def test_a_tie_is_broken_by_name_and_a_second_serve_says_so() -> None:
    first = Candidate("light-1", (("clock", 1.0),), "served")
    second = Candidate("light-2", (("clock", 1.0), ("waited", 3)), "served")
    assert why_lost(second, first) == "served next: tied, then by member bytes"
    later = Candidate("light-2", (("clock", 3.0),), "later")
    assert why_lost(later, first) == "clock 3 > light-1's 1"
    assert Decision((first, second)).runner_up == second


def test_the_lua_order_ranks_served_keys_by_the_score_the_call_read() -> None:
    # heavy was served at score 5 and its entry moved to its next head, 40
    index = [IndexEntry("m:a", "a", 1010.0), IndexEntry("m:heavy", "heavy", 1040.0)]
    ranked = age_ranked(index, [("heavy", 1005.0)], 1000)
    assert ranked == [("heavy", (("head at", 5.0),)), ("a", (("head at", 10.0),))]


def test_a_rescore_s_decision_keeps_the_ranks_its_discipline_decided_by() -> None:
    # The picture of a rescore's decision is put together only when read: the ranks in it are
    # still the ones the discipline had as it decided, whatever it learned since.
    sfq = make_discipline("sfq", {"a": 1.0, "b": 1.0})
    plan = Rescoring(sfq)
    scores = [SCORE_BASE + 100.0, SCORE_BASE + 90.0]
    index = IndexColumns([ck_member("a"), ck_member("b")], ["a", "b"], scores)
    trip = RunQueue(cast(Any, None), "p:", 10, door=sfq.door).trip()
    plan.before_dequeue(trip, index, SCORE_BASE + 200, WALL_NOW)
    sfq.on_serviced("b")  # its clock moves on before anyone asks
    plan.taken([DequeuedRun("r1", 90.0, "b")])
    decided = plan.decided
    assert decided is not None
    assert decided.ranked == [
        ("b", (("clock", 0.0), (INDEX_SCORE, 90.0))),  # the lower score wins the clocks' tie
        ("a", (("clock", 0.0), (INDEX_SCORE, 100.0))),
    ]
    assert decided.served == [("b", 90.0)]
    loser, winner = (Candidate(key, rank, "later") for key, rank in reversed(decided.ranked))
    assert why_lost(loser, winner) == "tied before it, then ckIndex score t=100 > b's t=90"
    assert sfq.rank_of("b") != (("clock", 0.0),)  # what it would say now
