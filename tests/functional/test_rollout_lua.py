"""A mixed rollout on the real server (SPEC-lifecycle 7): a flag-off and a flag-on instance on
the same keys, each call through its own door (`Trip.by`, as the engine makes them). The spec's
rollout states then come from the real Lua: a key the flag-off instance enqueued is
unregistered until a flag-on pass 2 registers it, a flag-off drain strands a tag until a
flag-on pass 1 visits it, and a cold start over a flag-off backlog reaches every key within
the reference's bounds."""

from __future__ import annotations

from typing import Any

import pytest
import redis

from ckviz.disciplines.base import Tuning
from ckviz.disciplines.vtime.door import vtime_door
from ckviz.disciplines.vtime.knobs import VtimeKnobs
from ckviz.disciplines.vtime.values import VtimeDequeue, VtimeState
from ckviz.model.queue import DequeuedRun, PlannedRun
from ckviz.store.keys import ck_member
from ckviz.store.runqueue import RunQueue

NOW = 2_000_000_000_000
DEFAULTS = VtimeKnobs()


class Rollout:
    """One namespace, an instance with the flag on (vtime HEAD) and one with it off."""

    def __init__(
        self,
        client: redis.Redis,
        prefix: str,
        env_limit: int = 1000,
        knobs: VtimeKnobs = DEFAULTS,
    ) -> None:
        self.client = client
        self.on = RunQueue(client, prefix, env_limit, door=vtime_door("head", Tuning(knobs, True)))
        self.off = RunQueue(client, prefix, env_limit)  # the baseline's scripts
        self.on.open()
        self.off.connect()
        self.sent: dict[str, int] = {}

    def close(self) -> None:
        self.on.close()
        self.off.close()

    def _trip(self, by: RunQueue, add: Any) -> Any:
        trip = self.on.trip()  # made on the flag-on queue; the call goes through `by`'s door
        slot = add(trip.by(by))
        return trip.send()[slot]

    def enqueue(self, by: RunQueue, key: str, ts: int) -> None:
        i = self.sent.get(key, 0)
        self.sent[key] = i + 1
        self._trip(by, lambda t: t.enqueue(PlannedRun(key, f"{key}-{i}", 0, 1), ts))

    def dequeue_on(self, max_count: int) -> VtimeDequeue:
        reply: VtimeDequeue = self._trip(self.on, lambda t: t.dequeue(max_count, NOW))
        return reply

    def dequeue_off(self, max_count: int) -> list[DequeuedRun]:
        runs: list[DequeuedRun] = self._trip(self.off, lambda t: t.dequeue(max_count, NOW))
        return runs

    def state(self) -> VtimeState:
        trip = self.on.trip()
        slot = trip.read_state(1_000_000)
        state: VtimeState = trip.send()[slot]
        return state

    def indexed(self) -> set[str]:
        return set(self.client.zrange(self.on.keys.ck_index, 0, -1))


@pytest.fixture
def rollout(client: redis.Redis, prefix: str) -> Any:
    r = Rollout(client, prefix)
    yield r
    r.close()


def test_a_key_the_flag_off_instance_enqueued_is_registered_by_a_flag_on_pass_2(
    rollout: Rollout,
) -> None:
    on, off = rollout.on, rollout.off
    rollout.enqueue(on, "a", 1000)
    rollout.enqueue(on, "a", 1001)
    rollout.enqueue(off, "old", 10)  # the oldest head, but unregistered
    rollout.enqueue(off, "old", 11)
    rollout.enqueue(off, "young", 2000)
    state = rollout.state()
    assert set(state.tags) == {"a"}  # the flag-off enqueue registers nothing
    assert {ck_member(k) for k in ("a", "old", "young")} == rollout.indexed()
    call = rollout.dequeue_on(2)
    # pass 1 sees only a; pass 2 serves the oldest unregistered head at the floor + quantum
    # (the batch then full) and discovers the other at the floor
    assert [r.key for r in call.runs] == ["a", "old"]
    fates = {(v.passno, v.key, v.fate) for v in call.visits}
    assert {(1, "a", "served"), (2, "old", "served"), (2, "young", "discovered")} <= fates
    floor = state.floor or 0.0
    tags = rollout.state().tags
    assert tags["old"] == floor + 1 and tags["young"] == floor


