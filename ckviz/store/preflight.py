"""Before the first cell, on a server someone else may own: is the URL sane, is the server one
ckviz can write to (not a replica; a cluster node is told apart), and could ckviz's writes
evict its keys? Also: the server's refusals, named by cause, and URLs shown without their
password."""

from __future__ import annotations

import urllib.parse
from dataclasses import dataclass

import redis

from ckviz.errors import RedisUnavailable, ServerRefused, UsageError

SCHEMES = ("redis", "rediss", "unix")
# Redis error prefixes that mean "this server will not let ckviz do that": not ckviz's bug.
_CAUSES = {
    "NOPERM": "permission denied by the server's ACL",
    "NOAUTH": "the server needs a password",
    "WRONGPASS": "wrong user name or password",
    "OOM": "the server is out of memory (maxmemory reached, policy noeviction)",
    "READONLY": "the server is a read-only replica",
    "CROSSSLOT": "the server is a Redis Cluster (keys in different slots)",
    "MOVED": "the server is a Redis Cluster (key lives on another node)",
    "ASK": "the server is a Redis Cluster (slot migrating)",
    "CLUSTERDOWN": "the server is a Redis Cluster that is down",
    "MISCONF": "the server refuses writes (MISCONF: it cannot persist)",
}
_CLASSES = (
    (redis.exceptions.NoPermissionError, "NOPERM"),
    (redis.exceptions.ReadOnlyError, "READONLY"),
    (redis.exceptions.OutOfMemoryError, "OOM"),
    (redis.exceptions.AuthenticationError, "WRONGPASS"),
    (redis.exceptions.ClusterCrossSlotError, "CROSSSLOT"),
    (redis.exceptions.ClusterDownError, "CLUSTERDOWN"),
    (redis.exceptions.MovedError, "MOVED"),
    (redis.exceptions.AskError, "ASK"),
)
_WRAPPED = (
    ("NOPERM", "NOPERM"),
    ("no permissions to run", "NOPERM"),
    ("OOM command not allowed", "OOM"),
    ("READONLY", "READONLY"),
    ("CROSSSLOT", "CROSSSLOT"),
)
# Bytes per queued run (message string + zset entries; about 410 measured as used_memory growth
# with all of ck_skew enqueued) and per key (its CK queue, held set and index entry), rounded up.
BYTES_PER_RUN = 640
BYTES_PER_KEY = 2048
BYTES_FIXED = 256 * 1024  # the scripts, env keys, connections' buffers


def redact(url: str) -> str:
    """`url` with any password replaced by `***` (the user name is kept)."""
    try:
        parts = urllib.parse.urlsplit(url)
    except ValueError:
        return "<unparsable URL>"
    if parts.password is None:
        return url
    user = parts.username or ""
    host = parts.netloc.rsplit("@", 1)[1]
    return urllib.parse.urlunsplit(parts._replace(netloc=f"{user}:***@{host}"))


def check_url(url: str, source: str) -> None:
    """A URL ckviz can use, else a one-line UsageError naming `source` (flag or env var)."""
    shown = redact(url)
    try:
        parts = urllib.parse.urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError on a bad port
    except ValueError as exc:
        raise UsageError(f"{source}: {shown!r} is not a valid URL ({exc})") from None
    if parts.scheme not in SCHEMES:
        raise UsageError(
            f"{source}: {shown!r} is not a Redis URL (expected redis://, rediss:// or unix://)"
        )
    db = parts.path.strip("/") if parts.scheme != "unix" else ""
    query_db = urllib.parse.parse_qs(parts.query).get("db", [])
    for text in ([db] if db else []) + query_db:
        if not text.isdigit():
            raise UsageError(f"{source}: database {text!r} in {shown!r} is not a number")


def refusal(exc: BaseException) -> str | None:
    """The cause of a server error that is the server's policy, or None (ckviz's own bug)."""
    # redis-py strips the error code off the message of the errors it has a class for
    prefix = next((code for cls, code in _CLASSES if isinstance(exc, cls)), None)
    text = str(exc)
    prefix = prefix or text.split(" ", 1)[0].upper()
    cause = _CAUSES.get(prefix)
    for needle, code in _WRAPPED:  # a refusal inside a script arrives wrapped in its error
        if cause is None and needle in text:
            cause = _CAUSES[code]
    return f"{cause}: {_line(exc)}" if cause else None


def raise_refusal(exc: BaseException, doing: str) -> None:
    """Raise ServerRefused for a refusal by policy; return for anything else."""
    cause = refusal(exc)
    if cause:
        raise ServerRefused(f"Redis refused {doing}: {cause}") from None


def check_writable(client: redis.Redis, shown: str) -> bool:
    """Refuse a replica up front, with one line, before anything is written; True if the
    server is a Redis Cluster node (ckviz then routes each cell to its slot's primary)."""
    try:
        replication = client.info("replication")
        cluster = client.info("cluster")
    except redis.ResponseError as exc:
        raise ServerRefused(f"Redis at {shown}: cannot read INFO ({_line(exc)})") from None
    except (redis.RedisError, OSError) as exc:
        raise RedisUnavailable(f"Redis at {shown}: {_line(exc)}") from None
    if replication.get("role") == "slave":
        raise ServerRefused(
            f"Redis at {shown} is a read-only replica (of {replication.get('master_host')}:"
            f"{replication.get('master_port')}); point ckviz at the primary"
        )
    return str(cluster.get("cluster_enabled", "0")) == "1"


@dataclass(frozen=True, slots=True)
class Footprint:
    """How much memory ckviz's keys may take at once: every cell in flight, all runs queued."""

    runs: int  # the largest runs-at-once over the cells that run together
    keys: int

    @property
    def bytes(self) -> int:
        return self.runs * BYTES_PER_RUN + self.keys * BYTES_PER_KEY + BYTES_FIXED


def check_eviction(client: redis.Redis, footprint: Footprint, shown: str) -> None:
    """Refuse where ckviz's writes could make the server evict keys that are not its own."""
    try:
        memory = client.info("memory")
    except redis.RedisError as exc:
        raise ServerRefused(
            f"Redis at {shown}: cannot read INFO memory to rule out eviction ({_line(exc)}); "
            "pass --allow-eviction-risk to run anyway"
        ) from None
    limit = int(memory.get("maxmemory", 0) or 0)
    policy = str(memory.get("maxmemory_policy", "noeviction"))
    used = int(memory.get("used_memory", 0) or 0)
    if limit <= 0 or policy == "noeviction":
        return  # no eviction: at worst a write is refused with OOM, which ckviz reports
    need = footprint.bytes
    if used + need > limit:
        mib = 1024 * 1024
        raise ServerRefused(
            f"Redis at {shown} evicts keys ({policy}) and has {(limit - used) / mib:.1f} MiB "
            f"free of maxmemory {limit / mib:.1f} MiB; ckviz may need up to {need / mib:.1f} MiB, "
            "so its writes could evict keys that are not its own; pass --allow-eviction-risk to "
            "run anyway"
        )


def _line(exc: BaseException) -> str:
    lines = str(exc).strip().splitlines()
    return lines[0] if lines else type(exc).__name__
