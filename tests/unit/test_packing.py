"""Commands packed ahead of their trip (store/packing.py) send the bytes hiredis would: the
dequeue's, kept by room and now, and a rescore's ZADD made from the bulk strings it has seen;
a plain run's message (store/messages.py), joined from its strings, is the JSON text the
encoder writes of it; and a run's KEYS, spelled without calls, are the key layout's."""

from __future__ import annotations

import json

import hiredis
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ckviz.model.queue import PlannedRun
from ckviz.store.keys import BASE, MASTER_MEMBER, KeyLayout, ck_member, ck_members
from ckviz.store.lifecycle import COUNTER_TTL_S
from ckviz.store.messages import RUN_KEYS_KEPT, RunCalls, message_payload, run_keys
from ckviz.store.packing import (
    PACKED_KEPT,
    SMALL_READ,
    SMALL_RESCORE,
    Bulks,
    Reads,
    Rescores,
    bulk,
    bulk_strings,
    pack,
    packed,
    packed_pairs,
)
from ckviz.store.scripts import LUA_ORDER, Door


def length_counter(k: KeyLayout) -> str:
    """The base queue's lengthCounter, spelled from SPEC-live 1 (`Q:lengthCounter`)."""
    return f"{k.prefix}{BASE}:lengthCounter"


@pytest.mark.parametrize(
    "members",
    [
        ["{org:o-ck}:proj:p-ck:env:e-ck:queue:task/base:ck:light-1", "b", "c"],
        ["caf\u00e9", "\U0001f600 key", "with space", "12345"],  # UTF-8, digits as text
        [],
    ],
)
def test_a_rescore_packs_as_hiredis_does(members: list[str]) -> None:
    bulks = Bulks()
    for now in (1_700_000_000_000, 1_700_000_000_000, 42):  # seen before, then new scores
        scores = list(range(now - len(members), now))
        command = packed_pairs(("ZADD", "p:ckIndex"), (scores, members), bulks)
        expected = (
            "ZADD",
            "p:ckIndex",
            *[x for pair in zip(scores, members, strict=True) for x in pair],
        )
        assert tuple(command) == expected
        assert pack(None, [command]) == [hiredis.pack_command(expected)]


@pytest.mark.parametrize("size", [0, 1, 2, SMALL_RESCORE, SMALL_RESCORE + 1, 300])
def test_a_queues_rescores_pack_as_hiredis_does_small_ones_kept_whole(size: int) -> None:
    rescores = Rescores("p:ckIndex")
    members = [f"k\u00e9-{i}" if i % 2 else f"\U0001f600 {i}" for i in range(size)]
    for now in (1_700_000_000_000, 7, 1_700_000_000_000):  # made, made, then seen before
        scores = list(range(now - size, now))
        pairs = [x for pair in zip(scores, members, strict=True) for x in pair]
        command = rescores.command(members, scores)
        assert command == ("ZADD", "p:ckIndex", *pairs)
        assert pack(None, [command]) == [hiredis.pack_command(command)]
    again = rescores.command(list(members), list(scores))
    assert (again is command) == (size <= SMALL_RESCORE)  # found again, not packed anew


def test_a_queue_keeps_its_first_small_rescores_only() -> None:
    rescores = Rescores("p:ckIndex")
    made = [rescores.command(["a", "b"], [now, now + 1]) for now in range(PACKED_KEPT + 1)]
    assert list(rescores) == [(("a", "b"), (now, now + 1)) for now in range(PACKED_KEPT)]
    assert rescores.command(["a", "b"], [0, 1]) is made[0]
    late = rescores.command(["a", "b"], [PACKED_KEPT, PACKED_KEPT + 1])  # not kept: made anew
    assert late is not made[-1] and late == made[-1]
    want = ("ZADD", "p:ckIndex", PACKED_KEPT, "a", PACKED_KEPT + 1, "b")
    assert pack(None, [late]) == [hiredis.pack_command(want)]


@pytest.mark.parametrize("size", [0, 3, SMALL_READ, SMALL_READ + 1])
def test_a_queues_reads_pack_as_hiredis_does_small_ones_kept_whole(size: int) -> None:
    reads = Reads()
    keys = ("p:ckIndex", "p:caf\u00e9")
    argv = (64, "p:", *[f"k\u00e9-{i}" for i in range(size - 2)])[:size]
    for sha in ("a" * 40, "b" * 40, "a" * 40):  # made, made, then seen before
        command = reads.command(sha, keys, argv)
        assert command == ("EVALSHA", sha, 2, *keys, *argv)
        assert pack(None, [command]) == [hiredis.pack_command(command)]
    again = reads.command("a" * 40, keys, tuple(argv))
    assert (again is command) == (size <= SMALL_READ)  # found again, not packed anew


def test_a_queue_keeps_its_first_reads_only() -> None:
    reads = Reads()
    for limit in range(PACKED_KEPT + 1):
        reads.command("a" * 40, ("k",), (limit, "m"))
    assert list(reads) == [("a" * 40, ("k",), (limit, "m")) for limit in range(PACKED_KEPT)]
    late = reads.command("a" * 40, ("k",), (PACKED_KEPT, "m"))  # not kept: packed by hiredis
    want = ("EVALSHA", "a" * 40, 1, "k", PACKED_KEPT, "m")
    assert late == want and pack(None, [late]) == [hiredis.pack_command(want)]


