"""`ckviz watch` held against a run queue ckviz did not write (tests/functional/foreign_queue.py:
the layout and the baseline dequeue spelled from the specs alone), as a read-only ACL user, on
Redis 6.2 and 7: discovery finds exactly the CK'd queues and parses their ids, a picture holds
what the producer holds, and its next order is what the producer's dequeue then takes."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
import redis

from ckviz.store.server import RedisServer
from tests.functional.cli_support import exits
from tests.functional.foreign_queue import ForeignQueue
from tests.functional.live_support import read_only_user, server_now_ms
from tests.functional.servers import redis_server  # noqa: F401  (6.2 and 7)

PRODUCTION = "engine:runqueue:"
TESTING = "runqueue:test:"
KEYS = ["tenant:eu-1", "acme corp", "ünï:κλειδί", "x", "a::b"]


@dataclass
class Site:
    """Several queues of several orgs and envs under one test's prefix."""

    root: str
    mine: ForeignQueue  # CK'd, production prefix, `task/my-task`
    colons: ForeignQueue  # CK'd, production prefix, a name with `:` and `/`
    other_org: ForeignQueue  # CK'd, another org and env
    plain: ForeignQueue  # no concurrency key: not a CK'd queue
    testing: ForeignQueue  # CK'd, the test prefix


@pytest.fixture
def watcher(redis_server: RedisServer, prefix: str) -> Iterator[str]:  # noqa: F811
    with read_only_user(redis_server, prefix) as url:
        yield url


@pytest.fixture
def site(client: redis.Redis, prefix: str) -> Site:
    made = Site(
        prefix,
        ForeignQueue(client, prefix + PRODUCTION, "cm_org1", "proj_a", "env_prod", "task/my-task"),
        ForeignQueue(client, prefix + PRODUCTION, "cm_org1", "proj_a", "env_prod", "task/a:b/c"),
        ForeignQueue(client, prefix + PRODUCTION, "cm_org2", "proj_b", "env_dev", "task/other"),
        ForeignQueue(
            client, prefix + PRODUCTION, "cm_org1", "proj_a", "env_prod", "task/plain", ck=False
        ),
        ForeignQueue(client, prefix + TESTING, "org_t", "proj_t", "env_t", "task/my-task"),
    )
    now = server_now_ms(client)
    made.mine.limits(env=4, burst=1.5, queue=2)
    for i in range(15):
        made.mine.enqueue(f"run_m{i:03d}", KEYS[i % len(KEYS)], now - 20_000 + 97 * i)
    made.mine.enqueue("run_later", "x", now + 60_000)  # a delayed run
    made.mine.enqueue("run_ttl", "late", now - 5000, ttl=now + 600_000)
    # a concurrency key that ends as a ckIndex key does: its variant is no queue
    made.colons.enqueue("run_odd", "odd:ckIndex", now - 100)
    for i in range(3):
        made.colons.enqueue(f"run_c{i}", f"k:{i}", now - 1000 + i)
        made.other_org.enqueue(f"run_o{i}", "only", now - 2000 + i)
        made.plain.enqueue(f"run_p{i}", None, now - 3000 + i)
        made.testing.enqueue(f"run_t{i}", "t", now - 4000 + i)
    made.mine.dequeue(3, now)
    return made


def watch_json(capsys: pytest.CaptureFixture[str], url: str, *args: str) -> Any:
    code, out, err = exits(["watch", "--redis-url", url, "--json", *args], capsys)
    assert (code, err) == (0, ""), err
    return json.loads(out)


def test_discovery_finds_exactly_the_ck_d_queues_and_their_ids(
    watcher: str, site: Site, capsys: pytest.CaptureFixture[str]
) -> None:
    odd = ForeignQueue(site.mine.client, site.root + PRODUCTION, "o3", "p3", "e3", "q:ck:real")
    odd.enqueue("run_real", "k", server_now_ms(odd.client))  # a queue whose name holds `:ck:`
    rows = watch_json(capsys, watcher, "--prefix", site.root + PRODUCTION)
    found = [(r["org"], r["project"], r["env"], r["queue"]) for r in rows]
    assert found == [
        ("cm_org1", "proj_a", "env_prod", "task/a:b/c"),
        ("cm_org1", "proj_a", "env_prod", "task/my-task"),
        ("cm_org2", "proj_b", "env_dev", "task/other"),
        ("o3", "p3", "e3", "q:ck:real"),
    ]
    mine = rows[1]
    assert mine["keys"] == len(site.mine.client.zrange(site.mine.q(":ckIndex"), 0, -1))
    assert mine["held"] == 3  # the queue's own held set
    everything = watch_json(capsys, watcher, "--prefix", site.root)
    assert len(everything) == 5
    assert ("org_t", "task/my-task") in [(r["org"], r["queue"]) for r in everything]


def picture(capsys: pytest.CaptureFixture[str], url: str, site: Site, *more: str) -> Any:
    args = ["--prefix", site.root + PRODUCTION, "--queue", "task/my-task", "--once", *more]
    return watch_json(capsys, url, *args)


