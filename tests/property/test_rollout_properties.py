"""The run-location invariant under a mixed rollout, on the real Redis: random sequences of
enqueue (with or without a TTL) / dequeue / ack / nack / dead-letter / TTL sweep by three
consumers of mixed disciplines (baseline, vtime, vtime-v17) on one queue, each call through its
caller's door as the engine makes it (`Trip.by`). After every call each run is in exactly one
place, the one the calls put it in: queued (its CK queue and the env queue), held (its key's
and the env's in-flight sets), dead-lettered (the env's deadLetter zset), expired (waiting in
the TTL queue for the sweep, or handed to the TTL consumer's jobs by it) or done (nowhere, its
message deleted). ckIndex lists exactly the non-empty CK queues at their heads, and a vtime
floor never goes down, whoever wrote last."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import redis
from hypothesis import given, settings
from hypothesis import strategies as st

from ckviz.disciplines.registry import make_discipline
from ckviz.disciplines.vtime.door import state_keys
from ckviz.model.queue import DequeuedRun, PlannedRun
from ckviz.sim.cell.session import new_namespace
from ckviz.store.keys import ck_member
from ckviz.store.lifecycle import ttl_member
from ckviz.store.lifecycle.client import nack_payload
from ckviz.store.messages import message_payload
from ckviz.store.prefix import delete_prefix
from ckviz.store.runqueue import RunQueue, share_scripts
from tests.property.test_driver_properties import SETTINGS

KEYS = ("a", "b", "c")
NOW = 2_000_000_000_000
EXPIRED, LASTING = NOW - 1, NOW + 10**9  # a TTL already passed, or one that never passes
CALLS = ["enqueue", "enqueue", "enqueue_ttl", "dequeue", "dequeue", "ack", "nack", "dead", "sweep"]

Op = tuple[str, int, int]  # (what, which consumer, which key or held run)
ops = st.lists(
    st.tuples(st.sampled_from(CALLS), st.integers(0, 2), st.integers(0, 9)), min_size=8, max_size=30
)
lineups = st.lists(st.sampled_from(["baseline", "vtime", "vtime-v17"]), min_size=3, max_size=3)


@dataclass
class Books:
    """Where each run should be, by the calls made: its place and its key."""

    place: dict[str, str] = field(default_factory=dict)  # run id -> queued, held, dead, ...
    key: dict[str, str] = field(default_factory=dict)
    holder: dict[str, int] = field(default_factory=dict)  # held run -> the consumer that took it
    expires: set[str] = field(default_factory=set)  # queued runs whose TTL has passed
    sent: int = 0

    def held(self) -> list[str]:
        return sorted(r for r, p in self.place.items() if p == "held")


def _taken(queue: RunQueue, reply: Any) -> list[DequeuedRun]:
    return list(reply.runs) if queue.door.dequeue_reply is not None else list(reply)


def _places(client: redis.Redis, home: RunQueue, books: Books) -> dict[str, str | None]:
    """Each run's place as Redis holds it (None: in none, or in more than one)."""
    k, life = home.keys, home.lifecycle
    pipe = client.pipeline(transaction=False)
    runs = list(books.place)
    for run_id in runs:
        key = books.key[run_id]
        pipe.zscore(k.ck_queue(key), run_id)
        pipe.zscore(k.env_queue, run_id)
        pipe.sismember(k.ck_held(key), run_id)
        pipe.sismember(k.env_held, run_id)
        pipe.zscore(life.dead_letter, run_id)
        pipe.zscore(life.ttl_queue, ttl_member(key, run_id))
        pipe.zscore(life.ttl_jobs, run_id)
        pipe.exists(k.message(run_id))
    replies = pipe.execute()
    places: dict[str, str | None] = {}
    for i, run_id in enumerate(runs):
        queue, env, key_held, env_held, dead, ttl, worker, message = replies[8 * i : 8 * i + 8]
        queued = queue is not None and env is not None
        found = {
            "queued": queued,
            "held": bool(key_held and env_held),
            "dead": dead is not None,
            # a dequeue that met it past its TTL left it to the sweep, which hands it on
            "expired": not queued and ((ttl is not None and message) or (worker and not message)),
        }
        stray = (queue is None) != (env is None) or bool(key_held) != bool(env_held)
        inside = [name for name, there in found.items() if there]
        nowhere = not (queue or env or key_held or env_held or dead or ttl or worker or message)
        if stray or len(inside) > 1:
            places[run_id] = None
        else:
            places[run_id] = inside[0] if inside else ("done" if nowhere else None)
    return places


