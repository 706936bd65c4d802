"""Where the Redis server comes from: one ckviz starts itself, one named by URL, or Docker."""

from __future__ import annotations

import contextlib
import os
import re
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import redis
from redis.cluster import RedisCluster
from redis.driver_info import DriverInfo

from ckviz.errors import RedisUnavailable, ServerRefused, UsageError, echo, first_line
from ckviz.store.binary import ServerBinary, choose_redis_server
from ckviz.store.binary import find_redis_server as find_redis_server
from ckviz.store.cluster import cluster_client
from ckviz.store.launch import die_with_parent as die_with_parent
from ckviz.store.launch import launch, started_early, take_early
from ckviz.store.preflight import check_url, check_writable, raise_refusal, redact

RedisMode = Literal["embedded", "url", "docker"]
_START_TIMEOUT_S = 10.0
_FIRST_LOOK_S = 0.001  # a server starts in a few ms: look again after 1 ms, then 2, 4... 20
_LOOK_AT_MOST_S = 0.02
ENV_TIMEOUT = "CKVIZ_REDIS_TIMEOUT"
DEFAULT_TIMEOUT_S = 30.0
PREFLIGHT_TIMEOUT_S = 5.0  # a --redis-url that does not answer at once is said so soon


@dataclass(frozen=True, slots=True)
class RedisServer:
    """A reachable server: how to connect, how it was obtained, and what it runs."""

    url: str
    mode: RedisMode
    version: str
    pid: int | None = None  # set only for a server ckviz started itself
    source: str = "--redis-url"  # where a URL came from: the flag or CKVIZ_REDIS_URL
    cluster: bool = False  # a Redis Cluster node: cells run on their slots' primaries
    binary: ServerBinary | None = None  # set only for a server ckviz started itself

    @property
    def described(self) -> str:
        """One line for the run's header: which server, its version, and why this one."""
        if self.binary is not None:
            return (
                f"redis: embedded redis-server {self.version} at {self.binary.path} "
                f"({self.binary.why})"
            )
        given = self.source if self.mode == "url" else f"--redis {self.mode}"
        return f"redis: Redis {self.version} at {self.shown_url} ({given})"

    @property
    def shown_url(self) -> str:
        """The URL as it may be printed: never with its password."""
        return redact(self.url)

    def client(self, **kwargs: object) -> redis.Redis:
        """A connection to the server (in a cluster: to the node the URL names)."""
        return connect(self.url, **kwargs)

    def keyspace(self) -> redis.Redis | RedisCluster:
        """A client that sees every key: in a cluster, across all primaries (to claim and
        sweep a namespace); else the plain connection."""
        return cluster_client(self.url, redis_timeout()) if self.cluster else self.client()


def connect(url: str, **kwargs: object) -> redis.Redis:
    """A decoded-response client for `url` (redis://, rediss:// or unix://)."""
    timeout = redis_timeout()
    options: dict[str, object] = {
        "decode_responses": True,
        "socket_timeout": timeout,
        "socket_connect_timeout": timeout,
        "protocol": 2,
        # what redis-py names itself to the server (CLIENT SETINFO), given as it would find
        # it: it otherwise looks its own version up in the installed packages' metadata for
        # every connection (~1 ms each, and the zip files it opens are left to the collector)
        "driver_info": DriverInfo(name="redis-py", lib_version=redis.__version__),
    }
    options.update(kwargs)
    return redis.Redis.from_url(url, **options)


def redis_timeout(default: float = DEFAULT_TIMEOUT_S) -> float:
    """Seconds to wait for a reply before giving the server up: env CKVIZ_REDIS_TIMEOUT, else
    `default` (30; the first contact with a --redis-url server, 5)."""
    text = os.environ.get(ENV_TIMEOUT, "").strip()
    if not text:
        return default
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not 0 < value <= 3600:
        raise UsageError(f"{ENV_TIMEOUT}: expected seconds in (0, 3600], got {text!r}")
    return value


@contextlib.contextmanager
def embedded_server(binary: Path | None = None) -> Iterator[RedisServer]:
    """A private redis-server on a unix socket, without persistence (the one started early,
    if any and no `binary` is named: store/launch.py), once it answers; stopped on exit."""
    chosen = (
        choose_redis_server() if binary is None else ServerBinary(binary, "given by its caller")
    )
    started = (take_early() if binary is None else None) or launch(chosen.path)
    try:
        version = _wait_until_ready(started.url, started.process, started.workdir)
        yield RedisServer(
            url=started.url,
            mode="embedded",
            version=version,
            pid=started.process.pid,
            binary=chosen,
        )
    finally:
        started.stop()


def server_started_early(mode: str, url: str | None) -> contextlib.AbstractContextManager[None]:
    """Start the embedded server now, when `mode` and `url` say it will be used (no URL), for
    the next `embedded_server()` inside to take; stopped on leaving."""
    if url or mode != "embedded":
        return contextlib.nullcontext()
    return started_early(find_redis_server)


def _wait_until_ready(url: str, process: subprocess.Popen[bytes], workdir: Path) -> str:
    deadline = time.monotonic() + _START_TIMEOUT_S
    pause = _FIRST_LOOK_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            log = (workdir / "redis.log").read_text(errors="replace").strip().splitlines()
            reason = log[-1] if log else f"exit code {process.returncode}"
            raise RedisUnavailable(f"embedded redis-server failed to start: {reason}")
        with contextlib.suppress(redis.RedisError, OSError):
            return server_version(connect(url, socket_timeout=1))
        time.sleep(pause)
        pause = min(2 * pause, _LOOK_AT_MOST_S)
    raise RedisUnavailable(f"embedded redis-server did not answer within {_START_TIMEOUT_S:.0f}s")


