"""`ckviz capture` on a queue running traffic (a producer thread writing while the capture, a
subprocess as a user runs it, reads), on Redis 6.2 and 7: the trace replays to the workload's
arrivals exactly and its holds within the capture's stated precision, by notices and by
polling; Ctrl-C and SIGTERM end it with a valid trace; a queue that vanishes; a server that
goes away (exit 3, the trace kept); an existing --out; and a read-only ACL user."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest
import redis
from redis.connection import parse_url

from ckviz.inputs.trace import read_trace
from ckviz.inputs.trace_stream import replay
from ckviz.live.capture import Capture, poll_once, read_start
from ckviz.live.names import LiveQueue
from ckviz.model.queue import PlannedRun
from ckviz.store.messages import message_payload
from ckviz.store.prefix import delete_prefix
from ckviz.store.runqueue import RunQueue, Trip
from ckviz.store.server import RedisServer, embedded_server
from tests.conftest import REDIS_7
from tests.functional.capture_support import Producer, trace_header, workload
from tests.functional.cli_support import ckviz_here
from tests.functional.live_support import QUEUE_NAME, read_only_user, with_user
from tests.functional.servers import redis_server  # noqa: F401  (6.2 and 7)

QUEUE = QUEUE_NAME


@pytest.fixture
def server(request: pytest.FixtureRequest) -> RedisServer:
    """The test's server: 6.2, then 7 (servers.py's `redis_server`, by its name)."""
    found: RedisServer = request.getfixturevalue("redis_server")
    return found


def start_capture(
    url: str, prefix: str, out: Path, *more: str, cpus: set[int] | None = None
) -> subprocess.Popen[str]:
    """`ckviz capture` in a subprocess (on `cpus` only, if given), returned once it has read
    the queue's start."""
    args = ["capture", "--redis-url", url, "--prefix", prefix]
    if "--queue" not in more:
        args += ["--queue", QUEUE]
    proc = subprocess.Popen(
        [sys.executable, "-m", "ckviz", *args, "--out", str(out), *more],
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=None if cpus is None else (lambda: os.sched_setaffinity(0, cpus)),
    )
    assert proc.stderr is not None
    first = proc.stderr.readline()  # "capturing ...": the start is being read
    assert first.startswith("capturing"), first + proc.stderr.read()
    return proc


def finished(proc: subprocess.Popen[str]) -> tuple[int, str]:
    _, err = proc.communicate(timeout=60)
    return proc.returncode, err


def replayed(path: Path) -> list[PlannedRun]:
    return replay(read_trace(path))


def expected_arrivals(runs: list[PlannedRun]) -> list[tuple[str, str, int]]:
    return sorted((r.run_id, r.key, r.arrival_ms - runs[0].arrival_ms) for r in runs)


def holds_within(path: Path, producer: Producer) -> tuple[float, float]:
    """The worst gap between a captured hold and the span the real one lies in (the
    producer's commands sent and answered), and the stated precision."""
    precision = float(trace_header(path.read_text())["hold_ms"].split()[2])
    made = producer.produced
    worst = max(_outside(run.hold_ms, made.hold_span(run.run_id)) for run in replayed(path))
    return worst, precision


def _outside(value: float, span: tuple[float, float]) -> float:
    low, high = span
    return max(low - value, value - high, 0.0)


