"""`ckviz watch`'s app on a real queue: ckviz's producer writes trigger.dev's layout under the
test's prefix, the watch reads it (read-only) into the panes a simulated run is drawn in, and
`space`, back and forward move through the refreshes kept."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest
import redis
from textual.pilot import Pilot

from ckviz.errors import ExitCode
from ckviz.live.discover import FoundQueue, find_queues
from ckviz.live.names import LiveQueue
from ckviz.live.picture import ReadCost
from ckviz.live.producer import Producer
from ckviz.live.reading import read_picture
from ckviz.player.live_source import LiveSource, Watched, live_snapshot
from ckviz.store.server import embedded_server
from ckviz.tui.app import CkvizApp
from ckviz.tui.screens.story import StoryScreen
from ckviz.tui.watch_app import KEPT, WatchApp
from ckviz.tui.widgets.bars.watch_status import WatchControls, WatchStatus
from ckviz.tui.widgets.discipline.discipline import DisciplinePane
from ckviz.tui.widgets.pane import snapshot_panes_in
from ckviz.tui.widgets.queue.ck_index import CkIndexPane
from ckviz.tui.widgets.queue.held_slots import HeldSlotsPane
from ckviz.tui.widgets.queue.key_queues import KeyQueuesPane
from tests.tui.conftest import settle
from tests.tui.fake_source import HandMade

SIZE = (140, 40)
TIMEOUT_S = 20.0
FIXED_MS = 1_767_225_600_000  # 2026-01-01: a read time that never changes
DEPTHS = {"acme:eu": 4, "beta": 2, "gamma/1": 1}  # runs queued per concurrency key


def server_ms(client: redis.Redis) -> int:
    seconds, micros = client.time()
    return int(seconds) * 1000 + int(micros) // 1000


def fill(client: redis.Redis, prefix: str, name: str = "task/send-email") -> Producer:
    """A queue on the real layout with DEPTHS runs queued, a minute old, and one run of
    acme:eu's taken by a dequeue (held)."""
    producer = Producer(client, LiveQueue(prefix, "org1", "proj1", "env1", name), env_limit=8)
    producer.open()
    start = server_ms(client) - 60_000
    made = 0
    for key, depth in DEPTHS.items():
        for _ in range(depth):
            made += 1
            producer.enqueue(f"run_{made:04d}", key, start + made)
    assert producer.dequeue(1, server_ms(client)) == [("run_0001", "acme:eu")]
    return producer


def watch_app(client: redis.Redis, found: list[FoundQueue], interval_s: float = 60.0) -> WatchApp:
    """The watch on `found`, refreshing every `interval_s` (a minute: only the keys refresh)."""

    def open_source(queue: LiveQueue) -> LiveSource:
        watched = Watched(queue, "test server", interval_s)
        return LiveSource(watched, lambda: read_picture(client, queue))

    lines = {f.queue: f.line(0.0) for f in found}
    return WatchApp([f.queue for f in found], open_source, lines)


async def until(pilot: Pilot[Any], reached: Callable[[], bool]) -> None:
    """Wait for `reached` (refreshes land on the app's own time)."""
    deadline = time.monotonic() + TIMEOUT_S
    while not reached():
        if time.monotonic() > deadline:
            raise TimeoutError("the watch did not get there")
        await pilot.pause()
        await asyncio.sleep(0.01)
    await pilot.pause()


def refreshes(app: WatchApp) -> int:
    return 0 if app.tape is None else len(app.tape.recording.frames)


def idle(app: WatchApp) -> bool:
    return app.tape is not None and not app.tape.busy and app.tape.recording.current is not None


def plain(app: WatchApp, pane: type[Any]) -> str:
    text: str = app.screen.query_one(pane).plain
    return text


def status(app: WatchApp) -> str:
    return app.screen.query_one(WatchStatus).text.plain


@pytest.fixture
def producer(client: redis.Redis, prefix: str) -> Producer:
    return fill(client, prefix)


