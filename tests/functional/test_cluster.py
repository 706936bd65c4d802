"""--headless on a real Redis Cluster the test starts (three primaries and a replica from the
embedded server's binary): each cell in one hash slot on its slot's primary, cells spread
over the shards, the same results as on a standalone server, refusals before the first cell."""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from redis.crc import key_slot

from ckviz.store.cluster import cell_tag, cluster_client, layout_slot, route_cells
from ckviz.store.server import RedisServer, find_redis_server
from tests.functional.cli_support import ckviz, without_timing
from tests.functional.cluster_support import (
    LocalCluster,
    _nodes,
    cluster_support,
    free_port,
    local_cluster,
)
from tests.functional.test_app_cli import ckviz_on_a_terminal

REASON = cluster_support()
pytestmark = [
    pytest.mark.skipif(REASON is not None, reason=f"no Redis Cluster here: {REASON}"),
    pytest.mark.xdist_group("test_cluster"),
]
CELLS = [
    "--scenario",
    "ck_trickle",
    "--discipline",
    "baseline",
    "--discipline",
    "sfq",
    "--seeds",
    "seed-a,seed-b",
    "--jobs",
    "2",
]


@pytest.fixture(scope="module")
def cluster() -> Iterator[LocalCluster]:
    with local_cluster(nodes=3, replicas=1) as started:
        yield started
    assert all(p.poll() is not None for p in started.processes)  # every node stopped


def headless(url: str, out: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return ckviz("--headless", "--redis-url", url, "--out", str(out), *args, timeout=300)


def test_a_cells_keys_share_the_slot_of_its_own_tag() -> None:
    prefix = f"ckviz:0123abcd:{cell_tag(7)}:"
    assert layout_slot(prefix) == key_slot(b"7")  # not the layout's {org:o-ck}
    assert layout_slot("ck{x}:0123abcd:{7}:") == key_slot(b"x")  # a root's own tag comes first


def test_cells_spread_over_every_primary(cluster: LocalCluster) -> None:
    client = cluster_client(cluster.url(), 5)
    try:
        routes = route_cells(client, cluster.url(), [f"ckviz:ab:{cell_tag(i)}:" for i in range(12)])
    finally:
        client.close()
    primaries = {f"redis://127.0.0.1:{port}" for port in cluster.ports[:3]}
    assert set(routes.values()) == primaries


@pytest.mark.slow
def test_a_matrix_on_the_cluster_gives_the_standalone_results(
    cluster: LocalCluster, redis_server: RedisServer, tmp_path: Path
) -> None:
    on_cluster = headless(cluster.url(1), tmp_path / "cluster.json", *CELLS)
    assert on_cluster.returncode == 0, on_cluster.stderr
    alone = headless(
        redis_server.url, tmp_path / "alone.json", *CELLS, "--prefix", "ckviz-test-alone"
    )
    assert alone.returncode == 0, alone.stderr
    a = json.loads((tmp_path / "cluster.json").read_text())
    b = json.loads((tmp_path / "alone.json").read_text())
    assert a["complete"] is True and len(a["scenarios"][0]["runs"]) == 4
    assert without_timing(a) == without_timing(b)
    assert [cluster.node(i).dbsize() for i in range(4)] == [0, 0, 0, 0]  # swept everywhere


@pytest.mark.slow
def test_several_consumers_on_the_cluster_give_the_standalone_results(
    cluster: LocalCluster, redis_server: RedisServer, tmp_path: Path
) -> None:
    """Each consumer's connection goes to the primary owning the cell's slot."""
    cells = [*CELLS, "--consumers", "3"]
    on_cluster = headless(cluster.url(2), tmp_path / "cluster.json", *cells)
    assert on_cluster.returncode == 0, on_cluster.stderr
    alone = headless(
        redis_server.url, tmp_path / "alone.json", *cells, "--prefix", "ckviz-test-alone3"
    )
    assert alone.returncode == 0, alone.stderr
    a = json.loads((tmp_path / "cluster.json").read_text())
    b = json.loads((tmp_path / "alone.json").read_text())
    assert all(len(r["metrics"]["per_consumer"]) == 3 for r in a["scenarios"][0]["runs"])
    assert without_timing(a) == without_timing(b)


def test_a_replica_is_refused_before_the_first_cell(cluster: LocalCluster, tmp_path: Path) -> None:
    proc = headless(cluster.url(3), tmp_path / "r.json", *CELLS)
    assert proc.returncode == 3
    (line,) = proc.stderr.splitlines()
    assert line.startswith(
        f"ckviz: error: Redis at --redis-url {cluster.url(3)} is a read-only replica"
    )
    assert not (tmp_path / "r.json").exists()


@pytest.mark.slow
def test_the_app_refuses_a_cluster_in_one_line(cluster: LocalCluster) -> None:
    proc = ckviz_on_a_terminal("--redis-url", cluster.url(), timeout=60)
    assert proc.returncode == 3
    assert proc.stderr.splitlines() == [
        f"ckviz: error: Redis at --redis-url {cluster.url()} is a Redis Cluster node; only "
        "--headless runs on a cluster (the terminal app, hunt and stress need a standalone server)"
    ]


@pytest.mark.slow
def test_a_cluster_not_serving_every_slot_is_refused(tmp_path: Path) -> None:
    folder = Path(tempfile.mkdtemp(prefix="ckviz-cluster-"))
    try:
        with _nodes(find_redis_server(), folder, [free_port()]) as lone:  # no slots assigned
            proc = headless(lone.url(), tmp_path / "r.json", *CELLS)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    assert proc.returncode == 3
    (line,) = proc.stderr.splitlines()
    assert line.startswith(f"ckviz: error: Redis Cluster at {lone.url()}: ")
    assert not (tmp_path / "r.json").exists()
