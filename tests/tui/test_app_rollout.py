"""Issue 22: the app opens a mixed rollout (`--consumers vtime:1,baseline:1`) and names, for
each dequeue, which consumer made the call and with which discipline, as the turns go."""

from __future__ import annotations

from collections import Counter
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import pytest
from textual.pilot import Pilot

from ckviz.commands.root import build_parser
from ckviz.errors import UsageError
from ckviz.inputs import scenario_files
from ckviz.model.lineup import parse_lineup
from ckviz.model.snapshot import Snapshot
from ckviz.player.choice import app_choice, compare_choice, fit_disciplines
from ckviz.player.story import story_of
from ckviz.tui.app import CkvizApp
from ckviz.tui.decision import this_step
from ckviz.tui.why import rule
from ckviz.tui.widgets.queue.event_log import EventLogPane
from ckviz.tui.widgets.queue.key_queues import KeyQueuesPane
from tests.tui.conftest import press, settle, step_n

MakeApp = Callable[..., CkvizApp]
ONE_EACH = parse_lineup("vtime:1,baseline:1", 64)  # --consumers as the app reads it


@asynccontextmanager
async def opened(app: CkvizApp) -> AsyncIterator[Pilot[Any]]:
    """The app run wide enough for the event log to name each caller, its first frame shown."""
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        yield pilot


def shown(app: CkvizApp) -> Snapshot:
    """The lane on screen (a rollout is one lane, its consumers taking turns)."""
    current = app.player.recording.current
    assert current is not None
    return current.snapshots[0]


async def stepped(pilot: Pilot[Any], key: str, times: int) -> AsyncIterator[Snapshot]:
    """Press `key` up to `times` times, giving the lane as each press leaves it."""
    app = pilot.app
    assert isinstance(app, CkvizApp)
    for _ in range(times):
        await press(pilot, key)
        yield shown(app)


async def test_a_mix_names_the_consumer_and_its_discipline_per_call(make_app: MakeApp) -> None:
    app = make_app("ck_skew", "vtime", consumers=ONE_EACH)
    async with opened(app) as pilot:
        async for snapshot in stepped(pilot, "n", 4):
            assert [(c.name, c.discipline) for c in snapshot.consumers] == [
                ("c1", "vtime"),
                ("c2", "baseline"),
            ]
            dequeues = [e for e in snapshot.recent if e.kind == "dequeue"]
            assert all(e.by is not None for e in dequeues)  # every dequeue names who called
        # the names follow the turns: each consumer took as many runs as the log gives it
        # (the log still holds every dequeue so far)
        assert len(dequeues) == snapshot.dequeued
        shown = Counter(e.by for e in dequeues)
        took = {f"{c.name} {c.discipline}": c.dequeued for c in snapshot.consumers}
        assert took["c1 vtime"] > 0 and took["c2 baseline"] > 0
        assert dict(shown) == took
        log = app.screen.query_one(EventLogPane).plain
        dequeued = [line for line in log.splitlines() if "dequeue" in line]
        assert dequeued and all("c1 vtime" in ln or "c2 baseline" in ln for ln in dequeued)
        assert any("c1 vtime" in ln for ln in dequeued)
        assert any("c2 baseline" in ln for ln in dequeued)


async def test_one_consumer_is_never_named(make_app: MakeApp) -> None:
    app = make_app("ck_skew", "vtime", consumers=1)
    async with opened(app) as pilot:
        await press(pilot, "n", "n")
        assert all(e.by is None for e in shown(app).recent)
        assert "c1" not in app.screen.query_one(EventLogPane).plain


async def test_several_consumers_of_one_discipline_name_the_consumer_of_each_dequeue(
    make_app: MakeApp,
) -> None:
    """Issue 37: with `--consumers 2` of one discipline, each dequeue names whose call took it,
    in the event log and in a key's story (as in a mix, the consumer alone: no discipline)."""
    app = make_app("ck_skew", "sfq", consumers=2)
    async with opened(app) as pilot:
        await press(pilot, *["n"] * 8)
        snapshot = shown(app)
        dequeues = [e for e in snapshot.recent if e.kind == "dequeue"]
        assert len(dequeues) == snapshot.dequeued > 0  # the log holds every dequeue so far
        took = {c.name: c.dequeued for c in snapshot.consumers if c.dequeued}
        assert set(took) == {"c1", "c2"}
        assert dict(Counter(e.by for e in dequeues)) == took
        for key in {e.key for e in dequeues}:
            served = [run for run in story_of(snapshot, key).runs if run.dequeued is not None]
            by = {e.run_id: e.by for e in dequeues if e.key == key}
            assert served and all(run.by == by[run.run_id] for run in served)
        log = app.screen.query_one(EventLogPane).plain
        assert any("dequeue" in ln and "c2" in ln for ln in log.splitlines())
        await pilot.press("q")


