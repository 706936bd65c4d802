"""Tasks taking turns in one thread, each handing the thread on while it waits for a reply.

A headless worker runs several cells at once. As threads, every round trip of a cell put its
thread to sleep on its socket and woke it again, and handed the GIL over: on a quiet two-core
machine `ckviz --headless` on the default matrix took 2.75-2.76 s that way and 2.56-2.58 s as
tasks, 0.2 CPU seconds less in all (docs/performance.md). Here each task is a greenlet; a trip,
once sent, waits in `Turns.receive` (store/wire.py asks `current()` whether it runs in a hub's
task), which switches to the hub (`Turns.run`). The hub resumes whichever task's socket has its
replies, and sleeps only when every task waits: a busy worker then never sleeps at all, and the
server often finds the next trips already sent when it looks.

Only the waits switch: between two waits a task runs alone, so the tasks share nothing they
would need a lock for. Outside a hub's tasks, `current()` is None and the wire blocks on its
socket as it always did. The hub runs once per round trip: it is kept to a poll and a few
dictionary operations.
"""

from __future__ import annotations

import math
import os
import select
import socket
import threading
import time
from collections.abc import Callable

import greenlet

_NEVER = math.inf


class Turns:
    """A hub and the tasks it runs (`start`), until none is left (`run`)."""

    def __init__(self) -> None:
        self._poll = select.poll()
        self._waiting: dict[int, tuple[greenlet.greenlet, float]] = {}  # fd: task, deadline
        self._ready: list[tuple[greenlet.greenlet, tuple[bool, ...]]] = []  # task, its answer
        self._tasks = 0
        self._hub: greenlet.greenlet | None = None

    def start(self, task: Callable[[], None]) -> None:
        """Run `task` as one of the hub's tasks, from its next turn on."""
        self._tasks += 1
        # A finished greenlet returns to its parent: the hub's, not the task that started it.
        parent = self._hub or greenlet.getcurrent()
        self._ready.append((greenlet.greenlet(self._counted(task), parent), ()))

    def run(self) -> None:
        """Run the tasks until every one has finished (a task may start others). An exception
        a task lets out ends the run here."""
        self._hub, _running.hub = greenlet.getcurrent(), self
        try:
            while self._tasks:
                if not self._ready:
                    self._wait_for_any()
                ready, self._ready = self._ready, []
                for task, answer in ready:
                    task.switch(*answer)
        finally:
            self._hub, _running.hub = None, None

    def wait(self, fd: int, timeout: float | None, events: int = select.POLLIN) -> bool:
        """In a task: let the others run until the file descriptor `fd` can be read (or
        written, by `events`) (True) or `timeout` seconds pass (False)."""
        deadline = _NEVER if timeout is None else time.monotonic() + timeout
        self._waiting[fd] = (greenlet.getcurrent(), deadline)
        self._poll.register(fd, events)
        hub = self._hub
        assert hub is not None  # only a task waits, and tasks run inside run()
        answer: bool = hub.switch()
        return answer

    def receive(self, sock: socket.socket, size: int, timeout: float | None) -> bytes:
        """In a task: up to `size` bytes from `sock` once it has some, the others running
        meanwhile; TimeoutError after `timeout` seconds without. The poll that woke the task
        said the socket is readable, so it reads the descriptor straight: a socket with a
        timeout would poll once more before its own read."""
        fd = sock.fileno()
        while self.wait(fd, timeout):
            try:
                return os.read(fd, size)
            except BlockingIOError:  # woken for nothing after all
                continue
        raise TimeoutError

    def send_all(self, sock: socket.socket, data: bytes, timeout: float | None) -> None:
        """In a task: write all of `data` to `sock`, the others running whenever its buffer
        is full; TimeoutError after `timeout` seconds without room."""
        fd, rest = sock.fileno(), memoryview(data)
        while rest:
            try:
                rest = rest[os.write(fd, rest) :]
            except BlockingIOError:
                if not self.wait(fd, timeout, select.POLLOUT):
                    raise TimeoutError from None

    def _counted(self, task: Callable[[], None]) -> Callable[[], None]:
        def run_then_count() -> None:
            try:
                task()
            finally:
                self._tasks -= 1

        return run_then_count

    def _wait_for_any(self) -> None:
        """Sleep until a waiting task's source can be read or its time is up; queue it."""
        soonest = min(deadline for _, deadline in self._waiting.values())
        timeout_ms = None
        if soonest is not _NEVER:
            timeout_ms = max(0, math.ceil((soonest - time.monotonic()) * 1000))
        for fd, _ in self._poll.poll(timeout_ms):
            self._resume(fd, True)
        if soonest <= time.monotonic():  # someone's time may be up
            now = time.monotonic()
            for fd in [fd for fd, (_, deadline) in self._waiting.items() if deadline <= now]:
                self._resume(fd, False)

    def _resume(self, fd: int, answer: bool) -> None:
        self._poll.unregister(fd)
        task, _ = self._waiting.pop(fd)
        self._ready.append((task, (answer,)))


class _Running(threading.local):
    hub: Turns | None = None  # the hub whose tasks run in this thread, if any


_running = _Running()


def current() -> Turns | None:
    """The hub whose task is running, if the caller is one (else its socket reads block)."""
    hub = _running.hub
    if hub is None or hub._hub is greenlet.getcurrent():
        return None
    return hub
