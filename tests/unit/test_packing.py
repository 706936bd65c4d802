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
from ckviz.store.keys import KeyLayout, ck_member, ck_members
from ckviz.store.messages import message_payload, run_keys
from ckviz.store.packing import Bulks, pack, packed, packed_pairs


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
