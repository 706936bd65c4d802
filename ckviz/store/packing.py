"""A trip's packet: each command's RESP bytes, made by hiredis in C, or ahead of the trip from
parts packed once where the arguments repeat trip after trip.

A trip's client time is mostly Python, ~100 us of it per trip, and packing its ~50 arguments
anew was a twentieth of that: the queue's own keys and constants, the same ckIndex members,
packed again for every call. What is packed ahead carries its bytes (`Packed`); `pack` joins
them with the others'. Every packed command's bytes are those hiredis packs of its arguments
(a unit test holds them equal), so the server sees the same commands.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

_hiredis_pack: Callable[..., bytes] | None
try:
    from hiredis import pack_command as _hiredis_pack
except ImportError:  # pragma: no cover - hiredis is a dependency, but optional for redis-py
    _hiredis_pack = None

PACKED_KEPT = 64  # different dequeue (and small rescore) commands a queue keeps packed
SMALL_RESCORE = 64  # members: a rescore up to this size is kept packed whole (Rescores)
BULKS_KEPT = 200_000  # arguments of rescores a queue keeps packed (Rescores)
SMALL_READ = 128  # ARGV entries: a read-only call up to this size is kept packed whole (Reads)


class Packed(tuple[Any, ...]):
    """A command's arguments that also carry their RESP bytes (`packed`)."""

    resp: bytes


def packed(args: tuple[Any, ...]) -> tuple[Any, ...]:
    """`args`, packed once for every trip that sends them (with hiredis; as they are else)."""
    if _hiredis_pack is None:
        return args
    command = Packed(args)
    command.resp = _hiredis_pack(args)
    return command


def pack(conn: Any, commands: list[tuple[Any, ...]]) -> Any:
    """One RESP packet for all commands. hiredis packs our plain str/int arguments in C;
    redis-py's own packer (the fallback) spends most of a trip's client time on type checks."""
    if _hiredis_pack is None:
        return conn.pack_commands(commands)
    each = _hiredis_pack
    return [b"".join([c.resp if type(c) is Packed else each(c) for c in commands])]


def bulk(arg: str | int) -> bytes:
    """One argument as a RESP bulk string (text in UTF-8, a number in decimal), as hiredis
    packs it."""
    data = str(arg).encode()
    return b"$%d\r\n%s\r\n" % (len(data), data)


def bulk_strings(args: tuple[str | int, ...]) -> bytes:
    """`args` as RESP bulk strings one after the other (no array header), as hiredis packs
    them within a command."""
    if _hiredis_pack is None:
        return b"".join(map(bulk, args))
    command = _hiredis_pack(args)
    return command[command.index(b"\n") + 1 :]  # after the array's header, *N\r\n


class Bulks(dict[str | int, bytes]):
    """The RESP bulk string of each argument seen, made on first sight (`packed_pairs`)."""

    def __missing__(self, arg: str | int) -> bytes:
        made = self[arg] = bulk(arg)
        return made


class DequeueCommands(dict[tuple[int, int], tuple[Any, ...]]):
    """A queue's dequeue commands by (room, now). Only those two vary (the rest is the queue's,
    set when it is made), trip after trip the same ones: each is built and packed on first
    sight (packing was a tenth of a trip's client time), and found again by a lookup made in
    C; the last PACKED_KEPT different ones are kept."""

    def __init__(self, sha: str, keys: tuple[str, ...], prefix: str, tail: tuple[Any, ...]) -> None:
        super().__init__()
        self._head = ("EVALSHA", sha, len(keys), *keys, prefix)  # then now and the room
        self._tail = tail  # the env limit, the shared constants, the lifecycle's, the door's

    def __missing__(self, room_now: tuple[int, int]) -> tuple[Any, ...]:
        if len(self) >= PACKED_KEPT:
            self.clear()
        room, now = room_now
        command = self[room_now] = packed((*self._head, now, room, *self._tail))
        return command


def packed_pairs(
    head: tuple[str, ...], pairs: tuple[Sequence[int], Sequence[str]], bulks: Bulks
) -> tuple[Any, ...]:
    """`head` then the (score, member) pairs, as a command carrying its RESP bytes made from
    `bulks`: a rescore's ZADD names every key on every serve attempt, always the same members
    and mostly the same scores, and hiredis packed its 2K arguments anew each time (a third of
    sfq's client time at 1,000 keys)."""
    scores, members = pairs
    args: list[Any] = [*head, *([None] * (2 * len(members)))]
    args[len(head) :: 2], args[len(head) + 1 :: 2] = scores, members
    if _hiredis_pack is None:
        return tuple(args)
    parts: list[bytes] = [b"*%d\r\n" % len(args), *map(bulks.__getitem__, head)]
    parts += map(bulks.__getitem__, args[len(head) :])
    command = Packed(args)
    command.resp = b"".join(parts)
    return command


class Rescores(dict[tuple[tuple[str, ...], tuple[int, ...]], tuple[Any, ...]]):
    """A queue's rescore ZADDs. One of at most SMALL_RESCORE members is kept whole, by its
    (members, scores), and found again by a lookup made in C: nearly every one repeats one
    made before (the same order at the same scores: 96% of the default matrix's, where
    `packed_pairs` took ~2 us of a trip's client time for a ZADD of two members). The first
    PACKED_KEPT different ones are kept (not the last: a run whose rescores keep changing
    would pack each anew and keep it for nothing). A larger one, or one not kept, is packed
    from its arguments' bulk strings (`packed_pairs`; the last BULKS_KEPT arguments kept)."""

    def __init__(self, index_key: str) -> None:
        super().__init__()
        self._head = ("ZADD", index_key)
        self._bulks = Bulks()

    def command(self, members: Sequence[str], scores: Sequence[int]) -> tuple[Any, ...]:
        """ZADD the `members`, each at its score in `scores`."""
        if len(members) > SMALL_RESCORE:
            return self._packed(members, scores)
        seen = (tuple(members), tuple(scores))
        command = self.get(seen)
        if command is None:
            command = self._packed(members, scores)
            if len(self) < PACKED_KEPT:
                self[seen] = command
        return command

    def _packed(self, members: Sequence[str], scores: Sequence[int]) -> tuple[Any, ...]:
        if len(self._bulks) > BULKS_KEPT:  # members and scores: a lifecycle's `now` moves on
            self._bulks.clear()
        return packed_pairs(self._head, (scores, members), self._bulks)


class Reads(dict[tuple[str, tuple[str, ...], tuple[Any, ...]], tuple[Any, ...]]):
    """A queue's read-only script calls (the checks' digest, a discipline's state read) of at
    most SMALL_READ ARGV entries, kept whole by (script, KEYS, ARGV) and found again by a
    lookup made in C. Their KEYS are the queue's and their ARGV names the keys a trip touched:
    nearly every one repeats one made before (96% of the default matrix's). The first
    PACKED_KEPT different ones are kept; the others (a trip's touched keys among thousands
    change every trip) are packed by hiredis with the trip (`pack`), as if never looked for."""

    def command(self, sha: str, keys: tuple[str, ...], argv: tuple[Any, ...]) -> tuple[Any, ...]:
        """The call of the script `sha` on `keys` with `argv`."""
        if len(argv) > SMALL_READ:
            return ("EVALSHA", sha, len(keys), *keys, *argv)
        seen = (sha, keys, argv)
        command = self.get(seen)
        if command is None:
            command = ("EVALSHA", sha, len(keys), *keys, *argv)
            if len(self) < PACKED_KEPT:
                command = self[seen] = packed(command)
        return command