async def test_several_consumers_of_one_discipline_name_the_consumer_of_each_ack(
    make_app: MakeApp,
) -> None:
    """With `--consumers 2` of one discipline, the consumer whose dequeue took a run acks it:
    the event log and the key's story name it (they named nobody: only a mix's acks were)."""
    app = make_app("ck_skew", "sfq", consumers=2)
    async with opened(app) as pilot:
        await press(pilot, *["n"] * 20)
        snapshot = shown(app)
        took = {e.run_id: e.by for e in snapshot.recent if e.kind == "dequeue"}
        acks = [e for e in snapshot.recent if e.kind == "ack"]
        assert acks and {e.by for e in acks} <= {"c1", "c2"}
        assert all(e.by == took[e.run_id] for e in acks)
        for key in {e.key for e in acks}:
            ended = [run for run in story_of(snapshot, key).runs if run.end == "acked"]
            assert ended and all(run.ended_by == took[run.run_id] for run in ended)
        await pilot.press("q")


async def test_a_retry_storm_in_a_mix_names_who_nacked_and_when_the_retry_is_due(
    make_app: MakeApp,
) -> None:
    """Issue 22's done-when: the app steps through a retry storm in a mixed rollout, showing
    the retry times and which consumer called: a nack is made by the consumer whose dequeue
    took the run (as a worker finishes through the instance that handed it the run)."""
    app = make_app("life_retry_storm", "vtime", consumers=ONE_EACH)
    async with opened(app) as pilot:
        async for snapshot in stepped(pilot, "n", 40):
            nacks = [e for e in snapshot.recent if e.kind == "nack"]
            if nacks:
                break
        assert nacks, "a storm key's run should have failed by now"
        took = {e.run_id: e.by for e in snapshot.recent if e.kind == "dequeue"}
        for nack in nacks:
            assert nack.by in ("c1 vtime", "c2 baseline")
            assert nack.by == took[nack.run_id]  # the holder finishes the run
        assert all(e.by is not None for e in snapshot.recent if e.kind != "expire")
        nack = nacks[-1]
        assert snapshot.life is not None
        row = snapshot.life.keys[nack.key]
        assert row.waiting == 1 and row.next_due is not None and row.next_due > nack.t
        table = app.screen.query_one(KeyQueuesPane).plain
        (line,) = [ln for ln in table.splitlines() if ln.split()[:1] == [nack.key]]
        assert f"@{row.next_due}ms" in line  # when the retry comes due
        log = app.screen.query_one(EventLogPane).plain
        assert any("nack" in ln and nack.by in ln for ln in log.splitlines())


@pytest.mark.slow
async def test_a_scenario_files_mix_rolls_out_the_chosen_discipline_and_names_each_caller(
    make_app: MakeApp,
) -> None:
    """A scenario whose file names a mix (`consumers = "vtime:1,baseline:1"`) opens as that
    rollout of the chosen discipline; its dead letters name the consumer that held the run."""
    app = make_app("life_stranded_dead_letter", "vtime-v17")
    async with opened(app) as pilot:
        async for snapshot in stepped(pilot, "n", 60):
            dead = {e.by for e in snapshot.recent if e.kind == "dead"}
            if len(dead) == 2:
                break
        assert [(c.name, c.discipline) for c in snapshot.consumers] == [
            ("c1", "vtime-v17"),
            ("c2", "baseline"),
        ]
        assert dead == {"c1 vtime-v17", "c2 baseline"}  # both kinds of instance dead-letter
        took = {e.run_id: e.by for e in snapshot.recent if e.kind == "dequeue"}
        finished = [e for e in snapshot.recent if e.kind in ("ack", "dead") and e.run_id in took]
        assert finished and all(e.by == took[e.run_id] for e in finished)
        log = app.screen.query_one(EventLogPane).plain
        assert any("dead" in ln and "c2 baseline" in ln for ln in log.splitlines())


