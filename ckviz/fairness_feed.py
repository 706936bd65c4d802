"""A run in progress fed to fairness books as key_service walks a finished one: runs arrive (or
come due), holds end, and each instant's dequeues are shared out once a later instant begins
(more of its dequeues may still come). The key grain (fairness_so_far.ServiceSoFar) and the
tenant grain (fairness_tenants.TenantsSoFar) keep their own books; the feeding is this one."""

from __future__ import annotations

import heapq
from collections.abc import Mapping, Sequence
from typing import Protocol

from ckviz.model.snapshot import DequeueEvent


class Books(Protocol):
    """What a grain's books take as the run goes."""

    def know(self, key: str) -> None: ...
    def arrive(self, key: str) -> None: ...
    def release(self, key: str) -> None: ...
    def dequeue(self, key: str) -> None: ...


class InstantFeed:
    """Arrivals and hold ends waiting for their instant, and the instant under way (`_batch`,
    not shared out yet). A subclass says how its books share an instant out (`_book_instant`)."""

    def __init__(self, books: Books, holds: Mapping[str, int] | None) -> None:
        self._feed_books = books
        self._holds = holds
        self._arrivals: list[tuple[int, int, str]] = []  # heap of (arrival, seq, key)
        self._releases: list[tuple[int, int, str]] = []  # heap of (release, seq, key)
        self._seq = 0
        self._instant: int | None = None  # the instant of `_batch`, not shared out yet
        self._batch: list[DequeueEvent] = []

    def arrived(self, at: int, key: str) -> None:
        """A run of `key` arrived (or comes due) at `at`."""
        self._feed_books.know(key)
        self._seq += 1
        heapq.heappush(self._arrivals, (at, self._seq, key))

    def dequeued(self, events: Sequence[DequeueEvent]) -> None:
        """Dequeues made since the last call, in order; an instant is shared out once a later
        one begins (more of its dequeues may still come)."""
        for e in events:
            if self._instant is not None and e.dequeued_ms != self._instant:
                self._share_out()
            self._instant = e.dequeued_ms
            self._batch.append(e)

    def _book_instant(self, served: list[str]) -> None:
        raise NotImplementedError

    def _open_until(self, now: int) -> None:
        """Holds ended and runs arrived by `now`: before `now`'s dequeues, as key_service."""
        books = self._feed_books
        while self._releases and self._releases[0][0] <= now:
            books.release(heapq.heappop(self._releases)[2])
        while self._arrivals and self._arrivals[0][0] <= now:
            books.arrive(heapq.heappop(self._arrivals)[2])

    def _share_out(self) -> None:
        """Book the instant of `_batch` for good."""
        assert self._instant is not None
        now, batch, books = self._instant, self._batch, self._feed_books
        self._open_until(now)
        self._book_instant([e.key for e in batch])
        for e in batch:
            books.dequeue(e.key)
            if self._holds is not None:
                self._seq += 1
                heapq.heappush(self._releases, (now + self._holds[e.run_id], self._seq, e.key))
        self._instant, self._batch = None, []