async def test_the_panes_show_the_queues_keys_depths_and_held_slots(
    client: redis.Redis, prefix: str, producer: Producer
) -> None:
    app = watch_app(client, find_queues([("here", client)], prefix))
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: idle(app))
        rows = {line.split()[0]: line for line in plain(app, KeyQueuesPane).splitlines()[1:]}
        assert {key: rows[key].split()[-5] for key in DEPTHS} == {  # queued
            "acme:eu": "3",  # one of its four runs is held
            "beta": "2",
            "gamma/1": "1",
        }
        index = plain(app, CkIndexPane)
        assert "3 entries" in index and all(key in index for key in DEPTHS)
        held = plain(app, HeldSlotsPane).splitlines()
        assert held[0].startswith("1/8 held") and held[1].split()[1] == "acme:eu"
        # the next dequeue, explained as a simulated pick is: acme:eu's head is the oldest
        discipline = " ".join(plain(app, DisciplinePane).split())
        assert "next dequeue: ▶ acme:eu +2 more · won with head t 0 by lowest" in discipline
        assert "runner-up beta: served next: head t 3 > acme:eu's 0" in discipline
        await pilot.press("o")  # the next sort: by runs queued
        await until(pilot, lambda: idle(app))
        assert "sorted by queued" in str(app.screen.query_one(KeyQueuesPane).border_subtitle)
        top = status(app)
        assert "org1/proj1/env1: task/send-email" in top and "baseline" in top
        assert "read " in top and " UTC" in top and "cost " in top
        await pilot.press("q")
    assert app.return_value == int(ExitCode.OK)


async def test_pause_back_and_forward_move_through_the_refreshes_kept(
    client: redis.Redis, prefix: str, producer: Producer
) -> None:
    app = watch_app(client, find_queues([("here", client)], prefix), interval_s=0.05)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: refreshes(app) >= 3)
        await pilot.press("space")
        await until(pilot, lambda: idle(app))
        assert app.tape is not None and not app.tape.playing
        assert app.tape.recording.limit == KEPT  # the refreshes kept are bounded
        kept = refreshes(app)
        app._tick()  # paused, the refresh timer is stopped; had it come due, nothing is read
        assert not app.tape.busy
        await pilot.pause()
        assert refreshes(app) == kept and "paused" in status(app)
        await pilot.press("left", "left")
        assert app.tape.recording.position == (kept - 2, kept)
        assert f"refresh {kept - 2} of {kept} kept" in status(app)
        await pilot.press("right")
        assert app.tape.recording.position == (kept - 1, kept) and refreshes(app) == kept
        await pilot.press("right", "right")  # the live end: one more refresh, still paused
        await until(pilot, lambda: refreshes(app) == kept + 1 and idle(app))
        assert not app.tape.playing and app.tape.recording.live
        await pilot.press("space")  # live again
        await until(pilot, lambda: refreshes(app) >= kept + 3)
        assert app.tape.playing and "live" in status(app)
        await pilot.press("q")


async def test_a_queue_that_drains_is_shown_empty(
    client: redis.Redis, prefix: str, producer: Producer
) -> None:
    app = watch_app(client, find_queues([("here", client)], prefix))
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: idle(app))
        now = server_ms(client)
        taken = producer.dequeue(8, now)
        while taken:
            for run_id, key in taken:
                producer.ack(run_id, key)
            taken = producer.dequeue(8, now)
        producer.ack("run_0001", "acme:eu")
        await pilot.press("right")  # read now
        await until(pilot, lambda: refreshes(app) == 2 and idle(app))
        assert "nothing queued" in status(app)
        assert "(empty: nothing queued)" in plain(app, CkIndexPane)
        assert "0/8 held" in plain(app, HeldSlotsPane)
        await pilot.press("q")
    assert app.return_value == int(ExitCode.OK)


async def test_a_lost_server_is_said_and_the_watch_exits_3(prefix: str) -> None:
    with contextlib.ExitStack() as stack:
        server = stack.enter_context(embedded_server())  # this test's own, to lose
        client = stack.enter_context(contextlib.closing(server.client()))
        fill(client, prefix)
        app = watch_app(client, find_queues([("here", client)], prefix))
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: idle(app))
            stack.close()  # the server stops
            await pilot.press("right")
            await until(pilot, lambda: app.tape is not None and app.tape.error is not None)
            assert "✖" in status(app) and "lost the watched server" in status(app)
            assert "acme:eu" in plain(app, KeyQueuesPane)  # the last picture stays
            await pilot.press("q")
    assert app.return_value == int(ExitCode.REDIS)


