"""The lifecycle's vtime paths on a real Redis (SPEC-lifecycle 1-6, flag on), both versions:
the nack's registration, the parked credit's round trips through each drain path (ack, nack,
dead-letter, TTL sweep), expired heads met by the vtime dequeue, and the fast path."""

from __future__ import annotations

import pytest
import redis

from ckviz.disciplines.base import Tuning
from ckviz.disciplines.vtime.door import SCRIPTS, state_keys, vtime_door
from ckviz.disciplines.vtime.knobs import Version, VtimeKnobs
from ckviz.disciplines.vtime.values import VtimeState
from ckviz.store.keys import ck_member
from ckviz.store.scripts import LIFECYCLE
from tests.functional.lifecycle_support import NOW, Lanes
from tests.functional.servers import redis_server  # noqa: F401  (6.2 and 7)

BOTH: tuple[Version, ...] = ("head", "v17")
DEFAULTS = VtimeKnobs()


class VLanes(Lanes):
    """Lanes through a vtime door (all of it traced), with reads of the vtime state."""

    def __init__(
        self,
        client: redis.Redis,
        prefix: str,
        version: Version,
        env_limit: int = 100,
        knobs: VtimeKnobs = DEFAULTS,
    ) -> None:
        door = vtime_door(version, Tuning(knobs, trace=True))
        super().__init__(client, prefix, env_limit, door=door)

    def state(self) -> VtimeState:
        state: VtimeState = self.one("read_state", 1_000_000)
        return state

    def tags(self) -> dict[str, float]:
        return self.state().tags

    def idle(self) -> dict[str, float]:
        return self.state().idle

    def ack(self, key: str, run_id: str) -> None:
        self.one("ack", run_id, key)


def flag_off(lanes: Lanes) -> Lanes:
    """A flag-off instance on the same keys: the store's scripts, never a vtime key."""
    return Lanes(lanes.client, lanes.q.keys.prefix, lanes.q.env_limit)


def stranded(v: VLanes) -> None:
    """`a` at tag 1 with its queue emptied by a flag-off dequeue (a2 held), `b` at 0: a's tag
    stays in ckVtime with no ckIndex entry (SPEC-lifecycle 7.1)."""
    v.enqueue("a", "a1", 1000)
    v.enqueue("a", "a2", 1001)
    v.enqueue("b", "b1", 2000)
    v.enqueue("b", "b2", 2001)
    assert v.dequeue() == ["a1"]  # equal tags: name order; a 0 -> 1
    assert flag_off(v).dequeue() == ["a2"]  # the oldest head
    assert v.tags() == {"b": 0.0, "a": 1.0} and v.index_score("a") is None


# nack (2.3)


def test_head_nack_restores_the_parked_credit(client: redis.Redis, prefix: str) -> None:
    v = VLanes(client, prefix, "head")
    v.enqueue("a", "a1", 1000)
    assert v.dequeue() == ["a1"]  # a 0 -> 1, drained: parked at 1 (floor 0)
    assert (v.tags(), v.idle(), v.state().floor) == ({}, {"a": 1.0}, 0.0)
    v.nack("a", "a1", NOW)
    assert v.tags() == {"a": 1.0}  # the parked tag, not the floor
    assert v.idle() == {"a": 1.0}  # registration never deletes the idle entry
    assert v.queued("a") == [("a1", float(NOW))] and v.index_score("a") == float(NOW)


def test_head_nack_stacks_a_variant_whose_parked_entry_was_reaped(
    client: redis.Redis, prefix: str
) -> None:
    v = VLanes(client, prefix, "head")
    v.enqueue("a", "a1", 1000)
    for i in range(8):  # b keeps one queued run: it stays registered
        v.enqueue("b", f"b{i}", 1000 + i)
    assert v.dequeue(max_count=2) == ["a1", "b0"]  # a parked at 1, b at 1
    for _ in range(6):
        v.dequeue()  # b 1 -> 7; the floor reaches 6 and reaps a's entry (<= floor)
    state = v.state()
    assert (state.tags, state.idle, state.floor) == ({"b": 7.0}, {}, 6.0)
    v.nack("a", "a1", NOW)
    assert v.tags()["a"] == 8.0  # stacked one quantum behind the highest tag


def test_head_nack_keeps_a_registered_variants_tag(client: redis.Redis, prefix: str) -> None:
    v = VLanes(client, prefix, "head")
    v.enqueue("a", "a1", 1000)
    v.enqueue("a", "a2", 1001)
    assert v.dequeue() == ["a1"]  # a 0 -> 1, a2 still queued
    client.set(state_keys(v.q.keys).floor, "0")
    v.nack("a", "a1", NOW + 5000)
    assert v.tags() == {"a": 1.0}