@pytest.mark.slow
@pytest.mark.parametrize("method", ["notify", "poll"])
def test_a_capture_replays_to_the_workload_s_arrivals(
    server: RedisServer, client: redis.Redis, prefix: str, tmp_path: Path, method: str
) -> None:
    # holds longer than two polls: polling sees every run (what it cannot see: the header)
    hold = 30 if method == "notify" else 300
    runs = workload(keys=3, runs_per_key=6, gap_ms=15, hold_ms=hold, after_ms=300)
    producer = Producer(server.client(), prefix, runs)
    out = tmp_path / "trace.csv"
    proc = start_capture(
        server.url, prefix, out, "--seconds", "60", "--method", method, "--interval", "0.05"
    )
    producer.start()
    assert producer.done.wait(30) and producer.error is None
    proc.send_signal(signal.SIGINT)
    code, err = finished(proc)
    assert code == 0, err
    captured = replayed(out)
    assert sorted((r.run_id, r.key, r.arrival_ms) for r in captured) == expected_arrivals(runs)
    worst, precision = holds_within(out, producer)
    assert worst <= precision + 1  # + 1: holds are written in whole ms
    header = trace_header(out.read_text())
    assert header["method"].startswith(method)
    assert header["runs"].startswith(f"{len(runs)} (acked {len(runs)},")
    assert "stopped: interrupted" in header["started"]


SPINNERS = 1  # a process that never sleeps, on the capture's core


@pytest.mark.slow
def test_notices_state_a_precision_that_holds_on_a_crowded_core(
    server: RedisServer, prefix: str, tmp_path: Path
) -> None:
    """The capture shares its one core with a process that never sleeps, so it wakes to a
    notice late: the precision it states counts that (a loaded machine woke it 4 ms late
    against 2 stated, when the precision counted from the wake-up)."""
    core = {min(os.sched_getaffinity(0))}
    spinners = [
        subprocess.Popen(
            [sys.executable, "-c", "while True: pass"],
            preexec_fn=lambda: os.sched_setaffinity(0, core),
        )
        for _ in range(SPINNERS)
    ]
    try:
        runs = workload(keys=3, runs_per_key=6, gap_ms=15, hold_ms=30, after_ms=300)
        producer = Producer(server.client(), prefix, runs)
        out = tmp_path / "trace.csv"
        args = ("--seconds", "60", "--method", "notify")
        proc = start_capture(server.url, prefix, out, *args, cpus=core)
        producer.start()
        assert producer.done.wait(30) and producer.error is None
        proc.send_signal(signal.SIGINT)
        code, err = finished(proc)
    finally:
        for spinner in spinners:
            spinner.kill()
            spinner.wait()
    assert code == 0, err
    worst, precision = holds_within(out, producer)
    assert worst <= precision + 1  # + 1: holds are written in whole ms


@pytest.mark.slow
def test_the_trace_replays_under_every_discipline(
    server: RedisServer, prefix: str, tmp_path: Path
) -> None:
    runs = workload(keys=2, runs_per_key=4, gap_ms=10, hold_ms=20, after_ms=300)
    producer = Producer(server.client(), prefix, runs)
    out = tmp_path / "trace.csv"
    proc = start_capture(server.url, prefix, out, "--seconds", "60")
    producer.start()
    assert producer.done.wait(30) and producer.error is None
    proc.send_signal(signal.SIGTERM)
    assert finished(proc)[0] == 0
    root = f"ckviz-test-{uuid.uuid4().hex[:8]}"
    results = tmp_path / "r.json"
    done = ckviz_here(  # the replay in this process: the capture was the real one
        "--headless",
        "--scenario",
        str(out),
        "--redis-url",
        server.url,
        "--prefix",
        root,
        "--out",
        str(results),
    )
    assert done.returncode == 0, done.stderr
    assert '"total_dequeued": 9' in results.read_text()


@pytest.mark.slow  # seconds of real traffic, waited out
def test_a_queue_that_vanishes_mid_capture_ends_its_runs(
    server: RedisServer, client: redis.Redis, prefix: str, tmp_path: Path
) -> None:
    runs = workload(keys=2, runs_per_key=3, gap_ms=0, hold_ms=10, after_ms=0)
    Producer(server.client(), prefix, runs)  # queued, never served
    out = tmp_path / "trace.csv"
    # a second: the queue is deleted milliseconds into it, and the capture's last read (at
    # its end) sees the queue gone whenever its polls did not
    proc = start_capture(server.url, prefix, out, "--seconds", "1", "--interval", "0.05")
    delete_prefix(client, prefix)  # the queue is gone (deleted, as a flush would)
    assert finished(proc)[0] == 0
    header = trace_header(out.read_text())
    assert header["runs"].startswith(
        f"{len(runs)} (acked 0, dead 0, expired 0, removed {len(runs)},"
    )
    assert "the queue was seen empty at" in out.read_text()
    assert sorted(r.run_id for r in replayed(out)) == sorted(r.run_id for r in runs)


