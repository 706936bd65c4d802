"""Attaching to a watched server: a connection named `ckviz-watch` (CLIENT SETNAME, the one
CLIENT command a watcher sends), and on a cluster one per primary (each queue lives on the
node owning its org's hash tag). Nothing here writes; the URL is shown redacted everywhere.
"""

from __future__ import annotations

import redis
from redis.exceptions import RedisClusterException

from ckviz.errors import RedisUnavailable, ServerRefused, first_line, keep_secret
from ckviz.store.cluster import node_url
from ckviz.store.preflight import redact, url_secrets
from ckviz.store.server import connect

CLIENT_NAME = "ckviz-watch"
Node = tuple[str, redis.Redis]  # (its URL, a client on it)


def attach(url: str) -> list[Node]:
    """Clients on the server `url` names, one per primary on a cluster."""
    keep_secret(*url_secrets(url))
    client = _named(url)
    try:
        cluster = client.info("cluster").get("cluster_enabled") == 1
    except redis.exceptions.NoPermissionError as exc:
        raise ServerRefused(f"{redact(url)} refused INFO: {first_line(exc)}") from None
    except (redis.RedisError, OSError) as exc:
        raise RedisUnavailable(f"cannot read {redact(url)}: {first_line(exc)}") from None
    if not cluster:
        return [(url, client)]
    client.close()
    return [(node, _named(node)) for node in _primaries(url)]


def _named(url: str) -> redis.Redis:
    try:
        # no CLIENT SETINFO: SETNAME is the one; bytes that are not UTF-8 (a message, a key
        # someone else wrote) are read as they are, not a reply that cannot be decoded
        client = connect(url, driver_info=None, encoding_errors="surrogateescape")
        client.client_setname(CLIENT_NAME)
    except redis.exceptions.AuthenticationError as exc:
        raise ServerRefused(f"{redact(url)} refused the login: {first_line(exc)}") from None
    except redis.exceptions.NoPermissionError:
        return client  # the name is a courtesy: a user without CLIENT SETNAME still reads
    except (redis.RedisError, OSError, ValueError) as exc:
        raise RedisUnavailable(f"cannot connect to {redact(url)}: {first_line(exc)}") from None
    return client


def _primaries(url: str) -> list[str]:
    """Every primary's URL (credentials as `url`'s): the cluster's topology, read once."""
    from redis.cluster import RedisCluster

    try:
        cluster = RedisCluster.from_url(
            url, decode_responses=True, socket_timeout=5, driver_info=None
        )
        nodes = [node_url(url, n.host, int(n.port)) for n in cluster.get_primaries()]  # type: ignore[no-untyped-call]
        cluster.close()
    except (redis.RedisError, RedisClusterException, OSError) as exc:
        raise ServerRefused(
            f"Redis Cluster at {redact(url)}: cannot read its nodes ({first_line(exc)}; a "
            "read-only user also needs +cluster|slots)"
        ) from None
    return sorted(nodes)
