"""Where a command's keys live: open the server, check that ckviz's writes cannot evict anyone
else's keys, claim a namespace, and sweep it on the way out. Every command that writes to a
server (the app, --headless, hunt, stress) goes through `open_workspace`, so none skips a step.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from dataclasses import dataclass

import redis

from ckviz.defaults import ROOT_PREFIX
from ckviz.errors import KeysLeft
from ckviz.outputs.interrupts import ForcedQuit
from ckviz.sim.cell.footprint import Need
from ckviz.sim.cell.namespace import claim_namespace, sweep_namespace
from ckviz.store.cluster import Keyspace
from ckviz.store.preflight import check_eviction, evicted_keys
from ckviz.store.server import RedisServer, open_server


@dataclass(frozen=True, slots=True)
class ServerChoice:
    """Which server and namespace, as the shared Redis flags said."""

    mode: str = "embedded"  # --redis, when no URL is given
    url: str | None = None
    source: str = "--redis-url"  # where the URL came from: the flag or CKVIZ_REDIS_URL
    root: str = ROOT_PREFIX  # --prefix
    reuse_prefix: bool = False
    allow_eviction_risk: bool = False


@dataclass(slots=True)
class Workspace:
    """An open server with a claimed namespace. After the `with`, `left` says what the sweep
    could not delete (None: nothing, or an embedded server that goes away with its keys) and
    `evicted` how many keys the server evicted meanwhile (counted only when the eviction
    check was waived: --allow-eviction-risk)."""

    server: RedisServer
    client: redis.Redis
    keyspace: Keyspace
    namespace: str
    left: str | None = None
    evicted: int | None = None

    def raise_left(self) -> None:
        """Exit 4 with the sweep's line when keys remain on a server that stays."""
        if self.left:
            raise KeysLeft(self.left)


@contextlib.contextmanager
def open_workspace(
    choice: ServerChoice, need: Need, allow_cluster: bool = False
) -> Iterator[Workspace]:
    with open_server(choice.mode, choice.url, choice.source, allow_cluster) as server:
        client = server.client()
        keyspace = server.keyspace() if server.cluster else client
        try:
            namespace = claim_namespace(keyspace, choice.root, choice.reuse_prefix)
            workspace = Workspace(server, client, keyspace, namespace)
            counted: int | None = None
            try:
                counted = _check_eviction(workspace, choice, need)
                yield workspace
            finally:
                try:
                    workspace.evicted = _evicted_since(client, counted)
                    left = sweep_namespace(keyspace, namespace)
                except ForcedQuit:  # stop asked for again, insisting: say what may remain
                    left = f"keys under '{namespace}' may remain (the sweep was interrupted)"
                workspace.left = None if server.mode == "embedded" else left
        finally:
            client.close()
            if keyspace is not client:
                keyspace.close()


def _check_eviction(workspace: Workspace, choice: ServerChoice, need: Need) -> int | None:
    """Refuse a server whose eviction could reach others' keys; with the check waived, the
    server's evicted-keys count now (to tell how many it evicted during the run)."""
    server = workspace.server
    if server.mode != "url":
        return None  # a server ckviz started, or a throwaway container: nobody else's keys
    if choice.allow_eviction_risk:
        return evicted_keys(workspace.client)
    shown = f"{server.source} {server.shown_url}"
    namespace = workspace.namespace
    sample_on = None if server.cluster else workspace.client  # a node may not own its slot
    check_eviction(workspace.client, lambda free: need(sample_on, namespace, free), shown)
    return None


def _evicted_since(client: redis.Redis, before: int | None) -> int | None:
    if before is None:
        return None
    now = evicted_keys(client)
    if now is None:
        return None
    grown = max(0, now - before)
    if grown:
        print(
            f"ckviz: warning: the server evicted {grown} keys during the run "
            "(--allow-eviction-risk): some may have been others'",
            file=sys.stderr,
        )
    return grown
