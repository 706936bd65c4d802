"""A huge trip goes out in packets (store/runqueue.py's MAX_PACKET), each its own round trip,
and reads back exactly as one packet would: the same replies, in order."""

from __future__ import annotations

import pytest
import redis

from ckviz.model.queue import PlannedRun
from ckviz.store import runqueue
from ckviz.store.runqueue import RunQueue


def trip_of_seven(queue: RunQueue) -> list[object]:
    trip = queue.trip()
    for i in range(6):
        trip.enqueue(PlannedRun(f"k{i % 2}", f"r{i}", i, 5), 1_700_000_000_000 + i)
    slot = trip.inspect(["k0", "k1"], 64)
    replies = trip.send()
    return [*replies[:slot], replies[slot]]


def test_a_trip_past_a_packet_is_sent_in_packets_with_the_same_replies(
    client: redis.Redis, prefix: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    whole = RunQueue(client, f"{prefix}1:", 4)
    whole.open()
    monkeypatch.setattr(runqueue, "MAX_PACKET", 3)
    split = RunQueue(client, f"{prefix}2:", 4)
    split.open()
    try:
        monkeypatch.setattr(runqueue, "MAX_PACKET", 20_000)
        trips = whole.round_trips
        expected = trip_of_seven(whole)
        assert whole.round_trips == trips + 1
        monkeypatch.setattr(runqueue, "MAX_PACKET", 3)
        trips = split.round_trips
        assert trip_of_seven(split) == expected
        assert split.round_trips == trips + 3  # 7 commands, 3 a packet
        assert split.commands_sent == whole.commands_sent
    finally:
        whole.delete_namespace()
        split.delete_namespace()
        whole.close()
        split.close()
