"""`ckviz watch`'s app on a run queue ckviz did not write (tests/functional/foreign_queue.py), as
a read-only ACL user: the panes show that queue's keys, depths and held slots as the producer
holds them, and a queue whose names hold control characters, bidi marks and `##[` draws."""

from __future__ import annotations

import redis

from ckviz.errors import ExitCode
from ckviz.live.connect import attach
from ckviz.live.discover import find_queues
from ckviz.store.server import RedisServer
from ckviz.tui.widgets.queue.ck_index import CkIndexPane
from ckviz.tui.widgets.queue.held_slots import HeldSlotsPane
from ckviz.tui.widgets.queue.key_queues import KeyQueuesPane
from tests.functional.foreign_queue import ForeignQueue
from tests.functional.live_support import read_only_user
from tests.tui.test_watch import SIZE, idle, plain, server_ms, until, watch_app

KEYS = ["tenant:eu-1", "acme corp", "ünï:κλειδί"]


def foreign(client: redis.Redis, prefix: str, name: str, keys: list[str]) -> ForeignQueue:
    made = ForeignQueue(client, prefix + "engine:runqueue:", "cm_org1", "proj_a", "env_p", name)
    made.limits(env=5)
    now = server_ms(client)
    for i in range(10):
        made.enqueue(f"run_{i:03d}", keys[i % len(keys)], now - 30_000 + i)
    assert len(made.dequeue(2, now)) == 2
    return made


async def test_the_panes_show_the_foreign_queue_as_it_holds_it(
    redis_server: RedisServer, client: redis.Redis, prefix: str
) -> None:
    made = foreign(client, prefix, "task/my-task", KEYS)
    with read_only_user(redis_server, prefix) as url:
        ((_, watcher),) = attach(url)
        app = watch_app(watcher, find_queues([("here", watcher)], prefix))
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: idle(app))
            rows = {}
            for line in plain(app, KeyQueuesPane).splitlines()[1:]:
                for key in KEYS:  # a key may hold a space: matched whole
                    if line.lstrip().startswith(key):
                        rows[key] = line[line.index(key) + len(key) :].split()
            assert {key: rows[key][-5] for key in KEYS} == {
                key: str(len(made.queued(key))) for key in KEYS
            }
            assert "3 entries" in plain(app, CkIndexPane)
            assert plain(app, HeldSlotsPane).splitlines()[0].startswith("2/5 held")
            await pilot.press("q")
        watcher.close()
    assert app.return_value == int(ExitCode.OK)


async def test_hostile_names_draw(
    redis_server: RedisServer, client: redis.Redis, prefix: str
) -> None:
    foreign(client, prefix, "task/\x1b[2J\u202eevil\n##[error]", ["##[group]\x07k", "\u202ex"])
    with read_only_user(redis_server, prefix) as url:
        ((_, watcher),) = attach(url)
        app = watch_app(watcher, find_queues([("here", watcher)], prefix))
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: idle(app))
            shown = plain(app, KeyQueuesPane) + plain(app, CkIndexPane)
            assert "\x1b" not in shown and "\x07" not in shown and "\u202e" not in shown
            await pilot.press("q")
        watcher.close()
    assert app.return_value == int(ExitCode.OK)
