"""The virtual-time Lua (SPEC-vtime 5) against a real Redis, both versions: registration,
two-pass dequeue, floor, idle set, ack."""

from __future__ import annotations

import pytest
import redis

from ckviz.disciplines.base import Tuning
from ckviz.disciplines.vtime.door import state_keys, vtime_door
from ckviz.disciplines.vtime.knobs import Version, VtimeKnobs
from ckviz.disciplines.vtime.values import VtimeDequeue, VtimeState
from ckviz.model.queue import PlannedRun
from ckviz.store.keys import ck_member
from ckviz.store.runqueue import RunQueue
from tests.functional.servers import redis_server  # noqa: F401  (6.2 and 7)

NOW = 2_000_000_000_000
BOTH: tuple[Version, ...] = ("head", "v17")
DEFAULTS = VtimeKnobs()


class VQ:
    """A run queue opened with one vtime version's door, one call per trip."""

    def __init__(
        self,
        client: redis.Redis,
        prefix: str,
        version: Version,
        env_limit: int = 100,
        per_key: int | None = None,
        knobs: VtimeKnobs = DEFAULTS,
    ) -> None:
        door = vtime_door(version, Tuning(knobs, trace=True))
        self.q = RunQueue(client, prefix, env_limit, per_key_limit=per_key, door=door)
        self.q.open()
        self.version = version
        self.knobs = knobs
        self.client = client
        self.counts: dict[str, int] = {}

    def enqueue(self, key: str, ts: int = 1000) -> str:
        i = self.counts.get(key, 0)
        self.counts[key] = i + 1
        run = PlannedRun(key, f"{key}-{i}", 0, 1)
        trip = self.q.trip()
        trip.enqueue(run, ts)
        trip.send()
        return run.run_id

    def enqueue_unregistered(self, key: str, ts: int) -> None:
        """A CK queue with no tag: queued by the baseline's enqueue (no registration)."""
        plain = RunQueue(self.client, self.q.keys.prefix, self.q.env_limit)
        plain.connect()
        trip = plain.trip()
        trip.enqueue(PlannedRun(key, f"{key}-0", 0, 1), ts)
        trip.send()
        plain.close()

    def dequeue(self, max_count: int = 10) -> VtimeDequeue:
        trip = self.q.trip()
        slot = trip.dequeue(max_count, NOW)
        reply: VtimeDequeue = trip.send()[slot]
        return reply

    def served(self, max_count: int = 10) -> list[str]:
        return [r.key for r in self.dequeue(max_count).runs]

    def ack(self, run_id: str) -> None:
        trip = self.q.trip()
        trip.ack(run_id, run_id.rsplit("-", 1)[0])
        trip.send()

    def state(self) -> VtimeState:
        trip = self.q.trip()
        slot = trip.read_state(1_000_000)
        state: VtimeState = trip.send()[slot]
        return state


@pytest.mark.parametrize("version", BOTH)
def test_equal_tags_break_by_name_and_every_key_registers_at_the_floor(
    client: redis.Redis, prefix: str, version: Version
) -> None:
    vq = VQ(client, prefix, version)
    for key in ("c", "a", "b"):
        vq.enqueue(key, 1000)
        vq.enqueue(key, 1000)
    assert vq.state().tags == {"a": 0.0, "b": 0.0, "c": 0.0}
    assert vq.served(max_count=2) == ["a", "b"]
    assert vq.state().tags == {"c": 0.0, "a": 1.0, "b": 1.0}
    assert vq.served(max_count=1) == ["c"]  # the lowest tag, whatever the ages
    assert vq.served(max_count=10) == ["a", "b", "c"]  # one run per key per call


@pytest.mark.parametrize("version", BOTH)
def test_the_oldest_head_does_not_win_against_a_lower_tag(
    client: redis.Redis, prefix: str, version: Version
) -> None:
    vq = VQ(client, prefix, version, env_limit=1)
    for _ in range(3):
        vq.enqueue("zold", 10)
    vq.enqueue("new", 5000)
    assert vq.served(1) == ["new"]  # both at 0: name order, not age order
    vq.q.client.delete(vq.q.keys.env_held)  # free the slot without an ack
    assert vq.served(1) == ["zold"]


@pytest.mark.parametrize("version", BOTH)
def test_floor_is_repaired_to_the_lowest_tag_and_never_decreases(
    client: redis.Redis, prefix: str, version: Version
) -> None:
    vq = VQ(client, prefix, version)
    for _ in range(4):
        vq.enqueue("a")
        vq.enqueue("b")
    floors = []
    for _ in range(3):
        floors.append(vq.dequeue(10).floor)
        floors.append(vq.state().floor)
    # call 1 starts with both at 0; call 2 with both at 1, repaired from the lowest tag
    assert floors == [0.0, 0.0, 1.0, 1.0, 2.0, 2.0]
    vq.enqueue("late")  # V17: at the floor (2), not 0; HEAD: stacked on the highest tag (3)
    assert vq.state().tags["late"] == (2.0 if version == "v17" else 4.0)


