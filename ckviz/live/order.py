"""The order the next dequeue call would take, worked out from one refresh's reads by the
dequeue scripts' own rules (ckviz's `store/lua/dequeue.lua`, and vtime's HEAD `dequeue.lua`
when the queue keeps tags), each candidate with why.

Baseline: the env's room and the call's batch give a budget; the first budget x SCAN_FACTOR
ckIndex members due by `now` are looked at, lowest score first; a variant at its limit is
passed over, a due head is taken, at most one run per variant. vtime: pass 1 walks the lowest
tags (2 x window of them), a gated or not-ready variant costing nothing of the window's
budget; pass 2 walks ckIndex in age order for variants pass 1 did not try.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ckviz.disciplines.vtime.knobs import VtimeKnobs
from ckviz.live.picture import Limits, NextPick, VariantRow
from ckviz.model.arithmetic import SCAN_FACTOR
from ckviz.model.decision import TOP, shown

WINDOW_MULTIPLIER = VtimeKnobs().window  # the reference's default (a knob)


class Unread(Exception):
    """The order reached a variant whose row (or due head's message) was not read yet."""

    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


@dataclass(frozen=True, slots=True)
class Room:
    """What the next call may take: its budget, or why nothing."""

    take: int
    note: str


def room(limits: Limits, env_held: int, batch: int) -> Room:
    """The call's budget: its batch, within the env's free capacity."""
    free = limits.env_capacity - env_held
    if free <= 0:
        return Room(
            0,
            f"the env is full ({env_held} of {limits.env_capacity} held): "
            "the next dequeue takes nothing",
        )
    return Room(min(batch, free), "")


def span(ms: float) -> str:
    """A wait as a person reads it: `840 ms`, `3.5 s`, `2 min 5 s`."""
    if abs(ms) < 1000:
        return f"{ms:.0f} ms"
    if abs(ms) < 60_000:
        return f"{ms / 1000:.1f} s"
    minutes, seconds = divmod(round(abs(ms) / 1000), 60)
    return f"{'-' if ms < 0 else ''}{minutes} min {seconds} s"


def walk(
    discipline: str,
    tags: Sequence[tuple[str, float]],
    index: Sequence[tuple[str, float]],
    take: int,
    now: float,
) -> list[str]:
    """The variants the next call may look at, in the order it looks at them (at most)."""
    window = take * WINDOW_MULTIPLIER
    due = [key for key, score in index if score <= now]
    if discipline == "vtime":
        return list(dict.fromkeys([key for key, _ in tags[: 2 * window]] + due))
    return due[: take * SCAN_FACTOR]


def reads_needed(batch: int) -> tuple[int, int]:
    """(ckIndex entries, vtime tags) a refresh must read to work out a call of `batch`."""
    window = batch * WINDOW_MULTIPLIER
    return max(window, batch * SCAN_FACTOR), 2 * window


class _Call:
    """One simulated call: the picks so far, in the order it looks at variants."""

    def __init__(
        self,
        variants: Mapping[str, VariantRow],
        limits: Limits,
        now: float,
        orphans_dropped: bool = False,
        complete: bool = True,
    ) -> None:
        self.variants, self.limits, self.now = variants, limits, now
        self.complete = complete  # False: a variant not in `variants` is unread, not empty
        self.orphans_dropped = orphans_dropped  # vtime's dequeue drops a head without a message
        self.picks: list[NextPick] = []
        self.served = 0

    def try_variant(self, key: str, rank: tuple[tuple[str, float | int], ...], lead: str) -> str:
        """Look at one variant as the script does; its fate."""
        row = self.variants.get(key)
        if row is None and not self.complete:
            raise Unread(key)
        limit = self.limits.variant_limit
        if row is not None and row.held >= limit:
            self._add(key, "limit", None, rank, f"at its limit: holds {row.held} of {limit}")
            return "limit"
        if row is None or row.head_score is None:
            self._add(key, "empty", None, rank, "no run queued when read")
            return "empty"
        if row.head_score > self.now:
            due = span(row.head_score - self.now)
            self._add(key, "not-ready", None, rank, f"head not due for {due}")
            return "not-ready"
        if row.head_expires_ms is not None and row.head_expires_ms <= self.now:
            self._add(key, "expired", None, rank, "its head's TTL ran out: dropped, not served")
            return "expired"
        if self.orphans_dropped and not row.head_message:
            self._add(key, "orphan", None, rank, "its head has no message: dropped")
            return "orphan"
        self.served += 1
        waited = span(self.now - row.head_score)
        self._add(key, "served", row.head_run, rank, f"{lead}; its head waited {waited}")
        return "served"

    def passed(
        self, key: str, fate: str, rank: tuple[tuple[str, float | int], ...], why: str
    ) -> None:
        self._add(key, fate, None, rank, why)

    def _add(
        self,
        key: str,
        fate: str,
        run: str | None,
        rank: tuple[tuple[str, float | int], ...],
        why: str,
    ) -> None:
        self.picks.append(NextPick(key, fate, run, rank, why))


def baseline_order(
    index: Sequence[tuple[str, float]],
    variants: Mapping[str, VariantRow],
    limits: Limits,
    take: int,
    now: float,
    complete: bool = True,
) -> tuple[NextPick, ...]:
    """The baseline dequeue's order: `index` is ckIndex's first entries (concurrency key,
    score), lowest first. Not `complete`: a variant it reaches that `variants` lacks raises
    Unread (the reader reads it and asks again)."""
    due = [(key, score) for key, score in index if score <= now]
    window = take * SCAN_FACTOR
    call = _Call(variants, limits, now, complete=complete)
    for i, (key, score) in enumerate(due):
        rank = (("ckIndex score", score),)
        if i >= window + TOP:
            break
        if i >= window:
            call.passed(key, "outside-window", rank, f"past the {window} entries looked at")
            continue
        if call.served >= take:
            call.passed(key, "batch-full", rank, f"the batch of {take} is full")
            continue
        lead = "oldest head left" if call.served else "oldest head"
        call.try_variant(key, rank, lead)
    return tuple(call.picks)


def vtime_order(
    tags: Sequence[tuple[str, float]],
    index: Sequence[tuple[str, float]],
    variants: Mapping[str, VariantRow],
    limits: Limits,
    take: int,
    now: float,
    complete: bool = True,
) -> tuple[NextPick, ...]:
    """vtime HEAD's order: `tags` is ckVtime's first entries (concurrency key, tag) in its
    order (tag, then name), `index` ckIndex's (`complete`: as baseline_order's)."""
    window = take * WINDOW_MULTIPLIER
    scan = tags[: 2 * window]
    call = _Call(variants, limits, now, orphans_dropped=True, complete=complete)
    budget, tried = window, set()
    for i, (key, tag) in enumerate(scan):
        rank = (("pass", 1), ("tag", tag))
        if call.served >= take or budget <= 0:
            for later, later_tag in scan[i : i + TOP]:
                call.passed(
                    later,
                    "outside-window",
                    (("pass", 1), ("tag", later_tag)),
                    "past pass 1's window",
                )
            break
        tried.add(key)
        fate = call.try_variant(key, rank, f"pass 1: lowest tag left ({shown(tag)})")
        if fate not in ("limit", "not-ready"):
            budget -= 1
    due = [(key, score) for key, score in index if score <= now][: max(window, take * SCAN_FACTOR)]
    for key, score in due:
        if key in tried:
            continue
        rank = (("pass", 2), ("ckIndex score", score))
        if call.served < take:
            call.try_variant(key, rank, "pass 2: oldest head without a turn in pass 1")
        elif len(call.picks) < take + TOP:
            call.passed(key, "batch-full", rank, f"the batch of {take} is full")
    return tuple(call.picks)
