"""ckIndex as the layout says it stands after the writes an outbox holds, so a rescoring
discipline can rank it in the same trip as those writes instead of a trip of its own.

The rules are the scripts' own (store/lua): a rescore's ZADD sets the scores it names; an
enqueue or an ack points the key's entry at its CK queue's true head, or removes it when the
queue is empty (`rescore_to_head`); a dequeue that takes nothing changes no score. The trip
still carries the reference's ckIndex read right where the reference reads it, before the
rescore, and the driver compares that reply with the projection: a difference is the broken
invariant `ck-index-head`, never a silently different run.
"""

from __future__ import annotations

from collections.abc import Mapping

from ckviz.model.queue import IndexEntry
from ckviz.sim.ledger import KeyBook
from ckviz.store.keys import ck_member, key_of_member


class IndexProjection:
    """The writes to ckIndex since it was last read: a rescore's scores and re-headed keys."""

    def __init__(self) -> None:
        self.written: dict[str, float] = {}  # member -> score a rescore wrote
        self.reheaded: set[str] = set()  # keys acked or enqueued

    def clear(self) -> None:
        """ckIndex was just read (or the writes were sent without a read)."""
        self.written.clear()
        self.reheaded.clear()

    def rescored(self, members: list[str], scores: list[int]) -> None:
        self.written.update(zip(members, map(float, scores), strict=True))

    def project(
        self, read: tuple[IndexEntry, ...], books: Mapping[str, KeyBook]
    ) -> tuple[IndexEntry, ...]:
        """`read` with the writes applied, in Redis's order: score, then member."""
        scores = {e.member: e.score for e in read}
        scores.update(self.written)
        for key in self.reheaded:
            member, queued = ck_member(key), books[key].queued
            if queued:
                scores[member] = float(queued[0][0])  # the heap's first: the true head
            else:
                scores.pop(member, None)
        ranked = sorted(scores.items(), key=lambda item: (item[1], item[0]))
        return tuple(IndexEntry(member, key_of_member(member), score) for member, score in ranked)


def first_difference(seen: tuple[IndexEntry, ...], projected: tuple[IndexEntry, ...]) -> str:
    """One line on where Redis's ckIndex and the projection part."""
    for i, (a, b) in enumerate(zip(seen, projected, strict=False)):
        if a != b:
            found, expected = f"{a.member} at {a.score:.0f}", f"{b.member} at {b.score:.0f}"
            return f"entry {i}: Redis has {found}, expected {expected}"
    return f"Redis has {len(seen)} entries, expected {len(projected)}"
