"""vtime's state.lua: all of ckVtime while it is short, the idle set whole only while it is short
too; past that, the parked tags of the keys reported (what the idle-below-tag check needs)."""

from __future__ import annotations

import pytest
import redis

from ckviz.disciplines.registry import make_discipline
from ckviz.disciplines.vtime.door import state_keys
from ckviz.disciplines.vtime.values import VtimeState
from ckviz.store import pages
from ckviz.store.keys import ck_member
from ckviz.store.runqueue import RunQueue

LIMIT = 3


def state_read(
    client: redis.Redis,
    prefix: str,
    tags: dict[str, float],
    idle: dict[str, float],
    asked: tuple[str, ...] = (),
) -> VtimeState:
    queue = RunQueue(client, prefix, 4, door=make_discipline("vtime").door)
    queue.open()
    try:
        keys = queue.keys
        client.set(state_keys(keys).floor, "5")
        if tags:
            client.zadd(state_keys(keys).tags, {ck_member(k): t for k, t in tags.items()})
        if idle:
            client.zadd(state_keys(keys).idle, {ck_member(k): t for k, t in idle.items()})
        trip = queue.trip()
        slot = trip.read_state(LIMIT, asked)
        state: VtimeState = trip.send()[slot]
        return state
    finally:
        queue.close()


def test_short_sets_are_listed_whole(client: redis.Redis, prefix: str) -> None:
    state = state_read(client, prefix, {"a": 7, "b": 8}, {"a": 6, "c": 2, "d": 3})
    assert state.listed and state.floor == 5
    assert state.tags == {"a": 7, "b": 8}
    assert state.idle == {"c": 2, "d": 3, "a": 6}


def test_a_long_idle_set_gives_the_parked_tags_of_the_listed_and_asked_keys(
    client: redis.Redis, prefix: str
) -> None:
    idle = {f"gone-{i}": float(i) for i in range(20)} | {"a": 6, "x": 1}
    state = state_read(client, prefix, {"a": 7, "b": 8}, idle, asked=("x", "b", "x", "nobody"))
    assert state.listed and state.tags == {"a": 7, "b": 8}
    assert state.idle == {"a": 6, "x": 1}


def test_a_long_ckvtime_gives_only_the_asked_keys(client: redis.Redis, prefix: str) -> None:
    tags = {f"k{i}": float(10 + i) for i in range(10)}
    state = state_read(client, prefix, tags, {"k1": 3, "q": 1}, asked=("k1", "k2", "q", "k1"))
    assert not state.listed
    assert state.tags == {"k1": 11, "k2": 12}
    assert state.idle == {"k1": 3, "q": 1}


@pytest.mark.parametrize("listed", [True, False])
def test_a_state_read_in_pages_is_the_state_read_in_one_call(
    client: redis.Redis, prefix: str, monkeypatch: pytest.MonkeyPatch, listed: bool
) -> None:
    tags = {"a": 7.0, "b": 8.0} if listed else {f"k{i}": float(10 + i) for i in range(10)}
    idle = {f"gone-{i}": float(i) for i in range(20)} | {"a": 6.0, "k1": 3.0, "x": 1.0}
    asked = ("x", "b", "k1", "k2", "a", "nobody", "k9")
    one_call = state_read(client, f"{prefix}1:", tags, idle, asked)
    monkeypatch.setattr(pages, "READ_PAGE", 2)
    paged = state_read(client, f"{prefix}2:", tags, idle, asked)
    assert paged == one_call and paged.listed == listed
    assert paged.idle and paged.tags