def _check(client: redis.Redis, home: RunQueue, books: Books, dequeued: bool) -> None:
    places = _places(client, home, books)
    for run_id, place in places.items():
        expected = books.place[run_id]
        if dequeued and expected == "queued" and run_id in books.expires and place == "expired":
            books.place[run_id] = expected = "expired"  # a dequeue met it past its TTL
        assert place == expected, (run_id, place, expected)
    k = home.keys
    pipe = client.pipeline(transaction=False)
    pipe.zrange(k.ck_index, 0, -1, withscores=True)
    for key in KEYS:
        pipe.zrange(k.ck_queue(key), 0, 0, withscores=True)
    index, *heads = pipe.execute()
    assert dict(index) == {ck_member(key): h[0][1] for key, h in zip(KEYS, heads, strict=True) if h}


def _call(queues: list[RunQueue], home: RunQueue, books: Books, op: Op, max_count: int) -> str:
    """Make the call `op` says; what it was (a finish with nothing held is a dequeue)."""
    what, who, which = op
    if what in ("ack", "nack", "dead") and not books.held():
        what = "dequeue"  # a worker with nothing to finish asks for a run
    trip, caller = home.trip(), queues[who]
    if what in ("enqueue", "enqueue_ttl"):
        key = KEYS[which % len(KEYS)]
        run = PlannedRun(key, f"{key}-{books.sent}", 0, 0)
        ttl = (EXPIRED if which % 2 else LASTING) if what == "enqueue_ttl" else None
        trip.by(caller).enqueue(run, 1000 + books.sent, ttl_expires_at=ttl)
        trip.send()
        books.sent += 1
        books.place[run.run_id], books.key[run.run_id] = "queued", key
        if ttl == EXPIRED:
            books.expires.add(run.run_id)
    elif what == "dequeue":
        slot = trip.by(caller).dequeue(max_count, NOW)
        for taken in _taken(caller, trip.send()[slot]):
            assert books.place[taken.run_id] == "queued"  # only a queued run can be taken
            assert taken.run_id not in books.expires  # nor one whose TTL has passed
            books.place[taken.run_id], books.holder[taken.run_id] = "held", who
    elif what == "sweep":
        slot = trip.by(caller).expire_ttl(NOW)
        for run_id in trip.send()[slot]:
            assert run_id in books.expires  # only a run past its TTL expires, and only once
            assert books.place[run_id] in ("queued", "expired")
            books.place[run_id] = "expired"
            books.expires.discard(run_id)
    else:  # ack, nack or dead-letter: by the consumer that took the run
        run_id = books.held()[which % len(books.held())]
        key, by = books.key[run_id], trip.by(queues[books.holder.pop(run_id)])
        if what == "ack":
            by.ack(run_id, key)
            books.place[run_id] = "done"
        elif what == "nack":  # back in its queue, ready again at once
            payload = nack_payload(message_payload(PlannedRun(key, run_id, 0, 0), 1000), 1)
            by.nack(key, run_id, payload, 1000 + books.sent)
            books.place[run_id] = "queued"
        else:
            by.dead_letter(key, run_id)
            books.place[run_id] = "dead"
        trip.send()
    return what


@settings(SETTINGS, max_examples=60)
@given(lineup=lineups, calls=ops, env_limit=st.integers(1, 4), max_count=st.integers(1, 3))
def test_every_run_is_in_exactly_one_place_under_a_mixed_rollout(
    client: redis.Redis, lineup: list[str], calls: list[Op], env_limit: int, max_count: int
) -> None:
    prefix = new_namespace("ckviz-test")
    queues = [RunQueue(client, prefix, env_limit, door=make_discipline(n).door) for n in lineup]
    home = next((q for q in queues if q.door.reads is not None), queues[0])
    share_scripts(queues)  # as the engine opens a mixed namespace
    home.open()
    for q in queues:
        if q is not home:
            q.connect()
    floor_key = state_keys(home.keys).floor
    books, floor = Books(), 0.0
    try:
        for op in calls:
            made = _call(queues, home, books, op, max_count)
            _check(client, home, books, dequeued=made == "dequeue")
            now = float(client.get(floor_key) or 0.0)
            assert now >= floor  # floor monotone across both kinds of writers
            floor = now
    finally:
        delete_prefix(client, prefix)
        for q in queues:
            q.close()
