"""`ckviz watch` on a Redis Cluster (issue 34 item 6): each queue's keys share one hash slot,
so each queue lives on one primary; discovery scans every primary and a queue is read on the
node that holds it."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from redis.crc import key_slot

from ckviz.live.producer import Producer
from tests.functional.cli_support import exits
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