def test_head_nack_of_a_parked_tag_at_or_below_the_floor_takes_the_floor(
    client: redis.Redis, prefix: str
) -> None:
    v = VLanes(client, prefix, "head")
    v.enqueue("a", "a1", 1000)
    assert v.dequeue() == ["a1"]  # parked at 1
    v.enqueue("hog", "h1", 1000)
    client.zadd(state_keys(v.q.keys).tags, {ck_member("hog"): 9})  # a high live tag
    client.set(state_keys(v.q.keys).floor, "3")  # above the parked 1, not reaped yet
    v.nack("a", "a1", NOW)
    assert v.tags()["a"] == 3.0  # the floor: no stacking behind hog


def test_v17_nack_registers_at_the_floor(client: redis.Redis, prefix: str) -> None:
    v = VLanes(client, prefix, "v17")
    v.enqueue("a", "a1", 1000)
    for i in range(3):
        v.enqueue("b", f"b{i}", 1000 + i)
    v.dequeue(max_count=2)  # a and b 0 -> 1; a drained: V17 forgets its tag
    v.dequeue()  # b 1 -> 2, the floor 1
    assert v.tags() == {"b": 2.0} and v.idle() == {}
    v.nack("a", "a1", NOW)
    assert v.tags()["a"] == 1.0  # the floor, not stacked


@pytest.mark.parametrize("version", BOTH)
def test_a_fast_path_runs_nack_is_its_keys_first_registration(
    client: redis.Redis, prefix: str, version: Version
) -> None:
    v = VLanes(client, prefix, version)
    v.enqueue("b", "b1", 1000)
    assert v.enqueue("f", "f1", 1000, fast_path=True) is True
    assert "f" not in v.tags()  # the fast path never registers
    v.nack("f", "f1", NOW)
    assert v.tags()["f"] == 0.0


@pytest.mark.parametrize("version", BOTH)
def test_a_flag_off_nack_never_touches_a_vtime_key(
    client: redis.Redis, prefix: str, version: Version
) -> None:
    v = VLanes(client, prefix, version)
    v.enqueue("a", "a1", 1000)
    v.dequeue()
    before = v.state()
    flag_off(v).nack("a", "a1", NOW)
    assert v.state() == before and v.index_score("a") == float(NOW)  # unregistered


# the parked credit's round trips: drained by each path, re-registered at its tag


def test_head_ack_of_a_stranded_variant_parks_its_tag_for_the_next_enqueue(
    client: redis.Redis, prefix: str
) -> None:
    v = VLanes(client, prefix, "head")
    stranded(v)
    v.ack("a", "a2")
    assert "a" not in v.tags() and v.idle() == {"a": 1.0}
    v.enqueue("a", "a3", 3000)
    assert v.tags()["a"] == 1.0  # restored, not reset to the floor (0)


def test_head_dead_letter_parks_a_stranded_tag_unconditionally(
    client: redis.Redis, prefix: str
) -> None:
    v = VLanes(client, prefix, "head")
    stranded(v)
    client.set(state_keys(v.q.keys).floor, "4")  # the tag is below the floor: parked anyway
    v.dead_letter("a", "a2")
    assert "a" not in v.tags() and v.idle() == {"a": 1.0}
    assert client.zrange(v.keys.dead_letter, 0, -1) == ["a2"]
    client.set(state_keys(v.q.keys).floor, "0")
    v.nack("a", "a9", NOW)  # another run of a: back at its parked tag
    assert v.tags()["a"] == 1.0


@pytest.mark.parametrize("version", BOTH)
def test_flag_off_and_v17_dead_letters_leave_the_entry_stranded(
    client: redis.Redis, prefix: str, version: Version
) -> None:
    v = VLanes(client, prefix, version)
    stranded(v)
    dead = v if version == "v17" else flag_off(v)
    dead.dead_letter("a", "a2")
    assert v.tags()["a"] == 1.0 and v.idle() == {}
    assert client.zrange(v.keys.dead_letter, 0, -1) == ["a2"]


def test_head_dead_letter_of_a_variant_with_queued_work_keeps_its_tag(
    client: redis.Redis, prefix: str
) -> None:
    v = VLanes(client, prefix, "head")
    v.enqueue("a", "a1", 1000)
    v.enqueue("a", "a2", 1001)
    assert v.dequeue() == ["a1"]
    v.dead_letter("a", "a1")
    assert v.tags() == {"a": 1.0} and v.idle() == {}


def sweep_drains_a(v: VLanes) -> None:
    """a at tag 1 with one queued run left, which has a TTL; the sweep expires it."""
    v.enqueue("a", "a1", 1000)
    v.enqueue("a", "a2", 1001, ttl_expires_at=5000)
    v.enqueue("b", "b1", 2000)
    assert v.dequeue() == ["a1"]  # a 0 -> 1
    assert v.expire(now=5000) == ["a2"]


