"""`ckviz watch`, `capture` and `whatif` on a Redis Cluster (issue 34 item 6): each queue's
keys share one hash slot, so each queue lives on one primary; discovery scans every primary
and a queue is read (and its notices followed) on the node that holds it."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from redis.crc import key_slot

from ckviz.live.producer import Producer
from tests.functional.cli_support import ckviz, exits
from tests.functional.cluster_support import LocalCluster, cluster_support, local_cluster
from tests.functional.live_support import Traffic, live_queue, server_now_ms

REASON = cluster_support()
pytestmark = pytest.mark.skipif(REASON is not None, reason=f"no Redis Cluster here: {REASON}")
PREFIX = "live:"


@pytest.fixture(scope="module")
def cluster() -> Iterator[LocalCluster]:
    with local_cluster(nodes=3) as started:
        yield started
    assert all(p.poll() is not None for p in started.processes)  # every node stopped


def owner(cluster: LocalCluster, key: str) -> int:
    """The node whose slots hold `key` (the slots are split evenly, in node order)."""
    return min(2, key_slot(key.encode()) // (16384 // 3))


def test_queues_on_different_primaries_are_found_and_read_where_they_are(
    cluster: LocalCluster, capsys: pytest.CaptureFixture[str]
) -> None:
    placed: dict[int, str] = {}  # node -> a tag whose slot it owns
    for n in range(200):
        placed.setdefault(owner(cluster, f"{{t{n}}}"), f"t{n}")
    assert len(placed) == 3
    for node, tag in placed.items():
        client = cluster.node(node)
        queue = live_queue(f"{PREFIX}{{{tag}}}:", name=f"task/on-node-{node}")
        producer = Producer(client, queue, env_limit=4)
        producer.open()
        Traffic(producer, []).arrive(["a:1", "b"], server_now_ms(client) - 1000)
    code, out, err = exits(["watch", "--redis-url", cluster.url(0), "--prefix", PREFIX], capsys)
    assert (code, err) == (0, "")
    assert sorted(line.split("  ")[0].split(": ")[1] for line in out.splitlines()) == [
        "task/on-node-0",
        "task/on-node-1",
        "task/on-node-2",
    ]
    args = ["watch", "--redis-url", cluster.url(0), "--prefix", PREFIX, "--queue", "on-node-2"]
    code, out, err = exits([*args, "--once", "--json"], capsys)
    assert (code, err) == (0, "")
    picture = json.loads(out)
    assert picture["index_total"] == 2
    assert [p["key"] for p in picture["next_order"]] == ["a:1", "b"]


@pytest.mark.slow
def test_capture_and_whatif_find_a_queue_on_its_primary(
    cluster: LocalCluster, tmp_path: Path
) -> None:
    """capture (by notices, on the node holding the queue) and whatif, given another node's URL."""
    tag = next(f"c{n}" for n in range(200) if owner(cluster, f"{{c{n}}}") == 1)
    prefix = f"{PREFIX}{{{tag}}}:"
    queue = live_queue(prefix, name="task/captured")
    producer = Producer(cluster.node(1), queue, env_limit=4)
    producer.open()
    traffic = Traffic(producer, [])
    now = server_now_ms(cluster.node(1))
    traffic.arrive(["a:1"], now - 1000)
    out = tmp_path / "trace.csv"
    args = ["--redis-url", cluster.url(0), "--prefix", prefix, "--queue", "task/captured"]
    proc = subprocess.Popen(
        [sys.executable, "-m", "ckviz", "capture", *args, "--seconds", "60", "--out", str(out)],
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stderr is not None
    assert proc.stderr.readline().startswith("capturing"), proc.stderr.read()
    traffic.arrive(["b", "a:1"], now)
    traffic.serve(2, now + 10)
    traffic.finish(1)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    rows = [line.split(",")[:4] for line in out.read_text().splitlines()[1:] if line[0] != "#"]
    assert sorted(row[3] for row in rows[1:]) == ["run_000001", "run_000002", "run_000003"]
    done = ckviz(
        "whatif",
        *args,
        "--headless",
        "--discipline",
        "baseline",
        "--hold-ms",
        "10",
        "--out",
        str(tmp_path / "r.json"),
    )
    assert done.returncode == 0, done.stderr
    assert "1 runs queued, 1 held" in done.stderr  # b's run held, its variant out of ckIndex
