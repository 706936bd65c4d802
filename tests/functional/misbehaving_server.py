"""A stand-in for a server that misbehaves on the wire: a small TCP server speaking raw RESP,
or a proxy in front of the real test server that starts misbehaving at a command it sees.
Queue behaviour is never tested here: only what ckviz does with bytes no Redis would send."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
import urllib.parse
from collections.abc import Callable, Iterator

Behaviour = Callable[[socket.socket], None]


def silent(sock: socket.socket) -> None:
    """Reads what comes and never answers."""
    while sock.recv(65536):
        pass


def trickle(head: bytes, every_s: float = 0.2) -> Behaviour:
    """Answers with `head`, then one byte of a reply that never ends, every `every_s`."""

    def behave(sock: socket.socket) -> None:
        sock.recv(65536)
        sock.sendall(head)
        while True:
            time.sleep(every_s)
            sock.sendall(b"x")

    return behave


def stream(head: bytes, body: bytes) -> Behaviour:
    """Answers with `head`, then `body` over and over, as fast as it is read."""

    def behave(sock: socket.socket) -> None:
        sock.recv(65536)
        sock.sendall(head)
        while True:
            sock.sendall(body)

    return behave


def once(reply: bytes) -> Behaviour:
    """Answers the first request with `reply` and then waits."""

    def behave(sock: socket.socket) -> None:
        sock.recv(65536)
        sock.sendall(reply)
        silent(sock)

    return behave


def hangs_up_after(seconds: float, behave: Behaviour) -> Behaviour:
    """`behave`, and the connection closed `seconds` after it began (counted from the
    connection, not the client's interpreter start): a client that has not given up by then
    reads the connection's end, not a timeout of its own. So a timeout kept and one not kept
    end differently, and no test times how long either took."""

    def run(sock: socket.socket) -> None:
        timer = threading.Timer(seconds, _hang_up, (sock,))
        timer.start()
        try:
            behave(sock)
        finally:
            timer.cancel()

    return run


def _hang_up(sock: socket.socket) -> None:
    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_RDWR)


@contextlib.contextmanager
def fake_server(behave: Behaviour) -> Iterator[str]:
    """A loopback TCP server running `behave` on every connection; yields its redis:// URL."""
    listener = socket.create_server(("127.0.0.1", 0))
    stop = threading.Event()
    open_socks: list[socket.socket] = []

    def serve(sock: socket.socket) -> None:
        with contextlib.suppress(OSError):
            behave(_past_handshake(sock))  # type: ignore[arg-type]

    def accept() -> None:
        while not stop.is_set():
            try:
                sock, _ = listener.accept()
            except OSError:
                return
            open_socks.append(sock)
            threading.Thread(target=serve, args=(sock,), daemon=True).start()

    threading.Thread(target=accept, daemon=True).start()
    try:
        yield f"redis://127.0.0.1:{listener.getsockname()[1]}/0"
    finally:
        stop.set()
        listener.close()
        for sock in open_socks:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            sock.close()


@contextlib.contextmanager
def proxy(upstream_url: str, trigger: bytes, behave: Behaviour) -> Iterator[str]:
    """A loopback proxy to the real server at `upstream_url` (unix:// or redis://): bytes pass
    both ways until a client sends `trigger`; from then on that connection's replies stop and
    `behave` answers instead (it is handed the client socket, the trigger already read)."""

    def relay(client: socket.socket) -> None:
        upstream = _dial(upstream_url)
        try:
            threading.Thread(target=_pump, args=(upstream, client), daemon=True).start()
            while True:
                data = client.recv(65536)
                if not data:
                    return
                if trigger in data:
                    upstream.close()  # its replies stop here
                    behave(_Replayed(client, data))  # type: ignore[arg-type]
                    return
                upstream.sendall(data)
        finally:
            upstream.close()

    with fake_server(relay) as url:
        yield url


class _Replayed:
    """The client socket as `behave` expects it: its first recv returns the request already
    read (the proxy's trigger, the first request past the handshake)."""

    def __init__(self, sock: socket.socket, first: bytes) -> None:
        self.sock, self.first = sock, first

    def recv(self, size: int) -> bytes:
        if self.first:
            first, self.first = self.first, b""
            return first
        return self.sock.recv(size)

    def sendall(self, data: bytes) -> None:
        self.sock.sendall(data)

    def shutdown(self, how: int) -> None:
        self.sock.shutdown(how)


def _past_handshake(sock: socket.socket) -> _Replayed | socket.socket:
    """redis-py opens with CLIENT SETINFO (twice, one reply each): say OK to those, then hand
    the first real request to the behaviour."""
    while data := sock.recv(65536):
        if b"SETINFO" not in data:
            return _Replayed(sock, data)
        sock.sendall(b"+OK\r\n" * data.count(b"SETINFO"))
    return sock


def _pump(src: socket.socket, dst: socket.socket) -> None:
    with contextlib.suppress(OSError):
        while data := src.recv(65536):
            dst.sendall(data)


def _dial(url: str) -> socket.socket:
    parts = urllib.parse.urlsplit(url)
    if parts.scheme == "unix":
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.connect(parts.path)
        return sock
    return socket.create_connection((parts.hostname or "127.0.0.1", parts.port or 6379))