def test_head_sweep_parks_the_tag_of_a_variant_it_empties(client: redis.Redis, prefix: str) -> None:
    v = VLanes(client, prefix, "head")
    sweep_drains_a(v)
    assert v.tags() == {"b": 0.0} and v.idle() == {"a": 1.0}
    assert v.index_score("a") is None
    v.enqueue("a", "a3", 3000)
    assert v.tags()["a"] == 1.0  # restored
    assert v.expire(now=NOW) == []  # nothing expires twice


def test_v17_sweep_leaves_the_tag_stranded(client: redis.Redis, prefix: str) -> None:
    v = VLanes(client, prefix, "v17")
    sweep_drains_a(v)
    assert v.tags() == {"b": 0.0, "a": 1.0} and v.idle() == {}
    assert v.index_score("a") is None  # in ckVtime, absent from ckIndex


# expired heads met by the vtime dequeue (4.2)


@pytest.mark.parametrize("version", BOTH)
def test_an_expired_head_is_dropped_without_advancing_the_tag(
    client: redis.Redis, prefix: str, version: Version
) -> None:
    v = VLanes(client, prefix, version)
    v.enqueue("a", "a1", 1000, ttl_expires_at=NOW)  # expires at now: expired
    v.enqueue("a", "a2", 1001)
    v.enqueue("b", "b1", 2000)
    client.delete(v.keys.ttl_queue)  # as if an earlier dequeue had removed the entry
    reply = v.one("dequeue", 2, NOW)
    assert [r.run_id for r in reply.runs] == ["b1"]
    assert [(x.key, x.fate) for x in reply.visits][:2] == [("a", "expired"), ("b", "served")]
    assert v.tags()["a"] == 0.0  # no advance
    assert v.queued("a") == [("a2", 1001.0)] and v.index_score("a") == 1001.0
    assert v.counter("lengthCounter") == 1  # 3 counted in; a1's drop and b1's serve out
    assert v.message("a1") is not None  # kept for the TTL consumer
    entries = v.ttl_entries()
    # HEAD puts the entry back for the sweep (7f01aaf2f0); V17 does not
    assert entries == ([(f"{ck_member('a')}|a1|o-ck", float(NOW))] if version == "head" else [])


def test_head_an_expired_last_run_parks_the_stored_tag(client: redis.Redis, prefix: str) -> None:
    v = VLanes(client, prefix, "head")
    v.enqueue("c", "c1", NOW + 60_000)  # never ready: holds the floor at 0
    v.enqueue("a", "a1", 1000)
    v.enqueue("a", "a2", 1001, ttl_expires_at=NOW - 1)
    assert v.dequeue() == ["a1"]  # a 0 -> 1
    reply = v.one("dequeue", 1, NOW)  # serves nothing: no floor raise, no reap
    fates = [(x.key, x.fate, x.drain) for x in reply.visits]
    assert fates == [("c", "not-ready", ""), ("a", "expired", "parked")]
    assert v.idle() == {"a": 1.0} and v.tags() == {"c": 0.0}
    assert v.expire(now=NOW) == ["a2"]  # the sweep finishes it, once
    assert v.expire(now=NOW) == []
    assert client.zrange(v.keys.ttl_jobs, 0, -1) == ["a2"]


@pytest.mark.parametrize("version", BOTH)
def test_an_expired_drop_spends_the_pass_1_budget(
    client: redis.Redis, prefix: str, version: Version
) -> None:
    v = VLanes(client, prefix, version, knobs=VtimeKnobs(window=1))
    v.enqueue("a", "a1", 1000, ttl_expires_at=NOW - 1)
    v.enqueue("a", "a2", 1001)
    v.enqueue("b", "b1", 2000)
    reply = v.one("dequeue", 1, NOW)  # window 1: a's drop is pass 1's one visit
    assert [(x.passno, x.key, x.fate) for x in reply.visits if x.fate != "outside-window"] == [
        (1, "a", "expired"),
        (2, "b", "served"),
    ]


@pytest.mark.parametrize("version", BOTH)
def test_a_variant_of_expired_runs_sheds_one_per_call(
    client: redis.Redis, prefix: str, version: Version
) -> None:
    v = VLanes(client, prefix, version)
    for i in range(3):
        v.enqueue("a", f"a{i}", 1000 + i, ttl_expires_at=NOW - 1)
    for left in (2, 1, 0):
        assert v.dequeue(max_count=5) == []
        assert len(v.queued("a")) == left
    assert v.index_score("a") is None and "a" not in v.tags()


