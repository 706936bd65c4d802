"""What a capture writes and how the trace reader takes it, without Redis: comment lines
before a CSV header (and anywhere in JSON Lines), the `outcome` column, and the recorder's
reading of successive variant reads (arrival, dequeue, nack, ack, a run first seen held)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ckviz.inputs.trace import TraceProblems, read_trace
from ckviz.inputs.trace_stream import replay
from ckviz.live.capture import Capture
from ckviz.live.capture_trace import trace_text
from ckviz.live.names import LiveQueue
from ckviz.live.recorder import Recorder
from ckviz.live.whatif import hold_from_capture

KEYS = LiveQueue("engine:runqueue:", "o1", "p1", "e1", "task/my-task")


def test_comments_before_a_csv_header_and_in_json_lines_are_skipped(tmp_path: Path) -> None:
    csv_path = tmp_path / "t.csv"
    csv_path.write_text('# queue: a,b "c\n#x\nkey,arrival_ms,hold_ms,outcome\nk,0,5,acked\n')
    jsonl = tmp_path / "t.jsonl"
    jsonl.write_text('# where\n{"key":"k","arrival_ms":0,"hold_ms":5,"outcome":"dead"}\n')
    for path in (csv_path, jsonl):
        (run,) = replay(read_trace(path))
        assert (run.key, run.arrival_ms, run.hold_ms) == ("k", 0, 5)


def test_a_comment_after_the_csv_header_is_a_run_line_and_an_outcome_is_checked(
    tmp_path: Path,
) -> None:
    path = tmp_path / "t.csv"
    path.write_text("key,arrival_ms,hold_ms,outcome\n#k,0,5,acked\nk,0,5,lost\n")
    with pytest.raises(TraceProblems) as caught:
        read_trace(path)
    assert caught.value.lines == [
        f"{path}:3: outcome: not one of acked, dead, expired, removed, open"
    ]


def test_the_recorder_follows_a_run_through_a_nack_to_its_ack() -> None:
    r = Recorder(notices=True)
    assert r.observe("k", [("a", 1000)], set(), 1001.0) == []
    r.observe("k", [], {"a"}, 1010.0)  # dequeued
    r.observe("k", [("a", 1500)], set(), 1030.0)  # nacked: its next attempt queued
    r.observe("k", [], {"a"}, 1500.0)
    (left,) = r.observe("k", [], set(), 1540.0)
    assert left.was_held
    r.gone("a", 1540.0, "acked")
    run = r.runs["a"]
    assert (run.arrival_ms, run.attempts, run.holds, run.outcome) == (
        1000,
        2,
        [20.0, 40.0],
        "acked",
    )
    assert not run.in_part


def test_a_retry_between_two_polls_is_counted_from_the_message_s_attempt() -> None:
    r = Recorder()
    r.observe("k", [("a", 1000)], set(), 1001.0)
    r.attempt_read("a", 0, 1001.0)
    r.observe("k", [], {"a"}, 1050.0)
    r.attempt_read("a", 0, 1050.0)  # held at two reads, the same attempt: nothing new
    assert r.runs["a"].attempts == 1
    r.observe("k", [], {"a"}, 1300.0)  # nacked and dequeued again between these reads
    r.attempt_read("a", 1, 1300.0)
    r.observe("k", [("a", 1500)], set(), 1400.0)  # a second nack, seen queued
    r.attempt_read("a", 2, 1400.0)  # the message agrees: not counted twice
    run = r.runs["a"]
    assert (run.attempts, run.in_part, run.holds) == (3, True, [100.0])


def test_a_run_queued_again_under_its_retry_s_score_between_two_polls_is_a_retry() -> None:
    r = Recorder()
    r.observe("k", [("a", 1000)], set(), 1001.0)
    r.attempt_read("a", 0, 1001.0)
    r.observe("k", [("a", 1000)], set(), 1050.0)  # still waiting: nothing to ask
    assert not r.requeued
    r.observe("k", [("a", 1700)], set(), 1600.0)  # served, nacked, queued again meanwhile
    assert r.requeued == {"a"}
    r.attempt_read("a", 1, 1600.0)
    run = r.runs["a"]
    assert (run.attempts, run.in_part, run.place) == (2, True, "queued")


def test_a_nack_seen_by_the_message_first_and_then_by_the_reads_is_one_retry() -> None:
    r = Recorder()
    r.observe("k", [("a", 1000)], set(), 1001.0)
    r.attempt_read("a", 0, 1001.0)
    r.observe("k", [], {"a"}, 1050.0)
    r.attempt_read("a", 1, 1052.0)  # read on its own trip, just after a nack
    r.observe("k", [("a", 1200)], set(), 1100.0)  # the next read sees the nack too
    r.attempt_read("a", 1, 1100.0)
    assert r.runs["a"].attempts == 2


def test_a_run_first_seen_held_takes_its_arrival_from_its_message() -> None:
    polled, noticed = Recorder(), Recorder(notices=True)
    for r in (polled, noticed):
        r.observe("k", [], {"b"}, 2000.0)
        r.arrived_at("b", 1990, 60_000)
        assert (r.runs["b"].arrival_ms, r.runs["b"].ttl_ms) == (1990, 60_000)
    assert polled.runs["b"].in_part and not noticed.runs["b"].in_part


def test_a_capture_s_trace_reads_back_with_its_provenance(tmp_path: Path) -> None:
    cap = Capture(KEYS, "poll", 250.0, 1_767_225_600_000, ended_ms=1_767_225_601_000)
    cap.recorder.observe(
        "k:1", [("r1", 1_767_225_599_000), ("r2", 1_767_225_600_100)], set(), 1_767_225_600_150
    )
    cap.recorder.observe("k:1", [("r2", 1_767_225_600_100)], {"r1"}, 1_767_225_600_200.0)
    cap.recorder.close(1_767_225_601_000)
    cap.precision_ms = 260.0
    path = tmp_path / "c.csv"
    path.write_text(trace_text(cap, "redis://u:***@h:6379"))
    text = path.read_text()
    assert "# server: redis://u:***@h:6379" in text and "# method: poll every 250 ms" in text
    runs = replay(read_trace(path))
    assert [(r.run_id, r.key, r.arrival_ms, r.hold_ms) for r in runs] == [
        ("r1", "k:1", 0, 800),  # held from the read that saw it to the end: cut there
        ("r2", "k:1", 1100, 130),  # never seen held: half the reads' gap
    ]


def test_a_forked_start_s_columns_read_into_ages_and_held_runs(tmp_path: Path) -> None:
    path = tmp_path / "fork.csv"
    path.write_text(
        "key,arrival_ms,hold_ms,run_id,age_ms,start\na,0,50,h1,,held\na,0,20,q1,4000,\n"
    )
    summary = read_trace(path)
    assert (summary.held_at_start, summary.lifecycle) == (1, False)  # not the lifecycle's
    runs = {run.run_id: run.life for run in replay(summary)}
    assert (runs["h1"].held, runs["h1"].age_ms, runs["q1"].held, runs["q1"].age_ms) == (
        True,
        0,
        False,
        4000,
    )


@pytest.mark.parametrize(
    ("row", "problem"),
    [
        ("a,0,5,r,,waiting", "start: not 'held'"),
        ("a,0,5,r,-1,", "age_ms: must be from 0 to"),
        ("a,0,5,r,10,held", "age_ms: a held run has no age"),
    ],
)
def test_a_forked_start_s_bad_columns_are_one_line_each(
    tmp_path: Path, row: str, problem: str
) -> None:
    path = tmp_path / "fork.csv"
    path.write_text(f"key,arrival_ms,hold_ms,run_id,age_ms,start\n{row}\n")
    with pytest.raises(TraceProblems) as caught:
        read_trace(path)
    assert caught.value.lines[0].startswith(f"{path}:2: {problem}")


def test_a_fork_s_holds_come_from_a_capture_per_key_then_overall() -> None:
    hold_of = hold_from_capture({"a": [10, 30], "b": [100]}, default_ms=1000)
    assert (hold_of("a"), hold_of("b"), hold_of("unseen")) == (20, 100, 47)
    assert hold_from_capture({}, default_ms=250)("any") == 250


def test_a_score_past_the_reads_stamp_but_not_its_end_is_an_arrival_not_a_delay() -> None:
    """A read is stamped as it starts; a run enqueued while it ran has a score past the stamp
    though it was no future score when the read saw it (a fresh-clone CI run captured
    run_0011 at 464 ms against 465: taken for a run delayed by 1 ms)."""
    r = Recorder()
    r.observe("k", [("a", 1001), ("b", 1600)], set(), 1000.4, seen_ms=1002.7)
    assert (r.runs["a"].arrival_ms, r.runs["a"].delay_ms) == (1001, 0)
    assert (r.runs["b"].arrival_ms, r.runs["b"].delay_ms) == (1000, 600)  # a delayed run
