"""The invariant rules on hand-made digests: each broken rule is reported by name."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from ckviz.model.invariants import (
    CK_INDEX,
    DEQUEUED_ONCE,
    ENDS_EMPTY,
    ENV_LIMIT,
    FLOOR_MONOTONE,
    INVARIANTS,
    LENGTH_COUNTER,
    MASTER_QUEUE,
    NAMES,
    ONE_PLACE,
    PER_KEY_LIMIT,
    SERVED_ALL,
    TAG_MONOTONE,
    TOTAL_CAP,
    BrokenInvariant,
    checked_by,
)
from ckviz.model.snapshot import DequeueEvent
from ckviz.sim.engine.invariants import InvariantChecker
from ckviz.sim.engine.ledger import KeyBook
from ckviz.store.digest import NO_COUNTER, NOT_INDEXED, QueueDigest, decode_digest
from ckviz.store.keys import ck_member


@dataclass
class Books:
    """The parts of a ledger the checker reads: two keys, `a` with 3 runs and `b` with 1."""

    t: int = 7
    books: dict[str, KeyBook] = field(default_factory=dict)
    dequeues: list[DequeueEvent] = field(default_factory=list)  # counted only
    total_runs: int = 4
    held_count: int = 1
    queued_count: int = 2
    to_arrive_count: int = 1
    queued_keys: int = 1
    nacks: int = 0
    seeded: int = 0  # runs held from a forked start
    dead_lettered: set[str] = field(default_factory=set)
    expired: set[str] = field(default_factory=set)

    def __post_init__(self) -> None:
        # a: 1 dequeued and held, 2 queued; b: not arrived yet
        self.books = {
            "a": KeyBook(1.0, queued=[(1, "a~0#1"), (2, "a~0#2")], dequeued=1, held=1),
            "b": KeyBook(1.0, to_arrive=1),
        }
        self.dequeues = [DequeueEvent("a", "a~0#0", 0, 0)]


def checker(**limits: int) -> InvariantChecker:
    return InvariantChecker(
        limits.get("env", 4), limits.get("per_key"), limits.get("total"), {"a": 3, "b": 1}
    )


def good() -> QueueDigest:
    return QueueDigest(
        env_held=1,
        env_queued=2,
        master_has_member=True,
        index_size=1,
        index_listed=True,
        queues={"a": (2, 1)},
        length_counter=2,
    )


def broken(digest: QueueDigest, books: Books | None = None, **limits: int) -> BrokenInvariant:
    with pytest.raises(BrokenInvariant) as caught:
        checker(**limits).check(books or Books(), digest, 7)  # type: ignore[arg-type]
    return caught.value


def test_a_consistent_digest_passes() -> None:
    c = checker()
    c.check(Books(), good(), 7)  # type: ignore[arg-type]
    assert c.checks == 1


def with_(**changes: object) -> QueueDigest:
    return good()._replace(**changes)


@pytest.mark.parametrize(
    ("digest", "limits", "invariant", "keys"),
    [
        (with_(master_has_member=False), {}, MASTER_QUEUE, ()),
        (
            with_(index_size=0, queues={"a": (NOT_INDEXED, 1)}, master_has_member=False),
            {},
            CK_INDEX,
            ("a",),
        ),
        (with_(queues={"a": (0, 1)}, env_queued=0), {}, ONE_PLACE, ()),
        (with_(queues={"a": (2, 1), "zed": (NOT_INDEXED, 0)}), {}, CK_INDEX, ("zed",)),
        (with_(queues={"a": (1, 1)}), {}, ONE_PLACE, ("a",)),
        (with_(queues={"a": (2, 2)}, env_held=2), {}, ONE_PLACE, ()),
        (with_(env_queued=3), {}, ONE_PLACE, ()),
        (with_(env_held=2), {}, ONE_PLACE, ()),
        (good(), {"env": 1, "per_key": 1, "total": 1}, None, ()),
        # past the listing limit only named keys are counted: no sums, but the index size
        (with_(index_listed=False, queues={}), {}, None, ()),
        (with_(index_listed=False, queues={}, index_size=2), {}, CK_INDEX, ()),
        (with_(index_listed=False, queues={"a": (2, 0)}), {}, ONE_PLACE, ("a",)),
        (with_(index_size=2, queues={"a": (2, 1), "c": (0, 0)}), {}, CK_INDEX, ("c",)),
        # the counter the reference's scripts keep: the runs queued (issue 35)
        (with_(length_counter=3), {}, LENGTH_COUNTER, ()),
        (with_(length_counter=NO_COUNTER), {}, LENGTH_COUNTER, ()),
    ],
)
def test_each_broken_rule_is_named(
    digest: QueueDigest, limits: dict[str, int], invariant: str | None, keys: tuple[str, ...]
) -> None:
    if invariant is None:
        checker(**limits).check(Books(), digest, 7)  # type: ignore[arg-type]
        return
    err = broken(digest, None, **limits)
    assert err.invariant == invariant and err.keys == keys and err.t == 7
    assert str(err).startswith(f"invariant {invariant} broken at t=7 ms")


def test_limits_are_checked_against_what_redis_holds() -> None:
    books = Books()
    books.books["a"].held = books.books["a"].dequeued = 2
    books.books["a"].queued.pop()
    books.dequeues.append(DequeueEvent("a", "a~0#1", 0, 0))
    books.held_count, books.queued_count = 2, 1
    digest = with_(env_held=2, env_queued=1, queues={"a": (1, 2)}, length_counter=1)
    checker().check(books, digest, books.t)  # type: ignore[arg-type]
    assert broken(digest, books, per_key=1).invariant == PER_KEY_LIMIT


def test_env_limit_and_total_cap() -> None:
    books = Books()
    books.books["b"] = KeyBook(1.0, dequeued=1, held=1)
    books.dequeues.append(DequeueEvent("b", "b~0#0", 0, 0))
    books.held_count, books.to_arrive_count = 2, 0
    digest = with_(env_held=2, queues={"a": (2, 1), "b": (NOT_INDEXED, 1)})
    checker(per_key=1).check(books, digest, books.t)  # type: ignore[arg-type]
    assert broken(digest, books, env=1).invariant == ENV_LIMIT
    assert broken(digest, books, total=1).invariant == TOTAL_CAP


def test_an_empty_ck_queue_left_in_the_index_is_named() -> None:
    books = Books()
    books.books["a"].queued.clear()
    books.queued_count = 0
    books.to_arrive_count = 3  # keep the global balance: 3 + 0 + 1 + 0
    books.books["a"].to_arrive = 2
    books.queued_keys = 0
    err = broken(with_(env_queued=0, queues={"a": (0, 1)}), books)
    assert err.invariant == CK_INDEX and err.keys == ("a",)


def test_a_run_dequeued_twice_is_named() -> None:
    c = checker()
    c.on_dequeued(3, "a", "a~0#0")
    with pytest.raises(BrokenInvariant) as caught:
        c.on_dequeued(5, "a", "a~0#0")
    assert caught.value.invariant == DEQUEUED_ONCE and "a~0#0" in str(caught.value)


def test_books_that_lose_a_run_are_named() -> None:
    books = Books()
    books.to_arrive_count = 0  # b's run vanished from the books
    assert broken(good(), books).invariant == ONE_PLACE


def test_decode_digest_keeps_colons_and_unicode_in_keys() -> None:
    reply = [1, 2, 1, 1, 1, 2, ck_member("tenant:42"), 2, 1, ck_member("café-☕"), NOT_INDEXED, 0]
    d = decode_digest(reply)
    assert d.length_counter == 2
    assert d.queues == {"tenant:42": (2, 1), "café-☕": (NOT_INDEXED, 0)}
    assert (d.env_held, d.env_queued, d.master_has_member, d.index_size) == (1, 2, True, 1)


def test_every_invariant_has_a_distinct_name_and_a_harness() -> None:
    assert len(set(NAMES)) == len(NAMES) == len(INVARIANTS) == 17
    assert all(i.checked_by and i.rule for i in INVARIANTS)
    assert checked_by("stress") == (
        DEQUEUED_ONCE,
        SERVED_ALL,
        PER_KEY_LIMIT,
        ENV_LIMIT,
        FLOOR_MONOTONE,
        TAG_MONOTONE,
        ENDS_EMPTY,
    )


def test_limits_right_after_a_dequeue() -> None:
    c = checker(per_key=2, total=3)
    c.within_limits(1, "a", 2, 3)
    for args, invariant in [
        ((1, "a", 3, 3), PER_KEY_LIMIT),
        ((1, "a", 1, 4), TOTAL_CAP),
        ((1, "a", 1, 5), ENV_LIMIT),
    ]:
        with pytest.raises(BrokenInvariant) as caught:
            c.within_limits(*args)
        assert caught.value.invariant == invariant and caught.value.keys == ("a",)


def swept_books() -> Books:
    """`a`'s two queued runs expired by the TTL sweep: one held, nothing queued."""
    books = Books(queued_count=0, queued_keys=0, expired={"a~0#1", "a~0#2"})
    books.books["a"] = KeyBook(1.0, dequeued=1, held=1, expired=2)
    return books


def test_after_a_sweep_the_master_member_may_stay_until_a_script_fixes_it() -> None:
    # SPEC-lifecycle 4.3: the sweep does not touch the master queue
    stale = QueueDigest(
        env_held=1,
        env_queued=0,
        master_has_member=True,
        index_size=0,
        index_listed=True,
        queues={"a": (NOT_INDEXED, 1)},
    )
    c, books = checker(), swept_books()
    c.check(books, stale, 7)  # type: ignore[arg-type]
    c.check(books, stale, 8)  # type: ignore[arg-type]  # no fixing script ran yet
    c.check(books, stale._replace(master_has_member=False), 9)  # type: ignore[arg-type]
    with pytest.raises(BrokenInvariant) as caught:  # fixed once, stale again: broken
        c.check(books, stale, 10)  # type: ignore[arg-type]
    assert caught.value.invariant == MASTER_QUEUE and caught.value.t == 10
