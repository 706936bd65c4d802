"""The wire: one packet out, every reply back, parsed from the socket as redis-py would."""

from __future__ import annotations

import redis
from redis.exceptions import NoScriptError, ResponseError

from ckviz.store.packing import pack
from ckviz.store.wire import Wire


def test_replies_across_many_reads_errors_in_their_slots_and_a_reconnect(
    client: redis.Redis, prefix: str
) -> None:
    big, name = f"{prefix}big", f"{prefix}s"
    client.zadd(big, {f"member-{i:06d}": i for i in range(20_000)})  # a reply of ~0.5 MB
    client.set(name, "é")
    commands = [("GET", name), ("ZRANGE", big, 0, -1, "WITHSCORES"), ("EVALSHA", "0" * 40, 0)]
    commands += [("INCR", f"{prefix}n")] * 200 + [("HGET", name, "x"), ("ZCARD", big)]
    conn = client.connection_pool.get_connection()
    try:
        wire = Wire(conn)
        replies = wire.roundtrip(pack(conn, commands), len(commands))
        assert replies[0] == "é"
        assert replies[1][:4] == ["member-000000", "0", "member-000001", "1"]
        assert len(replies[1]) == 40_000
        assert isinstance(replies[2], NoScriptError)
        assert replies[3:203] == list(range(1, 201))
        assert isinstance(replies[203], ResponseError) and "WRONGTYPE" in str(replies[203])
        assert replies[204] == 20_000
        conn.disconnect()  # redis-py opens a new socket; the wire reads it with a new reader
        assert wire.roundtrip(pack(conn, [("ZCARD", big)]), 1) == [20_000]
    finally:
        client.connection_pool.release(conn)
    assert client.get(name) == "é"  # redis-py reads the connection after the wire, in step
