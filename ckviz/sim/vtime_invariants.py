"""The vtime rules in the logical-millisecond driver: the step harness's checker, fed the state
read that rides at the end of each checked trip (no extra round trip) and the ledger's books.

A key's tag may start afresh only when the key can have left ckVtime: a dequeue drops a key
whose CK queue it finds (or leaves) empty, and HEAD's ack one whose queue is empty. So a key
is counted as dropped when its queue was empty at the previous check (the start of this trip)
or is empty now; any other key's tag must not go down.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from ckviz.model.vtime import Version, VtimeState
from ckviz.sim.ledger import Ledger
from ckviz.sim.step_checks import VtimeStateChecker
from ckviz.sim.violations import BrokenInvariant


class VtimeLedgerCheck:
    """Floor monotone, tags never rewound while registered, ckVtime holding only enqueued CK
    queues of this base queue (and HEAD's idle rule), checked after every trip."""

    def __init__(self, version: Version, planned: Mapping[str, int]) -> None:
        self.rules = VtimeStateChecker(version, BrokenInvariant)
        self.planned = dict(planned)
        self.empty: set[str] = set(planned)  # keys with nothing queued at the last check
        self.checks = 0

    def check(self, ledger: Ledger, state: VtimeState, t: int, asked: Iterable[str]) -> None:
        books = ledger.books

        def empty_now(key: str) -> bool:
            book = books.get(key)
            return book is None or not book.queued

        def enqueued(key: str) -> bool:
            book = books.get(key)
            return book is not None and book.to_arrive < self.planned.get(key, 0)

        self.checks += 1
        candidates = {*state.tags, *asked, *ledger.touched}
        dropped = {k for k in candidates if k in self.empty or empty_now(k)}
        self.rules.check_state(t, state, {}, enqueued, dropped)
        for key in candidates:
            if empty_now(key):
                self.empty.add(key)
            else:
                self.empty.discard(key)
