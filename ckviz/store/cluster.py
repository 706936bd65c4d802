"""Redis Cluster: each cell's keys share one hash slot, so every script call stays in one slot
and a cell runs on the primary that owns it, over a plain connection; the namespace is
claimed and swept on every primary through redis-py's cluster client.

Redis hashes the part of a key between the FIRST `{` and the next `}`: a cell's prefix carries
its own tag (`<root>:<random>:{<cell>}:`), which comes before the layout's `{org:...}` and so
wins. A root given with braces of its own puts its tag first: every cell then shares one slot
(still correct, only not spread over the shards).
"""

from __future__ import annotations

import urllib.parse
from collections.abc import Iterable

import redis
from redis.cluster import RedisCluster
from redis.crc import key_slot
from redis.exceptions import RedisClusterException

from ckviz.errors import RedisUnavailable, ServerRefused, first_line
from ckviz.store.keys import KeyLayout
from ckviz.store.preflight import redact

Keyspace = redis.Redis | RedisCluster  # what claims and sweeps a namespace


def cell_tag(index: int) -> str:
    """The hash tag a cell's prefix carries."""
    return f"{{{index}}}"


def cluster_client(url: str, timeout: float) -> RedisCluster:
    """A cluster-aware client from any node's URL; a cluster that cannot serve every slot, or
    answers oddly, is refused in one line."""
    shown = redact(url)
    try:
        client = RedisCluster.from_url(
            url,
            decode_responses=True,
            socket_timeout=timeout,
            socket_connect_timeout=timeout,
            require_full_coverage=True,
        )
        info = client.cluster_info()
    except (redis.RedisError, RedisClusterException, OSError, ValueError, KeyError) as exc:
        raise ServerRefused(
            f"Redis Cluster at {shown}: cannot use it ({first_line(exc)})"
        ) from None
    state = info.get("cluster_state") if isinstance(info, dict) else None
    if state != "ok":
        client.close()
        raise ServerRefused(
            f"Redis Cluster at {shown} is not serving (cluster_state {state}: are all 16384 "
            "slots assigned and every primary up?)"
        )
    return client


def layout_slot(prefix: str) -> int:
    """The one slot every key of a cell under `prefix` hashes to; ServerRefused if the layout
    would spread them (a script call would fail with CROSSSLOT half-way through a run)."""
    layout = KeyLayout(prefix)
    samples = [
        layout.ck_index,
        layout.env_held,
        layout.env_limit,
        layout.env_queue,
        layout.master_queue,
        layout.queue_limit,
        layout.base_key("ckState"),  # a discipline's state key
        layout.message("r"),
        layout.ck_queue("key"),
        layout.ck_held("key{x}"),
    ]
    slots = {key_slot(k.encode()) for k in samples}
    if len(slots) != 1:
        raise ServerRefused(
            f"a cell's keys under {prefix!r} would span {len(slots)} hash slots; pick a --prefix "
            "without braces"
        )
    return slots.pop()


def route_cells(client: RedisCluster, url: str, prefixes: Iterable[str]) -> dict[str, str]:
    """Each cell prefix -> the URL of the primary owning its slot (scheme and credentials as
    `url`'s). Every primary that owns a cell must answer as a writable primary."""
    routes: dict[str, str] = {}
    for prefix in prefixes:
        node = client.get_node_from_key(KeyLayout(prefix).ck_index)  # type: ignore[no-untyped-call]
        if node is None:
            raise ServerRefused(
                f"Redis Cluster at {redact(url)}: no node owns the slot of {prefix}"
            )
        layout_slot(prefix)
        routes[prefix] = node_url(url, node.host, int(node.port))
    for target in sorted(set(routes.values())):
        _check_primary(target)
    return routes


def node_url(url: str, host: str, port: int) -> str:
    """`url` pointed at another node: same scheme, user and password, database 0."""
    parts = urllib.parse.urlsplit(url)
    auth = parts.netloc.rsplit("@", 1)[0] + "@" if "@" in parts.netloc else ""
    where = f"[{host}]" if ":" in host else host
    return urllib.parse.urlunsplit((parts.scheme, f"{auth}{where}:{port}", "", "", ""))


def _check_primary(url: str) -> None:
    client = redis.Redis.from_url(
        url, decode_responses=True, socket_timeout=5, socket_connect_timeout=5
    )
    try:
        role = client.info("replication").get("role")
    except (redis.RedisError, OSError) as exc:
        raise RedisUnavailable(f"Redis Cluster node {redact(url)}: {first_line(exc)}") from None
    finally:
        client.close()
    if role != "master":
        raise ServerRefused(f"Redis Cluster node {redact(url)} owns a cell's slot but is a {role}")
