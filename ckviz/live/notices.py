"""Change notices (SPEC-live 5): a connection of its own in RESP3 with `CLIENT TRACKING ON
BCAST PREFIX ...`, on which the server names every key written under those prefixes as it is
written. No configuration change (keyspace notifications would need CONFIG SET) and no
write: HELLO, AUTH and CLIENT TRACKING only. The connection speaks RESP3 on a socket of its
own (hiredis parses it), so no notice can sit unread in a client library's buffer."""

from __future__ import annotations

import contextlib
import select
import socket
import ssl
import time
from typing import Any

import hiredis
from redis.connection import SSLConnection, UnixDomainSocketConnection
from redis.connection import parse_url as _parse_url

from ckviz.errors import RedisUnavailable, ServerRefused

INVALIDATE = b"invalidate"
CONNECT_TIMEOUT_S = 5.0


class NoticesRefused(Exception):
    """The server will not send notices (older than Redis 6, or an ACL without tracking)."""


class Notices:
    """The keys written under the prefixes, as the server names them."""

    def __init__(self, url: str, prefixes: list[str]) -> None:
        self._sock = _connect(url)
        self._reader = hiredis.Reader()
        self.flushed = False  # the server flushed its tracking table: read everything again
        try:
            self._handshake(parse_url(url), prefixes)
        except BaseException:
            self.close()
            raise

    def _handshake(self, options: dict[str, Any], prefixes: list[str]) -> None:
        hello: list[Any] = ["HELLO", "3"]
        if options.get("password") is not None:
            hello += ["AUTH", options.get("username") or "default", options["password"]]
        reply = self._call(hello)
        if isinstance(reply, Exception):  # 5.x: no HELLO, no RESP3, no tracking
            raise NoticesRefused(f"HELLO 3: {reply}")
        db = options.get("db")
        if db:
            self._check(self._call(["SELECT", str(db)]), "SELECT")
        tracking = ["CLIENT", "TRACKING", "ON", "BCAST"]
        for prefix in prefixes:
            tracking += ["PREFIX", prefix]
        reply = self._call(tracking)
        if isinstance(reply, Exception):
            raise NoticesRefused(f"CLIENT TRACKING: {reply}")

    def _check(self, reply: Any, what: str) -> None:
        if isinstance(reply, Exception):
            raise ServerRefused(f"{what}: {reply}")

    def _call(self, args: list[str]) -> Any:
        self._sock.sendall(_pack(args))
        while True:
            reply = self._next(CONNECT_TIMEOUT_S)
            if reply is False:
                raise RedisUnavailable(f"the server did not answer {args[0]} in time")
            if not _is_notice(reply):
                return reply

    def _next(self, timeout_s: float) -> Any:
        """The next complete reply, or False when none came within `timeout_s`."""
        deadline = time.monotonic() + timeout_s
        while (reply := self._reader.gets()) is False:
            left = deadline - time.monotonic()
            if left <= 0 or not _readable(self._sock, left):
                return False
            data = self._sock.recv(1 << 16)
            if not data:
                raise RedisUnavailable("the server closed the notice connection")
            self._reader.feed(data)
        return reply

    def wait(self, timeout_s: float) -> list[str]:
        """The keys named within `timeout_s` (at least one notice, then all that are ready);
        [] when none came. A flush sets `flushed`."""
        keys: list[str] = []
        reply = self._next(timeout_s)
        while reply is not False:
            if _is_notice(reply):
                named = reply[1]
                if named is None:
                    self.flushed = True
                else:
                    keys.extend(k.decode("utf-8", "surrogateescape") for k in named)
            reply = self._next(0)
        return keys

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self._sock.close()


def _is_notice(reply: Any) -> bool:
    return isinstance(reply, list) and len(reply) == 2 and reply[0] == INVALIDATE


def parse_url(url: str) -> dict[str, Any]:
    """redis-py's reading of a URL: host, port or path, user, password, db, TLS."""
    options: dict[str, Any] = _parse_url(url)  # type: ignore[no-untyped-call]
    return options


def _readable(sock: socket.socket, timeout_s: float) -> bool:
    if isinstance(sock, ssl.SSLSocket) and sock.pending():
        return True
    ready, _, _ = select.select([sock], [], [], timeout_s)
    return bool(ready)


def _connect(url: str) -> socket.socket:
    options = parse_url(url)
    kind = options.get("connection_class")
    try:
        if kind is UnixDomainSocketConnection:
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            sock.settimeout(CONNECT_TIMEOUT_S)
            sock.connect(options["path"])
        else:
            address = (options.get("host", "localhost"), int(options.get("port", 6379)))
            sock = socket.create_connection(address, timeout=CONNECT_TIMEOUT_S)
            if kind is SSLConnection:
                sock = ssl.create_default_context().wrap_socket(sock, server_hostname=address[0])
    except OSError as exc:
        raise RedisUnavailable(
            f"cannot open the notice connection: {exc.strerror or exc}"
        ) from None
    sock.settimeout(None)
    return sock


def _pack(args: list[str]) -> bytes:
    parts = [f"*{len(args)}\r\n".encode()]
    for arg in args:
        data = arg.encode("utf-8", "surrogateescape")
        parts.append(b"$%d\r\n%s\r\n" % (len(data), data))
    return b"".join(parts)