def test_a_server_that_goes_away_keeps_the_trace_and_exits_3(tmp_path: Path) -> None:
    with embedded_server(binary=REDIS_7 if REDIS_7.exists() else None) as server:
        runs = workload(keys=2, runs_per_key=2, gap_ms=0, hold_ms=10, after_ms=0)
        Producer(server.client(), "gone:", runs)
        out = tmp_path / "trace.csv"
        proc = start_capture(
            server.url, "gone:", out, "--seconds", "60", "--method", "poll", "--interval", "0.05"
        )
        server.client().shutdown(nosave=True)
        code, err = finished(proc)
    assert code == 3, err
    assert "the trace up to then is in" in err
    assert len(replayed(out)) == len(runs)  # what it saw before the server went
    assert "stopped: server gone" in trace_header(out.read_text())["started"]


def test_an_existing_out_is_refused_without_force(
    server: RedisServer, prefix: str, tmp_path: Path
) -> None:
    out = tmp_path / "trace.csv"
    out.write_text("mine\n")
    done = ckviz_here(  # refused before any read
        "capture",
        "--redis-url",
        server.url,
        "--prefix",
        prefix,
        "--queue",
        QUEUE,
        "--seconds",
        "1",
        "--out",
        str(out),
    )
    assert done.returncode == 2 and "already exists; pass --force" in done.stderr
    assert out.read_text() == "mine\n"


@pytest.mark.slow  # seconds of real traffic, waited out
def test_a_read_only_acl_user_captures_by_notices(
    server: RedisServer, client: redis.Redis, prefix: str, tmp_path: Path
) -> None:
    runs = workload(keys=2, runs_per_key=3, gap_ms=10, hold_ms=20, after_ms=300)
    producer = Producer(server.client(), prefix, runs)
    with read_only_user(server, prefix) as url:
        out = tmp_path / "trace.csv"
        proc = start_capture(url, prefix, out, "--seconds", "60", "--method", "notify")
        producer.start()
        assert producer.done.wait(30) and producer.error is None
        proc.send_signal(signal.SIGINT)
        code, err = finished(proc)
        password = parse_url(url)["password"]
    assert code == 0, err
    assert password not in out.read_text() + err
    assert sorted((r.run_id, r.key, r.arrival_ms) for r in replayed(out)) == expected_arrivals(runs)


def test_retries_and_dead_letters_are_marked(
    server: RedisServer, client: redis.Redis, prefix: str
) -> None:
    """ckviz's own queue (its lifecycle calls: nack, dead-letter), read between each change
    as a poll reads it: a nacked run's second attempt counted, a dead letter found."""
    queue = RunQueue(server.client(), prefix, 3)
    queue.open()
    now = int(time.time() * 1000)
    runs = [PlannedRun(f"k:{i}", f"r{i}", 0, 1) for i in range(3)]
    call(queue, lambda trip: [trip.enqueue(run, now + i) for i, run in enumerate(runs)])
    found = LiveQueue(prefix, "o-ck", "p-ck", "e-ck", "task/base")
    cap = Capture(found, "poll", 1.0, now)
    read_start(client, cap)
    steps = [
        lambda trip: trip.dequeue(3, now + 10),
        lambda trip: trip.nack("k:0", "r0", message_payload(runs[0], now + 50), now + 50),
        lambda trip: trip.dead_letter("k:1", "r1"),
        lambda trip: trip.ack("r2", "k:2"),
        lambda trip: trip.dequeue(1, now + 60),
        lambda trip: trip.ack("r0", "k:0"),
    ]
    for step in steps:
        call(queue, step)
        poll_once(client, cap, time.time() * 1000)
    seen = cap.recorder.runs
    assert (seen["r0"].attempts, seen["r0"].outcome, len(seen["r0"].holds)) == (2, "acked", 2)
    assert (seen["r1"].attempts, seen["r1"].outcome) == (1, "dead")
    assert (seen["r2"].attempts, seen["r2"].outcome) == (1, "acked")


