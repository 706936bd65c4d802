"""Before the first cell, on a server someone else may own: is the URL sane, is the server one
ckviz can write to (not a replica; a cluster node is told apart), and could ckviz's writes
evict its keys? Also: the server's refusals, named by cause, and URLs shown without their
password."""

from __future__ import annotations

import re
import urllib.parse
from collections.abc import Callable

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
    ("can't run this command or subcommand", "NOPERM"),  # Redis 6.2, inside a script
    ("OOM command not allowed", "OOM"),
    ("READONLY", "READONLY"),
    ("CROSSSLOT", "CROSSSLOT"),
)


def redact(url: str) -> str:
    """`url` as it may be printed: any password replaced by `***`, whatever the URL's form (in
    the user part, even holding an un-encoded `#`, `/`, `?` or `@`; or as `?password=` in the
    query, redis-py's form and the only one for unix://). The user name is kept. Worked on the
    text, not a parse: a URL that does not parse is the one most likely to show a password."""
    shown = _QUERY_PASSWORD.sub(r"\1***", _redact_user_part(url))
    head, sep, _ = shown.partition("#")  # no URL has a fragment: what follows is a password's
    return f"{head}#***" if sep else shown


def url_secrets(url: str) -> list[str]:
    """The passwords `url` holds (user part and query), as written and percent-decoded."""
    found = [m.group(2) for m in _QUERY_PASSWORD.finditer(url) if m.group(2)]
    user_part = _user_part(url)
    if user_part and ":" in user_part[1]:
        found.append(user_part[1].split(":", 1)[1])
    found += [urllib.parse.unquote(s) for s in found]
    return sorted({s for s in found if s}, key=len, reverse=True)


# `password=` in a query (any case), up to the next `&`: the `#` of a password un-encoded in
# the query stays hidden too.
_QUERY_PASSWORD = re.compile(r"(?i)([?&;]password=)([^&;]*)")


def _user_part(url: str) -> tuple[str, str] | None:
    """(what comes before the user part, the user part) if the URL has one: everything from
    `scheme://` to the LAST `@` (a password may hold `@`, `/`, `?` or `#` un-encoded)."""
    scheme, sep, rest = url.partition("://")
    head = scheme + sep if sep else ""
    rest = rest if sep else url
    at = rest.rfind("@")
    return (head, rest[:at]) if at >= 0 else None


def _redact_user_part(url: str) -> str:
    found = _user_part(url)
    if found is None or ":" not in found[1]:
        return url  # no user part, or a user name alone (redis-py reads it as the user)
    head, user_part = found
    user = user_part.split(":", 1)[0]
    return f"{head}{user}:***{url[len(head) + len(user_part) :]}"


def check_url(url: str, source: str) -> None:
    """A URL ckviz can use, else a one-line UsageError naming `source` (flag or env var)."""
    shown = redact(url)
    try:
        parts = urllib.parse.urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError on a bad port
    except ValueError:  # its words may quote a piece of the password: not shown
        raise UsageError(
            f"{source}: {shown!r} is not a valid URL (a port that is not a number, or a "
            "password holding an un-encoded '/', '?', '#' or '@': percent-encode it)"
        ) from None
    if parts.fragment or ("@" not in parts.netloc and "@" in parts.path):
        raise UsageError(
            f"{source}: {shown!r} is not a valid URL (an un-encoded '#', or a user or password "
            "holding an un-encoded '/', '?' or '#': percent-encode it, e.g. %23 for '#')"
        )
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


def check_eviction(client: redis.Redis, need: Callable[[int], int], shown: str) -> None:
    """Refuse where ckviz's writes could make the server evict keys that are not its own.
    `need(free bytes)` (the bytes ckviz may hold at once) is asked only of a server that
    evicts."""
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
    needed = need(max(0, limit - used))
    if used + needed > limit:
        mib = 1024 * 1024
        raise ServerRefused(
            f"Redis at {shown} evicts keys ({policy}) and has {(limit - used) / mib:.1f} MiB "
            f"free of maxmemory {limit / mib:.1f} MiB; ckviz may need up to "
            f"{needed / mib:.1f} MiB, so its writes could evict keys that are not its own; pass "
            "--allow-eviction-risk to run anyway"
        )


def evicted_keys(client: redis.Redis) -> int | None:
    """The server's count of keys it has evicted since it started; None if it will not say."""
    try:
        return int(client.info("stats").get("evicted_keys", 0))
    except (redis.RedisError, OSError, ValueError):
        return None


def _line(exc: BaseException) -> str:
    lines = str(exc).strip().splitlines()
    return lines[0] if lines else type(exc).__name__