@pytest.mark.parametrize("version", BOTH)
def test_registration_is_nx_and_never_rewinds_a_tag(
    client: redis.Redis, prefix: str, version: Version
) -> None:
    vq = VQ(client, prefix, version)
    for _ in range(3):
        vq.enqueue("a")
        vq.enqueue("b")
    vq.served(10)
    vq.served(10)
    assert vq.state().tags == {"a": 2.0, "b": 2.0}
    vq.enqueue("a")
    assert vq.state().tags["a"] == 2.0


def test_head_stacks_a_new_key_one_quantum_above_the_highest_tag(
    client: redis.Redis, prefix: str
) -> None:
    vq = VQ(client, prefix, "head", knobs=VtimeKnobs(quantum=2))
    for _ in range(4):
        vq.enqueue("a")
    vq.enqueue("b")
    vq.enqueue("b")
    for _ in range(3):
        vq.served(1)  # a 0->2, b 0->2, a 2->4 (floor 2)
    assert vq.state().tags == {"b": 2.0, "a": 4.0}
    vq.enqueue("new")
    assert vq.state().tags["new"] == 6.0  # highest live tag + quantum
    v17 = VQ(client, prefix + "v17:", "v17", knobs=VtimeKnobs(quantum=2))
    for _ in range(4):
        v17.enqueue("a")
    v17.enqueue("b")
    v17.enqueue("b")
    for _ in range(3):
        v17.served(1)
    v17.enqueue("new")
    assert v17.state().tags["new"] == 2.0  # V17: at the floor


@pytest.mark.parametrize(("multiplier", "expected"), [(0.0, 10.0), (64.0, 74.0), (2.0**32, 1001.0)])
def test_head_arrival_cap_bounds_the_stacking(
    client: redis.Redis, prefix: str, multiplier: float, expected: float
) -> None:
    vq = VQ(client, prefix, "head", knobs=VtimeKnobs(arrival_cap=multiplier))
    vq.enqueue("hog")
    # arranged state (a test may write it; ckviz never does): hog far above the floor
    client.zadd(state_keys(vq.q.keys).tags, {ck_member("hog"): 1000})
    client.set(state_keys(vq.q.keys).floor, "10")
    vq.enqueue("new")  # min(highest + quantum, floor + cap)
    assert vq.state().tags["new"] == expected


def test_head_a_returning_key_takes_its_parked_tag_not_the_stacked_one(
    client: redis.Redis, prefix: str
) -> None:
    vq = VQ(client, prefix, "head")
    vq.enqueue("hog")
    client.zadd(state_keys(vq.q.keys).tags, {ck_member("hog"): 1000})
    client.zadd(state_keys(vq.q.keys).idle, {ck_member("back"): 7, ck_member("low"): 3})
    client.set(state_keys(vq.q.keys).floor, "5")
    vq.enqueue("back")
    vq.enqueue("low")
    tags = vq.state().tags
    assert tags["back"] == 7.0  # parked above the floor
    assert tags["low"] == 5.0  # parked below the floor: at the floor, no stacking


def test_head_parks_a_drained_key_above_the_floor_and_reregisters_it_there(
    client: redis.Redis, prefix: str
) -> None:
    vq = VQ(client, prefix, "head")
    for _ in range(5):
        vq.enqueue("big")
    vq.enqueue("quick")
    first = vq.dequeue(10)
    assert {(v.key, v.fate, v.drain) for v in first.visits} == {
        ("big", "served", ""),
        ("quick", "served", "parked"),
    }
    state = vq.state()
    assert state.idle == {"quick": 1.0}
    assert "quick" not in state.tags
    vq.served(10)  # big alone, from tag 1: the floor rises to 1 and reaps the idle entry
    state = vq.state()
    assert (state.floor, state.idle) == (1.0, {})


def test_head_idle_set_is_capped_by_rank(client: redis.Redis, prefix: str) -> None:
    vq = VQ(client, prefix, "head", knobs=VtimeKnobs(idle_max_entries=2))
    for _ in range(10):
        vq.enqueue("stay")
    for key in ("d1", "d2", "d3"):
        vq.enqueue(key)
        vq.enqueue(key)
    vq.served(10)
    vq.served(10)  # each d drains at tag 2 > floor 1 and parks; then only the 2 highest stay
    assert vq.state().idle == {"d2": 2.0, "d3": 2.0}


