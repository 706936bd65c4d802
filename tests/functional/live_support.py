"""What the live tests share (watch, capture, whatif): a run queue on the real layout under a
test's own prefix, driven by ckviz's producer, and a Redis ACL user that may only read keys
under that prefix (SPEC-live 4), made on the test's server and deleted after."""

from __future__ import annotations

import abc
import contextlib
import secrets
import threading
import urllib.parse
from collections.abc import Iterator
from dataclasses import dataclass

import redis

from ckviz.live.names import LiveQueue
from ckviz.live.producer import Producer
from ckviz.store.server import RedisServer

# ids as the reference spells them (cuid-like), a queue name with `/` and `:`
ORG, PROJECT, ENV = "cm4org00001", "cm4proj0001", "cm4env00001"
QUEUE_NAME = "task/send-email:v2"
# the commands SPEC-live 4 allows a watcher
READ_ONLY = ("-@all", "+@read", "+ping", "+info", "+client|setname", "+client|tracking", "+scan")


class TrafficThread(threading.Thread, abc.ABC):
    """Traffic fed to a queue in real time by a thread of its own until its work is done or
    `stop` is set: an error it meets is kept for the test to read, and `done` set either way
    (a test waits on `done`, then asserts `error is None`)."""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.stop = threading.Event()
        self.error: BaseException | None = None
        self.done = threading.Event()

    def run(self) -> None:
        try:
            self._run()
        except BaseException as exc:  # the test reads it
            self.error = exc
        finally:
            self.done.set()

    @abc.abstractmethod
    def _run(self) -> None:
        """The traffic itself, checking `stop` between turns."""


def live_queue(prefix: str, name: str = QUEUE_NAME) -> LiveQueue:
    return LiveQueue(prefix, ORG, PROJECT, ENV, name)


def server_now_ms(client: redis.Redis) -> int:
    seconds, micros = client.time()
    return int(seconds) * 1000 + int(micros) // 1000


@dataclass
class Traffic:
    """A producer and the runs it has in flight, with ids of its own."""

    producer: Producer
    held: list[tuple[str, str]]  # (run id, concurrency key), dequeued and not acked
    made: int = 0

    def arrive(self, keys: list[str], at_ms: int) -> None:
        for i, key in enumerate(keys):
            self.made += 1
            self.producer.enqueue(f"run_{self.made:06d}", key, at_ms + i)

    def serve(self, count: int, now: int) -> list[tuple[str, str]]:
        taken = self.producer.dequeue(count, now)
        self.held += taken
        return taken

    def finish(self, count: int) -> None:
        for run_id, key in self.held[:count]:
            self.producer.ack(run_id, key)
        del self.held[:count]


@contextlib.contextmanager
def read_only_user(server: RedisServer, prefix: str) -> Iterator[str]:
    """A URL of `server` as an ACL user limited to SPEC-live 4's read commands on `prefix`'s
    keys (Redis 7: `%R~P*`, read-only key access; 6.2: `~P*`); the user deleted after."""
    admin = server.client()
    user, password = f"ckviz-watch-{secrets.token_hex(4)}", secrets.token_hex(12)
    seven = int(server.version.split(".")[0]) >= 7
    pattern = f"%R~{prefix}*" if seven else f"~{prefix}*"
    admin.acl_setuser(user, enabled=True, passwords=[f"+{password}"])
    admin.execute_command("ACL", "SETUSER", user, "resetkeys", pattern, *READ_ONLY)
    try:
        yield with_user(server.url, user, password)
    finally:
        admin.acl_deluser(user)
        admin.close()


def with_user(url: str, user: str, password: str) -> str:
    """`url` logging in as `user`."""
    parts = urllib.parse.urlsplit(url)
    if parts.scheme == "unix":
        query = urllib.parse.urlencode({"username": user, "password": password})
        return f"{url}{'&' if parts.query else '?'}{query}"
    netloc = f"{user}:{password}@{parts.netloc.rsplit('@', 1)[-1]}"
    return urllib.parse.urlunsplit(parts._replace(netloc=netloc))