def test_the_picture_holds_what_the_producer_holds(
    watcher: str, site: Site, capsys: pytest.CaptureFixture[str]
) -> None:
    shown = picture(capsys, watcher, site)
    mine = site.mine
    index = [(str(m), s) for m, s in mine.client.zrange(mine.q(":ckIndex"), 0, -1, withscores=True)]
    assert shown["index_total"] == len(index)
    assert shown["queue"]["org"] == "cm_org1" and shown["queue"]["name"] == "task/my-task"
    assert shown["env_held"] == 3 and shown["queue_held"] == 3
    limits = shown["limits"]
    assert (limits["env_limit"], limits["env_burst"], limits["queue_limit"]) == (4, 1.5, 2)
    assert (limits["env_capacity"], limits["variant_limit"]) == (6, 2)
    rows = {row["key"]: row for row in shown["variants"]}
    for member, score in index:
        key = member[len(mine.base) + len(":ck:") :]
        queued = mine.queued(key)
        row = rows[key]
        assert (row["depth"], row["held"]) == (len(queued), len(mine.held(key)))
        assert (row["head_run"], row["head_score"], row["index_score"]) == (
            queued[0][0],
            queued[0][1],
            score,
        )
    assert shown["length_counter"] == 17 - 3


@pytest.mark.parametrize("batch", [1, 2, 3, 10])
def test_the_next_order_is_what_the_foreign_dequeue_takes(
    watcher: str, site: Site, capsys: pytest.CaptureFixture[str], batch: int
) -> None:
    rng = random.Random(batch)
    mine, made = site.mine, 100
    held: list[tuple[str, str]] = []
    for _ in range(12):
        shown = picture(capsys, watcher, site, "--batch", str(batch))
        expected = [(p["key"], p["run_id"]) for p in shown["next_order"] if p["run_id"]]
        taken = mine.dequeue(batch, int(shown["read_at_ms"]))
        assert [(t.key(mine.base), t.run_id) for t in taken] == expected, shown["next_order"]
        held += [(t.run_id, t.key(mine.base)) for t in taken]
        rng.shuffle(held)
        now = server_now_ms(mine.client)
        for run_id, key in held[: rng.randint(0, len(held))]:
            fate = rng.random()
            if fate < 0.6:
                mine.ack(run_id, key)
            elif fate < 0.85:
                mine.nack(run_id, key, now + rng.choice([-50, 40_000]))
            else:
                mine.dead_letter(run_id, key, now)
            held.remove((run_id, key))
        for _ in range(rng.randint(0, 4)):
            made += 1
            mine.enqueue(f"run_m{made:03d}", rng.choice(KEYS), now - rng.randint(0, 5000))


def test_stale_vtime_keys_of_a_flag_off_queue(
    watcher: str, site: Site, capsys: pytest.CaptureFixture[str]
) -> None:
    """The flag was on, then rolled back an hour ago: ckVtime's keys stay (their TTL a day from
    their last write) while the dequeue is the baseline's. Runs enqueued since say so: the
    picture's order is the baseline's, and it says what the flag was told from."""
    mine = site.mine
    index = [str(m) for m in mine.client.zrange(mine.q(":ckIndex"), 0, -1)]
    for tag, member in enumerate(reversed(index)):  # youngest first: vtime's order reversed
        mine.client.zadd(mine.q(":ckVtime"), {member: tag})
    mine.client.set(mine.q(":ckVtimeFloor"), "0")
    for stale in (":ckVtime", ":ckVtimeFloor"):  # last written by vtime's scripts an hour ago
        mine.client.pexpire(mine.q(stale), 86_400_000 - 3_600_000)
    shown = picture(capsys, watcher, site, "--batch", "2")
    assert shown["discipline"] == "baseline" and shown["vtime"] is None
    assert "after ckVtime was last written" in shown["discipline_from"]
    assert shown["discipline_from"].endswith("its ckVtime keys are stale (they expire in 23.0 h)")
    expected = [(p["key"], p["run_id"]) for p in shown["next_order"] if p["run_id"]]
    taken = mine.dequeue(2, int(shown["read_at_ms"]))
    assert [(t.key(mine.base), t.run_id) for t in taken] == expected


def test_heads_past_their_ttl_are_dropped_in_the_order_shown(
    watcher: str, site: Site, capsys: pytest.CaptureFixture[str]
) -> None:
    """SPEC-lifecycle 4.2: a ready head past its TTL is dropped, and the drop is the variant's
    visit of the call (one candidate slot of the baseline's window)."""
    mine = site.mine
    now = server_now_ms(mine.client)
    for i, key in enumerate(["dead:1", "dead 2", "dead:3", "dead:4"]):
        mine.enqueue(f"run_exp{i}", key, now - 60_000 + i, ttl=now - 10)
        mine.enqueue(f"run_next{i}", key, now - 100 + i)
    for batch in (1, 2, 4):
        shown = picture(capsys, watcher, site, "--batch", str(batch))
        fates = {p["key"]: p["fate"] for p in shown["next_order"]}
        expected = [(p["key"], p["run_id"]) for p in shown["next_order"] if p["run_id"]]
        taken = mine.dequeue(batch, int(shown["read_at_ms"]))
        assert [(t.key(mine.base), t.run_id) for t in taken] == expected, shown["next_order"]
        assert "expired" in fates.values() or batch > 1