def call(queue: RunQueue, add: Callable[[Trip], object]) -> None:
    trip = queue.trip()
    add(trip)
    trip.send()


@pytest.mark.slow
def test_a_server_that_sends_no_notices_is_polled_or_refused(
    server: RedisServer, client: redis.Redis, prefix: str, tmp_path: Path
) -> None:
    """A reader allowed no CLIENT TRACKING: auto falls back to polling and says why in the
    trace; --method notify is one line, exit 3."""
    runs = workload(keys=2, runs_per_key=2, gap_ms=0, hold_ms=10, after_ms=0)
    Producer(server.client(), prefix, runs)
    user = f"ckviz-poll-{uuid.uuid4().hex[:8]}"
    pattern = f"%R~{prefix}*" if int(server.version.split(".")[0]) >= 7 else f"~{prefix}*"
    client.execute_command(
        "ACL",
        "SETUSER",
        user,
        "on",
        ">pw",
        "resetkeys",
        pattern,
        "-@all",
        "+@read",
        "+ping",
        "+info",
        "+scan",
    )
    try:
        url = with_user(server.url, user, "pw")
        out = tmp_path / "trace.csv"
        proc = start_capture(url, prefix, out, "--seconds", "0.3", "--interval", "0.05")
        assert finished(proc)[0] == 0
        refused = ckviz_here(
            "capture",
            "--redis-url",
            url,
            "--prefix",
            prefix,
            "--queue",
            QUEUE,
            "--seconds",
            "1",
            "--method",
            "notify",
            "--out",
            str(tmp_path / "n.csv"),
        )
    finally:
        client.acl_deluser(user)
    assert "(notices refused: CLIENT TRACKING:" in trace_header(out.read_text())["method"]
    assert refused.returncode == 3 and refused.stderr.count("\n") == 1, refused.stderr
    assert "--method notify: the server sends no notices" in refused.stderr


@pytest.mark.slow  # seconds of real traffic, waited out
@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM])
def test_a_stop_mid_traffic_leaves_a_valid_trace_of_what_was_seen(
    server: RedisServer, prefix: str, tmp_path: Path, stop: signal.Signals
) -> None:
    # traffic for ~36 s: the stop lands mid-traffic however long a loaded machine takes
    # to act on it and make its last read
    runs = workload(keys=3, runs_per_key=400, gap_ms=30, hold_ms=20, after_ms=300)
    producer = Producer(server.client(), prefix, runs)
    out = tmp_path / "trace.csv"
    proc = start_capture(server.url, prefix, out, "--seconds", "60")
    producer.start()
    while len(producer.produced.acked) < 10 and not producer.done.is_set():
        producer.done.wait(0.01)  # until some runs are done, the traffic still running
    proc.send_signal(stop)
    code, err = finished(proc)
    producer.stop.set()
    assert code == 0, err
    captured = replayed(out)  # a valid trace: it reads and replays
    planned = {r.run_id: r.arrival_ms - runs[0].arrival_ms for r in runs}
    assert 10 <= len(captured) < len(runs)
    assert all(planned[r.run_id] == r.arrival_ms for r in captured)  # exact, up to the stop
    assert "stopped: interrupted" in trace_header(out.read_text())["started"]