def test_a_scenario_files_mix_opens_as_written_and_refuses_what_cannot_share_a_queue() -> None:
    """No --discipline: the mix's first flag-on discipline (the file's mix as written); one
    that ranks in each consumer's process is refused in one line; compare mode offers only
    disciplines that can share the queue."""
    ns = build_parser().parse_args(["life_rollout_drain"])
    assert app_choice(ns)[1] == "vtime"
    with pytest.raises(UsageError, match=r"is a mixed rollout .* 'sfq' cannot share a queue"):
        app_choice(build_parser().parse_args(["life_rollout_drain", "--discipline", "sfq"]))
    with pytest.raises(UsageError, match="--compare: 'drr' does not run on"):
        compare_choice(build_parser().parse_args(["life_rollout_drain", "--compare", "vtime,drr"]))
    scenario = scenario_files.load("life_rollout_drain")
    assert fit_disciplines(scenario, ("sfq", "baseline"))[0] == ("vtime", "baseline")


async def test_a_mixs_this_step_line_names_the_consumer_that_made_the_call(
    make_app: MakeApp,
) -> None:
    """Issue 37, item 3: step by step, the "this step" line names the consumer whose call
    dequeued (the one the event log names for that dequeue), both consumers in turn."""
    app = make_app("ck_skew", "vtime", consumers=ONE_EACH)
    named = set()
    async with opened(app) as pilot:
        for frame in await step_n(pilot, 30):
            snapshot = frame.snapshots[0]
            line = this_step(snapshot, app.palette).plain
            if not snapshot.taken:
                continue
            first = snapshot.taken[0]
            by = next(
                e.by for e in snapshot.recent if e.kind == "dequeue" and e.run_id == first.run_id
            )
            assert f"by {by}" in line, line
            named.add(by)
        assert named == {"c1 vtime", "c2 baseline"}
        await pilot.press("q")


async def test_a_mixs_call_that_took_nothing_names_its_consumer(make_app: MakeApp) -> None:
    """Issue 37: a round whose call took nothing says whose call it was: the consumer whose
    turn the frame before named (the Consumers pane's next)."""
    app = make_app("ck_skew", "vtime", consumers=ONE_EACH)
    named = set()
    async with opened(app) as pilot:
        before = shown(app)
        for frame in await step_n(pilot, 30):
            snapshot = frame.snapshots[0]
            called = {c.name: f"{c.name} {c.discipline}" for c in snapshot.consumers}
            whose = called[before.next_consumer]  # type: ignore[index]
            before = snapshot
            if snapshot.taken:
                continue
            line = this_step(snapshot, app.palette).plain
            assert "nothing dequeued" in line and f"by {whose}" in line, line
            named.add(whose)
        assert named == {"c1 vtime", "c2 baseline"}
        await pilot.press("q")


async def explained(pilot: Pilot[Any], rounds: int) -> list[tuple[Snapshot, str]]:
    """`rounds` rounds as one driver job: each round's lane that dequeued something, with its
    "this step" line."""
    app = pilot.app
    assert isinstance(app, CkvizApp)
    lanes = [frame.snapshots[0] for frame in await step_n(pilot, rounds)]
    return [(lane, this_step(lane, app.palette).plain) for lane in lanes if lane.taken]


async def test_a_mixs_this_step_line_gives_the_rule_and_state_of_the_callers_discipline(
    make_app: MakeApp,
) -> None:
    """Issue 37, item 3: in a vtime/baseline mix, a baseline call is explained by baseline's
    rule and ranks (the oldest head), with no vtime tag beside its winner; a vtime call by
    vtime's rule."""
    app = make_app("ck_skew", "vtime", consumers=ONE_EACH)
    seen = set()
    async with opened(app) as pilot:
        for _, line in await explained(pilot, 30):
            discipline = "baseline" if "by c2 baseline" in line else "vtime"
            other = "vtime" if discipline == "baseline" else "baseline"
            assert rule(discipline) in line and rule(other) not in line, line
            if discipline == "baseline":
                assert "tag" not in line and "pass" not in line, line
            seen.add(discipline)
        assert seen == {"vtime", "baseline"}
        await pilot.press("q")


async def test_a_this_step_line_shows_no_other_consumers_copy_of_a_client_side_state(
    make_app: MakeApp,
) -> None:
    """Each sfq consumer ranks by its own clocks and the Discipline pane shows the next
    caller's: the "this step" line gives the winner's clock only when that is the caller's."""
    app = make_app("ck_skew", "sfq", consumers=2)
    others = 0
    async with opened(app) as pilot:
        for snapshot, line in await explained(pilot, 16):
            if snapshot.caller != snapshot.next_consumer:  # the pane shows the other's
                assert "(clock " not in line, line
                others += 1
        assert others > 0
        await pilot.press("q")