def test_v17_forgets_the_tag_of_a_key_the_dequeue_drains(client: redis.Redis, prefix: str) -> None:
    vq = VQ(client, prefix, "v17")
    for _ in range(5):
        vq.enqueue("big")
    vq.enqueue("quick")
    call = vq.dequeue(10)
    assert ("quick", "removed") in {(v.key, v.drain) for v in call.visits}
    assert "quick" not in vq.state().tags
    vq.enqueue("quick")
    assert vq.state().tags["quick"] == 0.0  # back at the floor (0), ahead of big at 1
    assert vq.served(1) == ["quick"]


@pytest.mark.parametrize("version", BOTH)
def test_ack_of_a_queued_run_v17_leaves_a_tombstone_head_parks(
    client: redis.Redis, prefix: str, version: Version
) -> None:
    vq = VQ(client, prefix, version)
    for _ in range(3):
        vq.enqueue("big")
    vq.enqueue("gone")
    vq.ack("gone-0")  # acked while still queued: its CK queue is now empty
    state = vq.state()
    if version == "v17":  # ack.lua never touches a vtime key
        assert ("gone" in state.tags, state.idle) == (True, {})
        call = vq.dequeue(10)  # the next dequeue visits the tombstone and GCs it
        assert ("gone", "empty", "removed") in {(v.key, v.fate, v.drain) for v in call.visits}
        assert "gone" not in vq.state().tags
    else:  # parked unconditionally, even at the floor (0)
        assert ("gone" in state.tags, state.idle) == (False, {"gone": 0.0})
        vq.served(10)  # a serving call reaps it (<= floor)
        assert vq.state().idle == {}


@pytest.mark.parametrize("version", BOTH)
def test_a_gated_key_is_left_untouched(client: redis.Redis, prefix: str, version: Version) -> None:
    vq = VQ(client, prefix, version, env_limit=10, per_key=1)
    for _ in range(3):
        vq.enqueue("a")
        vq.enqueue("b")
    assert vq.served(10) == ["a", "b"]
    before = vq.state()
    call = vq.dequeue(10)
    assert call.runs == []
    assert {(v.key, v.fate) for v in call.visits if v.passno == 1} == {
        ("a", "limit"),
        ("b", "limit"),
    }
    after = vq.state()
    assert after.tags == before.tags
    assert client.zcard(vq.q.keys.ck_queue("a")) == 2


@pytest.mark.parametrize("version", BOTH)
def test_a_future_head_is_rescored_and_not_served(
    client: redis.Redis, prefix: str, version: Version
) -> None:
    vq = VQ(client, prefix, version)
    vq.enqueue("later", NOW + 5000)
    vq.enqueue("now", 1000)
    call = vq.dequeue(10)
    assert [r.key for r in call.runs] == ["now"]
    assert ("later", "not-ready") in {(v.key, v.fate) for v in call.visits}
    assert client.zscore(vq.q.keys.ck_index, ck_member("later")) == NOW + 5000


def test_head_pass2_discovers_unregistered_keys_when_the_batch_is_full(
    client: redis.Redis, prefix: str
) -> None:
    vq = VQ(client, prefix, "head")
    vq.enqueue("a")
    vq.enqueue("a")
    vq.enqueue_unregistered("stray", 10)
    assert "stray" not in vq.state().tags
    call = vq.dequeue(1)  # pass 1 fills the batch with a; pass 2 finds stray unregistered
    assert [r.key for r in call.runs] == ["a"]
    assert ("stray", "discovered") in {(v.key, v.fate) for v in call.visits if v.passno == 2}
    assert vq.state().tags["stray"] == 0.0  # at the floor


def test_v17_pass2_runs_only_for_an_underfull_batch_and_serves_registers(
    client: redis.Redis, prefix: str
) -> None:
    vq = VQ(client, prefix, "v17")
    vq.enqueue("a")
    vq.enqueue_unregistered("stray", 10)
    call = vq.dequeue(1)
    assert [v.passno for v in call.visits] == [1]
    call = vq.dequeue(1)  # pass 1 empty now: pass 2 serves stray, registering it
    assert [(v.passno, v.key, v.fate) for v in call.visits] == [(2, "stray", "served")]


def test_knobs_out_of_range_fall_back_like_the_reference(client: redis.Redis, prefix: str) -> None:
    vq = VQ(client, prefix, "head", knobs=VtimeKnobs(quantum=-3, window=0))
    vq.enqueue("a")
    vq.enqueue("a")
    vq.served(10)
    assert vq.state().tags == {"a": 1.0}  # quantum <= 0 -> 1; window multiplier min 1
