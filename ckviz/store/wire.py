"""The bytes of a trip: one packet out, every reply back, on a connection redis-py opened.

redis-py makes the connection (TLS, AUTH, SELECT, the client name) and ckviz then owns its
socket for the run: a trip's packet is written whole, and its replies are parsed by one
hiredis reader fed straight from the socket. redis-py's own read path costs a few layers of
calls and checks per reply; a default matrix reads 150,000 of them on two cores. Where that
is not possible (no hiredis, a connection without a plain socket), redis-py does the work.
"""

from __future__ import annotations

import contextlib
import re
import socket
import time
from collections.abc import Sequence
from typing import Any

import redis
from redis.exceptions import ResponseError

from ckviz.store import turns

try:
    import hiredis
except ImportError:  # pragma: no cover - hiredis is a dependency, but optional for redis-py
    hiredis = None  # type: ignore[assignment]

_MORE = object()  # the reader's "not enough data yet"
_CHUNK = 65536
# Bounds on what one trip may read, whatever the server sends. ckviz's largest replies (a
# ckIndex of 100,000 keys with scores) are a few MB and 200,000 elements; a reply announcing
# more, or a trip past MAX_TRIP_BYTES, is a server that is not answering what was asked.
MAX_TRIP_BYTES = 256 * 1024 * 1024
_HEADER_DIGITS = 9  # an array or bulk header of 9 digits or more: 100,000,000 or over
_HUGE_ARRAY = re.compile(rb"\r\n\*(\d{%d,})" % _HEADER_DIGITS)
_HUGE_BULK = re.compile(rb"\r\n\$(\d{%d,})" % _HEADER_DIGITS)
_TAIL = 64  # bytes kept from the last read, so a header cut between two reads is still seen
_START = b"\r\n"  # a trip's first reply starts a header, as after a reply's end


class ReplyTooLarge(redis.ConnectionError):
    """The server announced or sent more than a trip may read (its words say which)."""


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
        hub = turns.current()  # other cells take their turns while this one waits (if any)
        try:
            for part in packet:
                if hub is None:
                    sock.sendall(part)
                else:
                    hub.send_all(sock, part, sock.gettimeout())
        except TimeoutError:
            raise redis.TimeoutError("Timeout writing to socket") from None
        reader = self._reader
        replies: list[Any] = []
        started, first = time.monotonic(), b""
        bounds: _Bounds | None = None
        try:
            while True:
                replies += iter(reader.gets, _MORE)  # every whole reply in so far, taken in C
                if len(replies) >= count:
                    break
                if not first:  # nearly every trip's replies are all in its first read
                    first = _first_read(sock, hub)
                    reader.feed(first)
                else:  # the others' reads are bounded as a whole from here
                    bounds = bounds or _Bounds(sock, started, first, hub)
                    reader.feed(bounds.received(reader.len()))
        finally:
            if bounds is not None:
                bounds.restore()
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


