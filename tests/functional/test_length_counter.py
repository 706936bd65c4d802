"""The base queue's bookkeeping on a real Redis (issue 35, "the queue, exactly"): the
`lengthCounter` every script keeps as the reference's tracked scripts do, and the env's limit
and burst factor read from their keys.

The random sequences check the counter against a model written from the specs' rules alone
(SPEC-vtime 2, SPEC-lifecycle 2.3, 3, 4 and 6, and the reference's tracked dequeues, which
count every serve out), not from the Lua: a run new to its CK queue counts one in (a missing
counter is first set to the runs queued, with a TTL), every run that leaves the queues
through a dequeue (served or expired), a dead-letter or the TTL sweep counts one out, never
below 0 and never creating a missing counter; the fast path counts nothing.
"""

from __future__ import annotations

import random

import pytest
import redis

from ckviz.disciplines.base import Tuning
from ckviz.disciplines.vtime.door import vtime_door
from ckviz.disciplines.vtime.knobs import VtimeKnobs
from ckviz.model.queue import PlannedRun
from ckviz.store.lifecycle import COUNTER_TTL_S
from ckviz.store.scripts import LUA_ORDER, Door
from tests.functional.lifecycle_support import NOW, Lanes
from tests.functional.servers import redis_server  # noqa: F401  (6.2 and 7)

DOORS = {
    "baseline": LUA_ORDER,
    "vtime": vtime_door("head", Tuning(VtimeKnobs())),
    "vtime-v17": vtime_door("v17", Tuning(VtimeKnobs())),
}


@pytest.fixture(params=list(DOORS))
def door(request: pytest.FixtureRequest) -> Door:
    return DOORS[request.param]


def plain_enqueue(lanes: Lanes, key: str, run_id: str, ts: int) -> None:
    """The enqueue every scenario without a TTL or a fast-path offer takes (`enqueue.lua`)."""
    trip = lanes.q.trip()
    trip.enqueue(PlannedRun(key, run_id, 0, 1), ts)
    trip.send()


def test_a_serve_counts_its_run_out(client: redis.Redis, prefix: str, door: Door) -> None:
    lanes = Lanes(client, prefix, env_limit=10, door=door)
    for i, key in enumerate(("a", "a", "b")):
        plain_enqueue(lanes, key, f"{key}{i}", 1000 + i)
    assert lanes.counter("lengthCounter") == 3
    assert 0 < client.ttl(lanes.keys.length_counter) <= COUNTER_TTL_S
    assert len(lanes.dequeue(max_count=2)) == 2
    assert lanes.counter("lengthCounter") == 1
    assert len(lanes.dequeue(max_count=2)) == 1
    assert lanes.counter("lengthCounter") == 0
    assert lanes.dequeue(max_count=2) == []
    assert lanes.counter("lengthCounter") == 0  # never below 0


def test_an_ack_of_a_served_run_leaves_the_counter(
    client: redis.Redis, prefix: str, door: Door
) -> None:
    lanes = Lanes(client, prefix, env_limit=10, door=door)
    plain_enqueue(lanes, "a", "a1", 1000)
    plain_enqueue(lanes, "a", "a2", 1001)
    assert lanes.dequeue() == ["a1"]
    lanes.one("ack", "a1", "a")
    assert lanes.counter("lengthCounter") == 1


# the env's limit and burst factor, read from their keys (SPEC-vtime 3, SPEC-live 1)


def test_the_dequeue_reads_the_burst_factor_from_its_key(
    client: redis.Redis, prefix: str, door: Door
) -> None:
    lanes = Lanes(client, prefix, env_limit=2, door=door)
    for key in "abcd":
        plain_enqueue(lanes, key, f"{key}1", 1000)
    assert client.get(lanes.q.keys.env_key("concurrencyBurstFactor")) == "1.0"  # as written
    client.set(lanes.q.keys.env_key("concurrencyBurstFactor"), "1.5")
    assert len(lanes.dequeue(max_count=10)) == 3  # floor(2 x 1.5)
    client.delete(lanes.q.keys.env_key("concurrencyBurstFactor"))  # absent: the default, 1
    assert lanes.dequeue(max_count=10) == []


def test_the_fast_path_reads_the_env_limit_and_burst_from_their_keys(
    client: redis.Redis, prefix: str, door: Door
) -> None:
    lanes = Lanes(client, prefix, env_limit=1, door=door)
    assert lanes.enqueue("a", "a1", 1000, fast_path=True)
    assert not lanes.enqueue("b", "b1", 1000, fast_path=True)  # the env is full
    client.set(lanes.q.keys.env_key("concurrencyBurstFactor"), "2")
    assert lanes.enqueue("c", "c1", 1000, fast_path=True)  # floor(1 x 2) = 2 slots
    client.set(lanes.q.keys.env_limit, "3")
    assert lanes.enqueue("d", "d1", 1000, fast_path=True)  # floor(3 x 2) = 6 slots