@pytest.mark.parametrize("version", BOTH)
def test_serving_a_run_removes_its_ttl_entry(
    client: redis.Redis, prefix: str, version: Version
) -> None:
    v = VLanes(client, prefix, version)
    v.enqueue("a", "a1", 1000, ttl_expires_at=NOW + 10)
    v.enqueue("b", "b1", 1001, ttl_expires_at=NOW + 10)
    assert v.dequeue() == ["a1"]
    assert v.ttl_entries() == [(f"{ck_member('b')}|b1|o-ck", NOW + 10.0)]
    assert v.expire(now=NOW + 10) == ["b1"]  # a1 was served: never swept


# the enqueue with a TTL, and the fast path (4.1, 6)


@pytest.mark.parametrize("version", BOTH)
def test_a_slow_path_enqueue_with_a_ttl_registers_and_writes_the_entry(
    client: redis.Redis, prefix: str, version: Version
) -> None:
    v = VLanes(client, prefix, version)
    assert v.enqueue("a", "a1", 1000, ttl_expires_at=7000) is False
    assert v.tags() == {"a": 0.0}
    assert v.ttl_entries() == [(f"{ck_member('a')}|a1|o-ck", 7000.0)]
    assert v.counter("lengthCounter") == 1


@pytest.mark.parametrize("version", BOTH)
def test_the_fast_path_neither_registers_nor_advances(
    client: redis.Redis, prefix: str, version: Version
) -> None:
    v = VLanes(client, prefix, version)
    v.enqueue("a", "a0", NOW + 60_000)  # a future run is not ready: no block
    tags = v.tags()
    assert v.enqueue("a", "a1", 1000, fast_path=True, ttl_expires_at=NOW + 5) is True
    assert v.tags() == tags and v.ttl_entries() == [] and v.queued("a") == [("a0", NOW + 6e4)]
    assert client.smembers(v.q.keys.ck_held("a")) == {"a1"}


@pytest.mark.parametrize("version", BOTH)
def test_the_fast_path_needs_its_three_conditions(
    client: redis.Redis, prefix: str, version: Version
) -> None:
    v = VLanes(client, prefix, version, env_limit=3)
    v.enqueue("r", "r0", 1000)
    assert v.enqueue("r", "r1", 1000, fast_path=True) is False  # a ready run: slow path
    client.set(v.q.keys.queue_limit, 1)
    assert v.enqueue("q", "q1", 1000, fast_path=True) is True
    assert v.enqueue("q", "q2", 1000, fast_path=True) is False  # q holds 1 of its 1
    assert v.enqueue("e", "e1", 1000, fast_path=True) is True  # 2 of 3 held
    client.sadd(v.q.keys.env_held, "x")
    assert v.enqueue("z", "z1", 1000, fast_path=True) is False  # the env is full
    assert set(v.tags()) == {"r", "q", "z"}  # each slow path registered its key


# a nack's retry in the future (5), and which scripts each version names


@pytest.mark.parametrize("version", BOTH)
def test_a_nacked_key_waits_registered_for_its_retry_then_is_served_at_its_tag(
    client: redis.Redis, prefix: str, version: Version
) -> None:
    v = VLanes(client, prefix, version)
    v.enqueue("a", "a1", 1000)
    v.enqueue("a", "a2", 1001)
    for i in range(4):
        v.enqueue("b", f"b{i}", 2000 + i)
    assert v.dequeue() == ["a1"]  # a 0 -> 1
    v.dequeue()  # b 0 -> 1
    v.dequeue()  # a2 (a 1 -> 2): a drained
    v.nack("a", "a2", NOW + 5000)  # re-registered with a future head
    tag = v.tags()["a"]
    reply = v.one("dequeue", 2, NOW)
    assert ("a", "not-ready") in {(x.key, x.fate) for x in reply.visits}
    assert [r.run_id for r in reply.runs] == ["b1"]  # not served, and still registered
    assert v.tags()["a"] == tag and v.index_score("a") == NOW + 5000.0
    assert v.one("dequeue", 1, NOW + 5000).runs[0].run_id == "a2"  # due: served again


@pytest.mark.parametrize("version", BOTH)
def test_each_version_names_its_own_lifecycle_scripts(version: Version) -> None:
    door = vtime_door(version, Tuning())
    head = version == "head"
    assert (door.nack, door.enqueue_ttl) == (SCRIPTS["nack"], SCRIPTS["enqueue_ttl"])
    assert door.dead_letter == (SCRIPTS["dead_letter"] if head else LIFECYCLE["dead_letter"])
    assert door.expire_ttl == (SCRIPTS["expire_ttl"] if head else LIFECYCLE["expire_ttl"])
    assert set(door.scripts) >= {door.nack, door.dead_letter, door.enqueue_ttl, door.expire_ttl}
