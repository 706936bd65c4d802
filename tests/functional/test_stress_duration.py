"""`ckviz stress` runs for its --seconds (issue 20 item 15: it stopped after 0.03 s of a
10 s run once the scenario's 180 runs were served), reports latency percentiles per kind of
call and throughput, and writes a results JSON."""

from __future__ import annotations

import json
import random
import threading
from pathlib import Path

import pytest
import redis

from ckviz.cli import main
from ckviz.errors import ExitCode
from ckviz.store.prefix import count_prefix
from ckviz.store.server import RedisServer
from ckviz.stress.latency import Latencies


@pytest.mark.slow
def test_stress_runs_for_its_seconds_and_writes_its_figures(
    redis_server: RedisServer, client: redis.Redis, capsys: pytest.CaptureFixture[str]
) -> None:
    root = f"ckviz-stress-{threading.get_ident()}"
    out = Path("stress-1s.json")
    # a second: the bug stopped at 0.03 s; each second more held a test worker
    args = ["stress", "--redis-url", redis_server.url, "--prefix", root, "--seconds", "1"]
    assert main([*args, "--out", str(out)]) == ExitCode.OK
    printed = capsys.readouterr()
    results = json.loads(out.read_text())
    assert 1 <= results["seconds"] < 1 + 5  # production for 1 s, then the drain
    rounds = results["rounds"]  # the scenario's 180 runs again and again, the last one cut
    assert rounds > 1 and 180 * (rounds - 1) < results["produced"] <= 180 * rounds
    assert results["served"] == results["produced"] and results["ok"] is True
    assert results["dequeues_per_s"] > 0 and results["calls_per_s"] > 0
    assert results["redis"]["version"] == redis_server.version
    for kind in ("dequeue", "enqueue", "watch"):
        call = results["latency"][kind]
        assert call["calls"] > 0 and 0 < call["p50_ms"] <= call["p99_ms"] <= call["max_ms"], kind
    assert sum(c["calls"] for c in results["per_consumer"]) > 0
    assert results["invariants"]["dequeued-once"]["checks"] == results["produced"]
    assert "latency (ms)" in printed.out and "p99" in printed.out
    assert f"results: {out}" in printed.err
    assert count_prefix(client, f"{root}:") == 0
    # the file is not overwritten without --force, and the refusal comes before the run
    assert main([*args, "--out", str(out)]) == ExitCode.USAGE
    assert "already exists" in capsys.readouterr().err


def test_percentiles_from_the_histogram_are_within_two_percent() -> None:
    rng = random.Random(7)
    samples = [rng.lognormvariate(-7, 1.5) for _ in range(20_000)]  # ~1 ms, long tail
    latencies = Latencies()
    for s in samples:
        latencies.record(s)
    got = latencies.summary()
    ordered = sorted(samples)
    for q, value in ((0.50, got.p50_ms), (0.99, got.p99_ms)):
        exact = ordered[int(q * len(ordered)) - 1] * 1000
        assert exact <= value <= exact * 1.021, (q, exact, value)
    assert got.max_ms == max(samples) * 1000 and got.calls == len(samples)