async def test_several_queues_found_are_picked_from_a_list(
    client: redis.Redis, prefix: str, producer: Producer
) -> None:
    fill(client, prefix, "task/other").ack("run_0001", "acme:eu")
    found = find_queues([("here", client)], prefix)
    app = watch_app(client, found)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert app.tape is None  # nothing watched until one is picked
        await pilot.press("down", "enter")  # the second: task/send-email (name order)
        await until(pilot, lambda: idle(app))
        assert app.watching == found[1].queue and "task/send-email" in status(app)
        await pilot.press("q")


async def test_one_set_of_panes_draws_a_live_frame_as_the_simulated_app_does(
    client: redis.Redis, prefix: str, producer: Producer
) -> None:
    """The same pane classes, drawing the same frame: a live queue's in the watch and in the
    simulated app's single mode (handed it as if a lane had made it) read alike."""
    (found,) = find_queues([("here", client)], prefix)
    picture = read_picture(client, found.queue)  # one read, drawn by both

    def source(_queue: LiveQueue) -> LiveSource:
        return LiveSource(Watched(found.queue, "test server"), lambda: picture)

    (live,) = source(found.queue).advance()
    drawn: dict[str, dict[type[Any], str]] = {}
    apps: dict[str, WatchApp | CkvizApp] = {
        "watch": WatchApp([found.queue], source),
        "simulated": CkvizApp(HandMade(live), "ck_skew", "baseline"),
    }
    for name, app in apps.items():
        async with app.run_test(size=SIZE) as pilot:
            if isinstance(app, WatchApp):
                await until(pilot, lambda: idle(app))  # noqa: B023 (awaited here)
            else:
                await settle(pilot)
                app.screen.query_one(KeyQueuesPane).light_key = None  # ck_skew's pins none here
                app._show(live)
                await pilot.pause()
            drawn[name] = {type(p): p.plain for p in snapshot_panes_in(app.screen)}
            await pilot.press("q")
    shared = [CkIndexPane, KeyQueuesPane, HeldSlotsPane, DisciplinePane]
    assert set(shared) == set(drawn["watch"]) and set(shared) <= set(drawn["simulated"])
    for pane in (CkIndexPane, KeyQueuesPane):  # the same widths in both layouts
        assert drawn["watch"][pane] == drawn["simulated"][pane], pane.__name__
    assert "acme:eu" in drawn["simulated"][HeldSlotsPane]
    assert "next dequeue: ▶ acme:eu" in drawn["simulated"][DisciplinePane]


def test_the_watch_screen(snap_compare: Any, client: redis.Redis, prefix: str) -> None:
    """The watch on a queue the producer filled at fixed times, drawn as of a fixed read
    (its server time and cost set: nothing time-like differs between runs)."""
    producer = Producer(
        client, LiveQueue(prefix, "org1", "proj1", "env1", "task/send-email"), env_limit=8
    )
    producer.open()
    made = 0
    for key, depth in DEPTHS.items():
        for _ in range(depth):
            made += 1
            producer.enqueue(f"run_{made:04d}", key, FIXED_MS - 60_000 + 1000 * made)
    producer.dequeue(1, FIXED_MS)
    read = read_picture(client, producer.queue)
    picture = replace(read, read_at_ms=float(FIXED_MS), cost=ReadCost(120.0, 19, 2, 3.5, 0, 0.8))

    def source(queue: LiveQueue) -> LiveSource:
        return LiveSource(Watched(queue, "test server"), lambda: picture)

    async def paused(pilot: Pilot[Any]) -> None:
        app = pilot.app
        assert isinstance(app, WatchApp)
        await until(pilot, lambda: idle(app))
        await pilot.press("space")
        await pilot.pause()

    app = WatchApp([producer.queue], source)
    assert snap_compare(app, terminal_size=SIZE, run_before=paused)


async def test_a_vtime_queue_shows_its_tags_floor_and_the_next_calls_passes(
    client: redis.Redis, prefix: str
) -> None:
    queue = LiveQueue(prefix, "org1", "proj1", "env1", "task/vt")
    producer = Producer(client, queue, vtime=True, env_limit=8)
    producer.open()
    start = server_ms(client) - 60_000
    for n, key in enumerate(["acme:eu", "acme:eu", "beta", "gamma/1", "beta"]):
        producer.enqueue(f"run_{n:04d}", key, start + n)
    assert producer.dequeue(1, server_ms(client))  # the first call writes the floor
    app = watch_app(client, find_queues([("here", client)], prefix))
    async with app.run_test(size=(140, 50)) as pilot:
        await until(pilot, lambda: idle(app))
        said = plain(app, DisciplinePane)
        assert "vtime" in status(app)
        assert "vtime · floor " in said and "floor none yet" not in said
        assert "told from: ckVtime last written" in " ".join(said.split())
        tags = next(line for line in said.splitlines() if line.startswith("tags (pass 1 order)"))
        assert all(key in tags for key in ("acme:eu", "beta", "gamma/1"))
        assert "next call (worked out from the read), pass by pass:" in said
        assert " pass 1: " in said and "served" in said
        assert "next dequeue: ▶" in " ".join(said.split())
        await pilot.press("q")


