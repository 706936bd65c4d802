"""The bytes of a trip: one packet out, every reply back, on a connection redis-py opened.

redis-py makes the connection (TLS, AUTH, SELECT, the client name) and ckviz then owns its
socket for the run: a trip's packet is written whole, and its replies are parsed by one
hiredis reader fed straight from the socket. redis-py's own read path costs a few layers of
calls and checks per reply; a default matrix reads 150,000 of them on two cores. Where that
is not possible (no hiredis, a connection without a plain socket), redis-py does the work.
"""

from __future__ import annotations

import socket
from collections.abc import Sequence
from typing import Any

import redis
from redis.exceptions import ResponseError

try:
    import hiredis
except ImportError:  # pragma: no cover - hiredis is a dependency, but optional for redis-py
    hiredis = None  # type: ignore[assignment]

_MORE = object()  # the reader's "not enough data yet"
_CHUNK = 65536


def parse_error(text: str) -> ResponseError:
    """An error reply as the exception redis-py would raise for it (NOSCRIPT, ...)."""
    return redis.connection.DefaultParser.parse_error(text)  # type: ignore[no-untyped-call,no-any-return]


class Wire:
    """Packets out and replies in on `conn`; an error reply is returned as its exception."""

    def __init__(self, conn: Any) -> None:
        self.conn = conn
        self._sock: socket.socket | None = None
        self._reader: Any = None

    def roundtrip(self, packet: Sequence[bytes], count: int) -> list[Any]:
        """Write `packet`, read `count` replies."""
        sock = self._socket()
        if sock is None:
            self.conn.send_packed_command(packet, False)
            return list(self._redis_py_replies(count))
        try:
            for part in packet:
                sock.sendall(part)
        except TimeoutError:
            raise redis.TimeoutError("Timeout writing to socket") from None
        reader, replies = self._reader, list[Any]()
        while len(replies) < count:
            reply = reader.gets()
            if reply is _MORE:
                reader.feed(_received(sock))
            else:
                replies.append(reply)
        return replies

    def _socket(self) -> socket.socket | None:
        """The connection's socket with a fresh reader for it (redis-py reconnects a dropped
        connection with a new socket); None where redis-py must read."""
        if hiredis is None:
            return None
        sock = getattr(self.conn, "_sock", None)
        if sock is None:
            self.conn.connect()
            sock = getattr(self.conn, "_sock", None)
        if not isinstance(sock, socket.socket):
            return None
        if sock is not self._sock:
            self._sock, self._reader = sock, _reader_for(self.conn.encoder)
        return sock

    def _redis_py_replies(self, count: int) -> Any:
        for _ in range(count):
            try:
                yield self.conn.read_response()
            except ResponseError as exc:
                yield exc


def _received(sock: socket.socket) -> bytes:
    try:
        chunk = sock.recv(_CHUNK)
    except TimeoutError:
        raise redis.TimeoutError("Timeout reading from socket") from None
    if not chunk:
        raise redis.ConnectionError("Connection closed by server.")  # as redis-py words it
    return chunk


def _reader_for(encoder: Any) -> Any:
    """A hiredis reader that decodes as the connection's own does."""
    options: dict[str, Any] = {
        "protocolError": redis.exceptions.InvalidResponse,
        "replyError": parse_error,
        "errors": encoder.encoding_errors,
        "notEnoughData": _MORE,
    }
    if encoder.decode_responses:
        options["encoding"] = encoder.encoding
    return hiredis.Reader(**options)
