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

from collections.abc import Mapping, Sequence
from operator import itemgetter
from typing import Any, NamedTuple

from ckviz.model.invariants import INDEX_AT_HEAD, BrokenInvariant
from ckviz.model.queue import IndexColumns, IndexEntry, columns_of
from ckviz.sim.engine.ledger import KeyBook
from ckviz.store.keys import KEY_OF, ck_member, key_of_member
from ckviz.store.replies import IndexPairs
from ckviz.store.runqueue import Trip

_FIRST, _SECOND = itemgetter(0), itemgetter(1)


class IndexProjection:
    """The writes to ckIndex since it was last read: a rescore's scores and re-headed keys."""

    def __init__(self) -> None:
        self.rescore: tuple[list[str], list[int]] | None = None  # members best first, scores
        self.reheaded: set[str] = set()  # keys acked or enqueued since

    def clear(self) -> None:
        """ckIndex was just read or projected (or the writes were sent without a read)."""
        self.rescore = None
        self.reheaded.clear()

    def rescored(self, members: list[str], scores: list[int]) -> None:
        """A rescore of the index as last read or projected: it names every member of it."""
        self.rescore = (members, scores)

    def project(self, read: Sequence[IndexEntry], books: Mapping[str, KeyBook]) -> Projected:
        """`read` with the writes applied, in Redis's order: score, then member."""
        members, values = self._after_rescore(len(read), books) or self._sorted(read, books)
        keys = list(map(KEY_OF.__getitem__, members))
        return Projected(IndexColumns(members, keys, values), (members, values))

    def _heads(self, books: Mapping[str, KeyBook]) -> tuple[dict[str, float], set[str]]:
        """Re-headed members at their CK queue's head, and those whose queue is now empty."""
        heads, gone = {}, set()
        for key in self.reheaded:
            member, queued = ck_member(key), books[key].queued
            if queued:
                heads[member] = float(queued[0][0])  # the heap's first: the true head
            else:
                gone.add(member)
        return heads, gone

    def _sorted(
        self, read: Sequence[IndexEntry], books: Mapping[str, KeyBook]
    ) -> tuple[list[str], list[float]]:
        members, _, values = columns_of(read)
        scores = dict(zip(members, values, strict=True))
        if self.rescore is not None:
            members, written = self.rescore
            scores.update(zip(members, map(float, written), strict=True))
        heads, gone = self._heads(books)
        scores.update(heads)
        for member in gone:
            scores.pop(member, None)
        # (score, member) pairs: members are unique, so plain tuples sort in Redis's order
        ranked = sorted(zip(scores.values(), scores.keys(), strict=True))
        return list(map(_SECOND, ranked)), list(map(_FIRST, ranked))

    def _after_rescore(
        self, size: int, books: Mapping[str, KeyBook]
    ) -> tuple[list[str], list[float]] | None:
        """The common case in O(K) without a sort: a rescore rewrote every score (its order
        is Redis's order), then a few keys went back to their heads, all below the rescore's
        lowest score. None when that does not hold."""
        if self.rescore is None or len(self.rescore[0]) != size:
            return None
        members, written = self.rescore
        heads, gone = self._heads(books)
        moved = heads.keys() | gone
        if moved:
            kept = [i for i, member in enumerate(members) if member not in moved]
            members, written = [members[i] for i in kept], [written[i] for i in kept]
        front = sorted(zip(heads.values(), heads.keys(), strict=True))
        if front and written and front[-1][0] >= written[0]:
            return None
        head_members, head_scores = [m for _, m in front], [s for s, _ in front]
        return head_members + members, head_scores + list(map(float, written))


class Projections:
    """The writes since ckIndex was last read, and the projections whose reads a trip carries
    (each is confirmed, or reported, when the trip's replies come back)."""

    def __init__(self) -> None:
        self.writes = IndexProjection()
        self._pending: list[tuple[int, IndexPairs]] = []

    def rank_on(
        self, trip: Trip, read: Sequence[IndexEntry], books: Mapping[str, KeyBook]
    ) -> IndexColumns:
        """ckIndex projected from `read` and the writes: what the discipline ranks. The trip
        reads ckIndex right here, where the reference reads it before a rescore."""
        projected = self.writes.project(read, books)
        self._pending.append((trip.read_index(entries=False), projected.pairs))
        self.writes.clear()  # what follows (a rescore, then acks...) applies to the projection
        return projected.entries

    def confirm(self, replies: list[Any], t: int) -> None:
        """Each projection against the read its trip carried: a difference is `ck-index-head`."""
        if not self._pending:  # (none unless a rescoring plan ranked a projection)
            return
        pending, self._pending = self._pending, []
        for slot, projected in pending:
            seen = replies[slot]
            if seen != projected:
                detail = first_difference(seen, projected)
                raise BrokenInvariant(INDEX_AT_HEAD, t, keys_apart(seen, projected), detail)


class Projected(NamedTuple):
    """A projection: the entries the discipline ranks, and the (members, scores) a read of
    ckIndex must return (compared as two lists, without building entries for the read)."""

    entries: IndexColumns
    pairs: IndexPairs


def first_difference(seen: IndexPairs, projected: IndexPairs) -> str:
    """One line on where Redis's ckIndex and the projection part."""
    for i, (a, b) in enumerate(zip(_pairs(seen), _pairs(projected), strict=False)):
        if a != b:
            found, expected = f"{a[0]} at {a[1]:.0f}", f"{b[0]} at {b[1]:.0f}"
            return f"entry {i}: Redis has {found}, expected {expected}"
    return f"Redis has {len(seen[0])} entries, expected {len(projected[0])}"


def keys_apart(seen: IndexPairs, projected: IndexPairs) -> list[str]:
    """The keys whose entries differ between the two."""
    apart = set(_pairs(seen)) ^ set(_pairs(projected))
    return sorted({key_of_member(member) for member, _ in apart})


def _pairs(index: IndexPairs) -> zip[tuple[str, float]]:
    return zip(index[0], index[1], strict=True)