def test_a_queue_whose_vtime_keys_are_stale_says_so_in_the_discipline_pane(
    client: redis.Redis, prefix: str, producer: Producer
) -> None:
    """Read as the baseline though it has ckVtime keys: the pane says what told it."""
    read = read_picture(client, producer.queue)
    fields = dict(live_snapshot(read, 1, 0).discipline_state.fields)
    assert read.discipline_from.startswith("no ckVtime keys") and "told from" not in fields
    stale = replace(read, discipline_from="run 'r' (key 'k') was enqueued ...: stale")
    fields = dict(live_snapshot(stale, 1, 0).discipline_state.fields)
    assert fields["told from"] == stale.discipline_from


def test_a_refresh_over_budget_backs_off_and_the_status_says_so_and_when_torn(
    client: redis.Redis, prefix: str, producer: Producer
) -> None:
    """A refresh costing more than the budget doubles the wait (to the cap), a cheap one halves
    it back; the status line names the longer wait, and a torn read's first note."""
    read = read_picture(client, producer.queue)
    dear = replace(read, cost=replace(read.cost, server_us=9_000.0))  # 9 ms, budget 5
    torn = replace(read, torn=("ckIndex went from 3 to 2 variants during the read",))
    pictures = [dear, dear, torn]
    source = LiveSource(Watched(producer.queue, "test server", 1.0, 5.0), lambda: pictures.pop(0))
    waits = [(frame, source.wait_s) for frame in (source.advance()[0] for _ in range(3))]
    assert [wait for _, wait in waits] == [2.0, 4.0, 2.0]
    line = WatchStatus.render_frame(waits[1][0], WatchControls(), width=200).plain
    assert "backed off to 4s (over 5 ms)" in line and "cost 9.00 ms server" in line
    line = WatchStatus.render_frame(waits[2][0], WatchControls(), width=200).plain
    assert "⚠ may be torn: ckIndex went from 3 to 2 variants during the read" in line
    assert "backed off to 2s" in line  # halving back towards the interval asked


async def test_a_server_gone_before_the_first_picture_is_said(prefix: str) -> None:
    with contextlib.ExitStack() as stack:
        server = stack.enter_context(embedded_server())
        client = stack.enter_context(contextlib.closing(server.client()))
        fill(client, prefix)
        found = find_queues([("here", client)], prefix)
        stack.close()  # gone between finding the queue and its first read
        app = watch_app(client, found)
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: app.tape is not None and app.tape.error is not None)
            assert status(app).startswith(" ✖ ") and "the watched server" in status(app)
            await pilot.press("q")
    assert app.return_value == int(ExitCode.REDIS)


async def test_a_keys_story_in_the_watch_says_what_a_live_read_knows(
    client: redis.Redis, prefix: str, producer: Producer
) -> None:
    """Issue 37, item 7: `enter` on a key's row opens its story; a live read keeps no per-run
    history, so the story lists the key's runs held now and says so, rather than failing."""
    app = watch_app(client, find_queues([("here", client)], prefix))
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: idle(app))
        queues = app.screen.query_one(KeyQueuesPane)
        queues.focus()
        await pilot.pause()
        for _ in range(queues.rows.count):  # to the key holding a slot
            if queues.cursor_key != "acme:eu":
                queues.move_cursor(1)
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, StoryScreen)
        story = app.screen.stories[0]
        assert story.key == "acme:eu" and story.held_now == 1 and story.queued_now == 3
        assert [run.end for run in story.runs] == ["held"]
        assert story.unknown is not None and "no per-run history" in story.unknown
        shown = str(app.screen.query_one("#story-text").render())
        assert "no per-run history" in shown and "acme:eu" in shown
        await pilot.press("escape")
        await pilot.press("q")
    assert app.return_value == int(ExitCode.OK)
