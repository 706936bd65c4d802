"""A real three-node Redis Cluster on loopback, started by the tests from the same binary as
the embedded server, slots assigned by hand (no redis-cli needed), stopped by pid."""

from __future__ import annotations

import contextlib
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import redis

from ckviz.store.server import find_redis_server
from tests.waiting import within

SLOTS = 16384
_READY_S = 20.0


@dataclass
class LocalCluster:
    ports: list[int]
    processes: list[subprocess.Popen[bytes]] = field(default_factory=list)

    def url(self, i: int = 0) -> str:
        return f"redis://127.0.0.1:{self.ports[i]}"

    def node(self, i: int) -> redis.Redis:
        return redis.Redis(port=self.ports[i], decode_responses=True, socket_timeout=5)


def free_port() -> int:
    """A loopback port whose cluster bus port (port + 10000) is free too."""
    for _ in range(50):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        if port + 10000 < 65536 and _free(port + 10000):
            return port
    raise RuntimeError("no free port pair for a cluster node")


def _free(port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def cluster_support() -> str | None:
    """None if the binary runs in cluster mode, else why not (the reason a test is skipped)."""
    binary = find_redis_server()
    folder = Path(tempfile.mkdtemp(prefix="ckviz-cluster-probe-"))
    try:
        with _nodes(binary, folder, [free_port()]) as cluster:
            info = cluster.node(0).info("cluster")
            if str(info.get("cluster_enabled")) != "1":
                return f"{binary} does not run in cluster mode"
    except (OSError, RuntimeError, redis.RedisError) as exc:
        return f"{binary} cannot start a cluster node: {exc}"
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return None


@contextlib.contextmanager
def _nodes(binary: Path, folder: Path, ports: list[int]) -> Iterator[LocalCluster]:
    cluster = LocalCluster(ports)
    try:
        for port in ports:
            command = [
                str(binary),
                "--port",
                str(port),
                "--bind",
                "127.0.0.1",
                "--cluster-enabled",
                "yes",
                "--cluster-config-file",
                f"nodes-{port}.conf",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                str(folder),
                "--daemonize",
                "no",
                "--logfile",
                f"node-{port}.log",
            ]
            cluster.processes.append(
                subprocess.Popen(
                    command,
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                    start_new_session=True,
                )
            )
        for i in range(len(ports)):
            _wait(lambda i=i: cluster.node(i).ping())
        yield cluster
    finally:
        for process in cluster.processes:  # ours, by handle
            process.terminate()
        for process in cluster.processes:
            try:
                process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


@contextlib.contextmanager
def local_cluster(nodes: int = 3, replicas: int = 0) -> Iterator[LocalCluster]:
    """`nodes` primaries sharing the slots evenly (plus `replicas` replicas of the first), up
    and agreed (cluster_state:ok on every node) before it is handed out."""
    binary = find_redis_server()
    folder = Path(tempfile.mkdtemp(prefix="ckviz-cluster-"))
    ports = [free_port() for _ in range(nodes + replicas)]
    try:
        with _nodes(binary, folder, ports) as cluster:
            per = SLOTS // nodes
            for i in range(nodes):
                end = SLOTS if i == nodes - 1 else (i + 1) * per
                cluster.node(i).execute_command("CLUSTER", "ADDSLOTS", *range(i * per, end))
            for i in range(1, len(ports)):
                cluster.node(0).execute_command("CLUSTER", "MEET", "127.0.0.1", ports[i])
            _wait(lambda: all(_knows_all(cluster.node(i), len(ports)) for i in range(len(ports))))
            first = cluster.node(0).execute_command("CLUSTER", "MYID")
            for i in range(nodes, len(ports)):
                cluster.node(i).execute_command("CLUSTER", "REPLICATE", first)
            _wait(
                lambda: all(
                    cluster.node(i).info("cluster") and _state_ok(cluster.node(i))
                    for i in range(len(ports))
                )
            )
            yield cluster
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _knows_all(node: redis.Redis, count: int) -> bool:
    text = node.execute_command("CLUSTER", "NODES")
    lines = [line for line in str(text).splitlines() if line.strip()]
    return len(lines) == count and all("handshake" not in line for line in lines)


def _state_ok(node: redis.Redis) -> bool:
    return "cluster_state:ok" in str(node.execute_command("CLUSTER", "INFO"))


def _wait(ready: Callable[[], object]) -> None:
    last: list[Exception] = []

    def holds() -> object:
        try:
            return ready()
        except (redis.RedisError, OSError) as exc:
            last[:] = [exc]
            return False

    if not within(holds, _READY_S):
        raise RuntimeError(f"the local cluster did not come up in {_READY_S:.0f}s ({last})")
