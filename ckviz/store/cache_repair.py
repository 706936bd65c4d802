"""A trip whose replies hold a refusal: a lost script cache (NOSCRIPT) repaired without
replaying what already took effect, any other refusal raised in one line.

Script calls from the first NOSCRIPT on had no effect, and the reads after them are stale:
the scripts are loaded again and exactly that tail is resent, after undoing a rescore in it
that took effect ahead of the scripts it follows (any other plain write: refused)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from redis.exceptions import NoScriptError, ResponseError

from ckviz.errors import InvariantViolation, RedisUnavailable
from ckviz.store.preflight import raise_refusal
from ckviz.store.scripts import Decoder

Command = tuple[tuple[Any, ...], Decoder, bool]  # args, reply decoder, a script call?
_READS = ("ZRANGE", "SCARD", "SMEMBERS", "ZCARD", "EXISTS", "ZMSCORE")
_is_noscript = NoScriptError.__instancecheck__


def _ignore(reply: Any) -> None:
    return None


def repaired(
    commands: list[Command],
    replies: list[Any],
    load_scripts: Callable[[], None],
    roundtrip: Callable[[list[Command]], list[Any]],
) -> list[Any]:
    """A trip's replies once a lost script cache is repaired (`load_scripts`, then the tail
    resent by `roundtrip`); any other refusal raised."""
    if any(map(_is_noscript, replies)):
        failed = next(i for i, r in enumerate(replies) if isinstance(r, NoScriptError))
        undo = undo_writes(commands[failed:], replies[failed:])
        load_scripts()
        replies[failed:] = roundtrip(undo + commands[failed:])[len(undo) :]
    for (args, _, _), reply in zip(commands, replies, strict=True):
        if isinstance(reply, ResponseError):
            raise_refusal(reply, str(args[0]))
            raise InvariantViolation(f"redis rejected {args[0]}: {reply}")
    return replies


def undo_writes(tail: Sequence[Command], replies: Sequence[Any]) -> list[Command]:
    """Commands that put back what the tail's plain writes changed, latest first. Only a ZADD
    right after a full read of its key can be undone (the read holds the scores it replaced)."""
    undo: list[Command] = []
    for i in reversed(range(len(tail))):
        args, _, scripted = tail[i]
        if scripted or args[0] in _READS:
            continue
        read = tail[i - 1][0] if i else ()
        if args[0] != "ZADD" or read != ("ZRANGE", args[1], 0, -1, "WITHSCORES"):
            raise RedisUnavailable(
                f"Redis lost its script cache (SCRIPT FLUSH or a restart) in the middle of a"
                f" trip whose {args[0]} had already taken effect: it cannot be replayed exactly"
            )
        before = dict(zip(replies[i - 1][0::2], replies[i - 1][1::2], strict=True))
        for member in args[3::2]:
            if member in before:
                undo.append((("ZADD", args[1], before[member], member), _ignore, False))
            else:
                undo.append((("ZREM", args[1], member), _ignore, False))
    return undo