def test_a_flag_off_drain_strands_the_tag_until_a_flag_on_pass_1_visits_it(
    rollout: Rollout,
) -> None:
    on = rollout.on
    for i in range(3):
        rollout.enqueue(on, "hot", 10 + i)
    rollout.dequeue_on(10)
    rollout.dequeue_on(10)  # hot: tag 2, one run left
    assert [r.key for r in rollout.dequeue_off(1)] == ["hot"]  # the flag-off drains it
    state = rollout.state()
    assert state.tags == {"hot": 2.0} and ck_member("hot") not in rollout.indexed()  # stranded
    rollout.enqueue(on, "new", 5000)
    rollout.enqueue(on, "new", 5001)
    assert (rollout.state().floor or 0.0) < 2.0
    assert rollout.state().tags["new"] == 3.0  # stacked behind the stranded tag
    call = rollout.dequeue_on(10)
    # the lowest tag is the call's floor (read-repair): removed without parking, one visit
    assert (1, "hot", "removed") in {(v.passno, v.key, v.drain) for v in call.visits}
    assert [r.key for r in call.runs] == ["new"]
    after = rollout.state()
    assert "hot" not in after.tags and "hot" not in after.idle


def test_a_flag_off_enqueue_into_a_parked_key_loses_its_credit_a_flag_on_one_keeps_it(
    client: redis.Redis, prefix: str
) -> None:
    served_at = {}
    for flag_on in (True, False):
        r = Rollout(client, f"{prefix}{int(flag_on)}:")
        for i in range(4):
            r.enqueue(r.on, "busy", 10 + i)
        for _ in range(3):
            r.dequeue_on(10)  # busy at 3, the floor at 2
        r.enqueue(r.on, "back", 200)  # stacked behind busy, served, drained and parked
        r.dequeue_on(10)
        before = r.state()
        parked, floor = before.idle["back"], before.floor or 0.0
        assert parked > floor
        r.enqueue(r.on if flag_on else r.off, "back", 300)
        tags = r.state().tags
        assert tags.get("back") == (parked if flag_on else None)  # restored, or unregistered
        call = r.dequeue_on(10)
        visit = next(v for v in call.visits if v.key == "back")
        assert visit.fate == "served"
        served_at[flag_on] = (visit.passno, visit.tag)
        r.close()
    # flag on: pass 1 serves it from its parked tag; flag off: pass 2 serves it from the
    # floor, as if it had never been served
    assert served_at[True] == (1, parked + 1)
    assert served_at[False] == (2, floor + 1)


@pytest.mark.parametrize(
    ("variants", "batch", "multiplier", "bound"), [(8, 5, 3, 1), (12, 4, 3, 2), (15, 5, 1, 2)]
)
def test_a_cold_start_over_a_flag_off_backlog_reaches_every_key_within_the_bounds(
    client: redis.Redis, prefix: str, variants: int, batch: int, multiplier: int, bound: int
) -> None:
    r = Rollout(client, prefix, knobs=VtimeKnobs(window=multiplier))
    keys = [f"k{i:02d}" for i in range(variants)]
    for i, key in enumerate(keys):
        for run in range(3):
            r.enqueue(r.off, key, 1000 + 10 * i + run)
    first: dict[str, int] = {}
    for call in range(bound + 2):
        for run in r.dequeue_on(batch).runs:
            first.setdefault(run.key, call)
    r.close()
    assert set(first) == set(keys)
    assert max(first.values()) <= bound  # the coldest key's first serve