# random sequences against the spec's rules


class CounterModel:
    """lengthCounter as the specs' rules make it (None: the key does not exist)."""

    def __init__(self) -> None:
        self.value: int | None = None

    def counted_in(self, queued_before: int, joined: int) -> None:
        if self.value is None:
            self.value = queued_before  # the lazy init, before the run's ZADD
        self.value += joined

    def counted_out(self, left: int) -> None:
        if self.value is not None:
            self.value = max(0, self.value - left)  # a floored DECR per run


OPERATIONS = (
    *("plain", "plain", "ttl", "fast", "delayed", "dequeue", "dequeue"),
    *("ack", "nack", "dead_letter", "expire", "lapse"),
)


class Sequence:
    """One random sequence of operations on one queue; the runs queued and held as the
    queue's own zsets show them (the model reads where runs are, never the counter)."""

    def __init__(self, lanes: Lanes, rng: random.Random) -> None:
        self.lanes, self.rng = lanes, rng
        self.model = CounterModel()
        self.now = NOW
        self.held: dict[str, str] = {}  # run id -> key
        self.n = 0

    def queued(self) -> set[str]:
        return set(self.lanes.client.zrange(self.lanes.q.keys.env_queue, 0, -1))

    def step(self) -> str:
        op = self.rng.choice(OPERATIONS)
        before = self.queued()
        getattr(self, op)()
        after = self.queued()
        if after - before:  # a slow-path enqueue or a nack (the fast path queues nothing)
            self.model.counted_in(len(before), len(after - before))
        self.model.counted_out(len(before - after))
        self.now += self.rng.choice([0, 1, 5, 50])
        return op

    def _new(self) -> tuple[str, str]:
        self.n += 1
        key = self.rng.choice("abcd")
        return key, f"{key}{self.n}"

    def plain(self) -> None:
        key, run_id = self._new()
        plain_enqueue(self.lanes, key, run_id, self.now - self.rng.randrange(0, 100))

    def ttl(self) -> None:
        key, run_id = self._new()
        expires = self.now + self.rng.choice([-5, 0, 3, 40, 1000])
        self.lanes.enqueue(key, run_id, self.now - 1, ttl_expires_at=expires)

    def fast(self) -> None:
        key, run_id = self._new()
        if self.lanes.enqueue(key, run_id, self.now - 1, fast_path=True, now=self.now):
            self.held[run_id] = key

    def delayed(self) -> None:
        key, run_id = self._new()
        self.lanes.enqueue(key, run_id, self.now + self.rng.choice([10, 200]))

    def dequeue(self) -> None:
        taken = self.lanes.dequeue(max_count=self.rng.choice([1, 2, 5]), now=self.now)
        for run_id in taken:
            self.held[run_id] = run_id.rstrip("0123456789")

    def _held(self) -> tuple[str, str] | None:
        if not self.held:
            return None
        run_id = self.rng.choice(sorted(self.held))
        return self.held.pop(run_id), run_id

    def ack(self) -> None:
        if (held := self._held()) is not None:
            self.lanes.one("ack", held[1], held[0])

    def nack(self) -> None:
        if (held := self._held()) is not None:
            self.lanes.nack(*held, self.now + self.rng.choice([0, 20]))

    def dead_letter(self) -> None:
        if (held := self._held()) is not None:
            self.lanes.dead_letter(*held)

    def expire(self) -> None:
        self.lanes.expire(self.now, batch=self.rng.choice([1, 3, 100]))

    def lapse(self) -> None:
        """The counter's TTL ran out (a day without a write): the key is gone."""
        self.lanes.client.delete(self.lanes.keys.length_counter)
        self.model.value = None


@pytest.mark.parametrize("seed", range(6))
def test_random_sequences_keep_the_counter_the_reference_keeps(
    client: redis.Redis, prefix: str, door: Door, seed: int
) -> None:
    lanes = Lanes(client, f"{prefix}{seed}:", env_limit=3, door=door)
    seq = Sequence(lanes, random.Random(seed))
    for i in range(120):
        op = seq.step()
        got = lanes.counter("lengthCounter")
        assert got == seq.model.value, (
            f"after op {i} ({op}): Redis {got}, the rules {seq.model.value}"
        )
