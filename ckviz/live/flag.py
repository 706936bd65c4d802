"""Which dequeue serves a live queue: the baseline's, or vtime's (SPEC-live 1: the flag on
writes `Q:ckVtime` and its floor, the flag off writes neither).

The keys alone do not tell: a queue whose flag was rolled back keeps its ckVtime keys for up to
a day (their TTL) while the baseline's dequeue serves it. What tells stale keys from live ones
is **a run enqueued after ckVtime was last written**: every flag-on enqueue registers its key
and sets ckVtime's TTL to a day again (a serving dequeue too), so ckVtime's PTTL dates the last
vtime write, and a first attempt (its timestamp is no later than its enqueue) due more than
LATE_MS after that date was enqueued without writing it. The heads read are looked at: those on
screen, those the next order reaches, and ckIndex's newest (the run most likely to be recent).
The margin covers the app servers' clocks (a run's timestamp) against Redis's (the TTL); a
retried run (attempt above 0, queued again at a later timestamp) is no sign.

A queued key with no tag is no sign on its own: the flag turned on leaves the keys queued
before it untagged until a vtime dequeue meets them, as a rollback leaves the keys queued after
it. No sign: vtime. The picture says which, and from what (`LivePicture.discipline_from`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ckviz.errors import echo
from ckviz.live.order import span

STATE_TTL_MS = 86_400_000  # the TTL vtime's scripts give ckVtime and its floor (a day)
LATE_MS = 60_000  # how much later than ckVtime's last write a run must be to count
NO_VTIME = "no ckVtime keys"  # how the flag told from their absence begins


@dataclass(frozen=True, slots=True)
class Flag:
    """The discipline the queue's dequeue runs, and what that was told from."""

    discipline: str  # "baseline" or "vtime"
    why: str


@dataclass(frozen=True, slots=True)
class Head:
    """A due head whose message was read: its key, run, score and attempt."""

    key: str
    run: str
    score: float
    attempt: int


def last_written(pttl_ms: int, now_ms: float) -> float | None:
    """When vtime's scripts last set the key's TTL (None: no TTL, or none of theirs)."""
    if not 0 <= pttl_ms <= STATE_TTL_MS:
        return None
    return now_ms - (STATE_TTL_MS - pttl_ms)


def infer_flag(
    has_keys: bool,
    pttl_ms: int,
    heads: Sequence[Head],
    now_ms: float,
) -> Flag:
    """The flag, from whether the queue has ckVtime keys, their PTTL (ckVtime's, else its
    floor's) and the due heads read."""
    if not has_keys:
        return Flag("baseline", f"{NO_VTIME}: the flag is off")
    last = last_written(pttl_ms, now_ms)
    if last is None:
        return Flag("vtime", "ckVtime's keys exist (with no TTL of vtime's to date them)")
    late = [h for h in heads if h.attempt == 0 and last + LATE_MS < h.score <= now_ms]
    if late:
        first = max(late, key=lambda h: h.score)
        return Flag(
            "baseline",
            f"run {echo(first.run)!r} (key {echo(first.key)!r}) was enqueued "
            f"{span(first.score - last)} after ckVtime was last written: enqueued with the flag "
            f"off; its ckVtime keys are stale{_expiry(pttl_ms)}",
        )
    return Flag(
        "vtime",
        f"ckVtime last written {span(now_ms - last)} before the read, "
        "after every first attempt read was enqueued",
    )


def _expiry(pttl_ms: int) -> str:
    if pttl_ms < 0:
        return ""
    left = f"{pttl_ms / 3_600_000:.1f} h" if pttl_ms >= 3_600_000 else span(pttl_ms)
    return f" (they expire in {left})"