@given(args=st.lists(st.one_of(st.text(), st.integers(min_value=-(2**70), max_value=2**70))))
def test_bulk_strings_are_a_commands_arguments_as_hiredis_packs_them(args: list[str | int]) -> None:
    want = hiredis.pack_command(("SET", *args))[len(b"*%d\r\n$3\r\nSET\r\n" % (len(args) + 1)) :]
    assert bulk_strings(tuple(args)) == want
    assert b"".join(map(bulk, args)) == want  # (without hiredis)


def test_a_packed_command_is_sent_as_packed_among_others() -> None:
    dequeue = packed(("EVALSHA", "f" * 40, 2, "a", "b", 1_700_000_000_000, 1))
    ack = ("EVALSHA", "e" * 40, 1, "a", "run~1")
    want = b"".join(hiredis.pack_command(c) for c in (ack, dequeue, ack))
    assert pack(None, [ack, dequeue, ack]) == [want]
    assert tuple(dequeue) == ("EVALSHA", "f" * 40, 2, "a", "b", 1_700_000_000_000, 1)


@given(
    run_id=st.text(),
    key=st.text(),
    timestamp=st.integers(min_value=-(2**70), max_value=2**70),
)
def test_a_plain_message_is_the_json_text_of_its_fields(
    run_id: str, key: str, timestamp: int
) -> None:
    fields = {"runId": run_id, "concurrencyKey": key, "queue": "task/base"}
    want = json.dumps({**fields, "timestamp": timestamp}, separators=(",", ":"), ensure_ascii=False)
    assert message_payload(PlannedRun(key, run_id, 0, 0), timestamp) == want
    assert json.loads(want)["concurrencyKey"] == key


@given(prefix=st.text(), run_id=st.text(), key=st.text())
def test_a_runs_keys_are_the_layouts_spelling(prefix: str, run_id: str, key: str) -> None:
    k = KeyLayout(prefix)
    fixed = (k.env_queue, k.ck_index, k.master_queue)
    want = (k.message(run_id), k.ck_queue(key), *fixed, k.ck_held(key), k.env_held)
    assert run_keys(k, run_id, key) == want
    assert ck_members([key, run_id]) == [ck_member(key), ck_member(run_id)]


_DOORS = [LUA_ORDER, Door(state_keys=("ckVtime", "ckVtimeIdle"), argv=("head", "1", 3, 2**32))]


@given(
    prefix=st.text(max_size=30),
    run_id=st.text(max_size=30),
    key=st.text(max_size=30),
    timestamp=st.integers(min_value=-(2**70), max_value=2**70),
    payload=st.text(),
    door=st.sampled_from(_DOORS),
)
def test_a_runs_enqueue_and_ack_pack_as_hiredis_does(
    prefix: str, run_id: str, key: str, timestamp: int, payload: str, door: Door
) -> None:
    k = KeyLayout(prefix)
    state = tuple(k.base_key(name) for name in door.state_keys)
    calls = RunCalls(k, door, state)
    # the usual 7 KEYS, then lengthCounter (counted as the reference counts it), then the
    # door's state; the ARGV tail: the member, the master member, the prefix and counter TTL
    keys = (*run_keys(k, run_id, key), length_counter(k), *state)
    tail = (ck_member(key), MASTER_MEMBER, k.prefix, COUNTER_TTL_S, *door.argv)
    ack = ("EVALSHA", door.ack.sha, len(keys), *keys, run_id, *tail)
    enqueue = ("EVALSHA", door.enqueue.sha, len(keys), *keys, run_id, timestamp, payload, *tail)
    for _ in range(2):  # the key's parts made, then found again
        assert calls.ack(run_id, key) == ack
        assert pack(None, [calls.ack(run_id, key)]) == [hiredis.pack_command(ack)]
        made = calls.enqueue(run_id, key, timestamp, payload)
        assert made == enqueue
        assert pack(None, [made]) == [hiredis.pack_command(enqueue)]


def test_a_queue_keeps_the_parts_of_its_first_keys_only() -> None:
    k = KeyLayout("p:")
    calls = RunCalls(k, LUA_ORDER, ())
    for i in range(RUN_KEYS_KEPT + 1):
        calls.ack("run~1", f"key-{i}")
    assert list(calls) == [f"key-{i}" for i in range(RUN_KEYS_KEPT)]
    for key in ("key-0", f"key-{RUN_KEYS_KEPT}"):  # kept, then not (packed by hiredis)
        keys = (*run_keys(k, "run~2", key), length_counter(k))
        tail = (ck_member(key), MASTER_MEMBER, k.prefix, COUNTER_TTL_S)
        ack = ("EVALSHA", LUA_ORDER.ack.sha, 8, *keys, "run~2", *tail)
        enqueue = ("EVALSHA", LUA_ORDER.enqueue.sha, 8, *keys, "run~2", 5, "{}", *tail)
        assert calls.ack("run~2", key) == ack
        assert calls.enqueue("run~2", key, 5, "{}") == enqueue
        sent = pack(None, [calls.ack("run~2", key), calls.enqueue("run~2", key, 5, "{}")])
        assert sent == [hiredis.pack_command(ack) + hiredis.pack_command(enqueue)]