def server_version(client: redis.Redis) -> str:
    info = client.info("server")
    return str(info.get("redis_version", "unknown"))


def server_run_id(client: redis.Redis) -> str | None:
    """The server process's random id (`INFO server` run_id), new at every start: the same
    address answering with another id is a restarted server, its memory empty. None where a
    Redis-compatible server gives none."""
    run_id = client.info("server").get("run_id")
    return str(run_id) if run_id else None


@contextlib.contextmanager
def url_server(
    url: str, source: str = "--redis-url", allow_cluster: bool = False
) -> Iterator[RedisServer]:
    """An existing server named by URL: it must answer and take writes (no replica; a cluster
    only where `allow_cluster`, and then one serving every slot). `source` names where the
    URL came from, for the error lines."""
    check_url(url, source)
    shown = f"{source} {redact(url)}"
    timeout = redis_timeout(default=PREFLIGHT_TIMEOUT_S)
    try:
        client = connect(url, socket_timeout=timeout, socket_connect_timeout=timeout)
    except (TypeError, ValueError) as exc:  # redis-py reads the query's options here
        raise UsageError(f"{shown}: {_bad_option(exc)}") from None
    try:
        with _cut_after(client, timeout) as cut:
            version, cluster = _preflight(client, shown, cut)
    finally:
        client.close()
    if cluster:
        _check_cluster(url, shown, allow_cluster)
    yield RedisServer(url=url, mode="url", version=version, source=source, cluster=cluster)


def _bad_option(exc: Exception) -> str:
    """redis-py's words for a URL option it cannot take, as one line naming the option."""
    unknown = re.search(r"unexpected keyword argument '([^']*)'", str(exc))
    if unknown:
        return f"unknown query parameter '{echo(unknown[1])}' (redis-py takes none by that name)"
    return first_line(exc)


def _preflight(client: redis.Redis, shown: str, cut: threading.Event) -> tuple[str, bool]:
    """The server's version, and whether it is a cluster node (a replica refused)."""
    try:
        version = server_version(client)
        return version, check_writable(client, shown)
    except TypeError as exc:  # a query option redis-py passes on to the connection
        raise UsageError(f"{shown}: {_bad_option(exc)}") from None
    except (redis.RedisError, OSError, ValueError, RedisUnavailable) as exc:
        if cut.is_set() or isinstance(exc, (redis.TimeoutError, TimeoutError)):
            raise RedisUnavailable(
                f"cannot reach Redis at {shown}: no whole reply within "
                f"{client.get_connection_kwargs()['socket_timeout']:g} s ({ENV_TIMEOUT}): "
                "the server answers too slowly or without end"
            ) from None
        if isinstance(exc, RedisUnavailable):
            raise
        raise_refusal(exc, f"ckviz at {shown}")
        raise RedisUnavailable(f"cannot reach Redis at {shown}: {first_line(exc)}") from None


@contextlib.contextmanager
def _cut_after(client: redis.Redis, seconds: float) -> Iterator[threading.Event]:
    """Close the client's socket after `seconds` in all: redis-py's timeout is per read, so
    a server trickling a byte at a time, or streaming a reply without end, would hold the
    preflight forever. The event says the cut happened."""
    cut = threading.Event()

    def close() -> None:
        cut.set()
        pool = client.connection_pool  # the pool's connections are not public: look, gently
        in_use = list(getattr(pool, "_in_use_connections", ()))
        for conn in in_use + list(getattr(pool, "_available_connections", ())):
            sock = getattr(conn, "_sock", None)
            if sock is not None:
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)

    timer = threading.Timer(seconds, close)
    timer.daemon = True
    timer.start()
    try:
        yield cut
    finally:
        timer.cancel()


def _check_cluster(url: str, shown: str, allowed: bool) -> None:
    if not allowed:
        raise ServerRefused(
            f"Redis at {shown} is a Redis Cluster node; only --headless runs on a cluster "
            "(the terminal app, hunt and stress need a standalone server)"
        )
    if url.startswith("unix:"):
        raise ServerRefused(f"Redis at {shown} is a cluster node: give a redis:// URL")
    cluster_client(url, redis_timeout()).close()  # refuses a cluster not serving every slot


@contextlib.contextmanager
def docker_server() -> Iterator[RedisServer]:
    """A throwaway Redis container via testcontainers, where a Docker engine is available."""
    try:
        from testcontainers.redis import RedisContainer
    except ImportError:
        raise RedisUnavailable(
            "--redis docker needs the docker extra: uv run --extra docker ckviz ..., "
            "or pip install 'ckviz[docker]'"
        ) from None
    try:
        container = RedisContainer("redis:7-alpine")
        container.start()
    except Exception as exc:  # docker-py raises many unrelated types when no engine runs
        raise RedisUnavailable(
            f"--redis docker: no usable Docker engine ({first_line(exc)})"
        ) from None
    try:
        host = container.get_container_host_ip()
        port = container.get_exposed_port(6379)
        url = f"redis://{host}:{port}/0"
        yield RedisServer(url=url, mode="docker", version=server_version(connect(url)))
    finally:
        container.stop()


def open_server(
    mode: str = "embedded",
    url: str | None = None,
    source: str = "--redis-url",
    allow_cluster: bool = False,
) -> contextlib.AbstractContextManager[RedisServer]:
    """The server for this invocation: a URL wins, else `mode` ('embedded' or 'docker')."""
    if url:
        return url_server(url, source, allow_cluster)
    if mode == "docker":
        return docker_server()
    if mode == "embedded":
        return embedded_server()
    raise RedisUnavailable(f"--redis {mode}: expected 'embedded' or 'docker'")