class _Bounds:
    """One trip's reads after its first (`_first_read`), bounded in time (the socket's timeout,
    CKVIZ_REDIS_TIMEOUT, for the whole trip from its first read on, not per read: a server
    trickling a byte a second never trips a per-read timeout) and in size (MAX_TRIP_BYTES
    read, no header announcing 10^8 elements or bytes). Made only for a trip whose replies
    take more than one read, which few do: a bound made for every trip cost more than the
    read it guarded.

    An array's header is looked for in every read before the reader sees it (hiredis sizes
    the list from it). A bulk string's matters only where the reader stops to wait for more
    (it makes nothing before the whole body is in), so only that stretch is looked at: a read
    of 64 KB, a ckIndex of 1,000 keys, was scanned whole for both kinds, which cost ckviz more
    than decoding it.
    """

    def __init__(
        self, sock: socket.socket, started: float, first: bytes, hub: turns.Turns | None
    ) -> None:
        self.sock, self.hub = sock, hub
        self.timeout = sock.gettimeout()
        self.deadline = None if self.timeout is None else started + self.timeout
        self.reads = 1
        self.size = len(first)
        self.tail = _tail_of(_START, first)
        self.last = (_START, first)  # the tail before the last read, and that read

    def received(self, buffered: int) -> bytes:
        """The next read, once the reader (holding `buffered` bytes) wants more."""
        self._not_waiting_for_a_huge_bulk(buffered)
        left = None
        if self.deadline is not None:  # what time is left
            left = self.deadline - time.monotonic()
            if left <= 0:
                raise self._too_slow()
            if self.hub is None:
                self.sock.settimeout(left)
        self.reads += 1
        try:
            if self.hub is None:
                chunk = self.sock.recv(_CHUNK)
            else:
                chunk = self.hub.receive(self.sock, _CHUNK, left)
        except TimeoutError:
            raise self._too_slow() from None
        if not chunk:
            raise redis.ConnectionError("Connection closed by server.")  # as redis-py words it
        self.size += len(chunk)
        if self.size > MAX_TRIP_BYTES:
            raise _too_much()
        tail = self.tail
        huge = _HUGE_ARRAY.search(tail + chunk[:_TAIL]) or _HUGE_ARRAY.search(chunk)
        if huge:
            raise _too_large(huge)
        self.last = (tail, chunk)
        self.tail = _tail_of(tail, chunk)
        return chunk

    def _too_slow(self) -> redis.TimeoutError:
        return redis.TimeoutError(
            f"Timeout reading from socket: no whole reply within {self.timeout:g} s "
            "(the server sends it too slowly or without end)"
        )

    def _not_waiting_for_a_huge_bulk(self, buffered: int) -> None:
        """The reader stopped at the start of the reply part it lacks the rest of: within the
        last `buffered` bytes it was fed (hiredis keeps under 1 KB it has read besides; the
        margin covers the line end before it and a header cut between this read and the one
        before). A bulk string's header there must not announce 10^8 bytes."""
        before, chunk = self.last
        span = buffered + _TAIL
        stretch = chunk[-span:] if span <= len(chunk) else (before + chunk)[-span:]
        huge = _HUGE_BULK.search(stretch)
        if huge:
            raise _too_large(huge)

    def restore(self) -> None:
        if self.reads > 1 and self.hub is None:
            with contextlib.suppress(OSError):  # a socket closed meanwhile keeps its error
                self.sock.settimeout(self.timeout)


def _first_read(sock: socket.socket, hub: turns.Turns | None) -> bytes:
    """A trip's first read: within the socket's own timeout, its array headers looked at."""
    try:
        chunk = sock.recv(_CHUNK) if hub is None else hub.receive(sock, _CHUNK, sock.gettimeout())
    except TimeoutError:
        raise redis.TimeoutError("Timeout reading from socket") from None
    if not chunk:
        raise redis.ConnectionError("Connection closed by server.")  # as redis-py words it
    if len(chunk) > MAX_TRIP_BYTES:
        raise _too_much()
    huge = _HUGE_ARRAY.search(_START + chunk)
    if huge:
        raise _too_large(huge)
    return chunk


def _tail_of(tail: bytes, chunk: bytes) -> bytes:
    """The last _TAIL bytes read, once `chunk` is read after `tail`."""
    return (tail + chunk[:_TAIL])[-_TAIL:] if len(chunk) < _TAIL else chunk[-_TAIL:]


def _too_much() -> ReplyTooLarge:
    return ReplyTooLarge(f"reply too large: over {MAX_TRIP_BYTES // 2**20} MiB in one round trip")


def _too_large(huge: re.Match[bytes]) -> ReplyTooLarge:
    what, unit = ("an array of", "elements") if huge[0][2:3] == b"*" else ("a string of", "bytes")
    return ReplyTooLarge(f"reply too large: {what} {huge[1][:20].decode()} {unit} announced")


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
