"""A trace replayed as its clock goes (inputs/trace_stream.py): read lazily, in event order,
and a file not in time order sorted out of core to the same runs an in-memory sort gives."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from ckviz.inputs import trace_stream
from ckviz.inputs.trace import TraceProblems, read_trace
from ckviz.inputs.trace_stream import replay, stream
from ckviz.model.queue import PlannedRun, js_string_order


def shuffled_trace(folder: Path, runs: int) -> Path:
    """`runs` runs of five keys at a few instants each, in no particular order."""
    rng = random.Random(7)
    lines = [f"k{rng.randrange(5)},{rng.randrange(40)},{rng.randrange(1, 9)}" for _ in range(runs)]
    path = folder / "shuffled.csv"
    path.write_text("key,arrival_ms,hold_ms\n" + "\n".join(lines) + "\n", encoding="utf-8")
    return path


def sorted_in_memory(path: Path) -> list[tuple[str, str, int, int]]:
    """What the replay gave before it streamed: every run read, ids in file order, sorted."""
    per_key: dict[str, int] = {}
    runs = []
    for line in path.read_text(encoding="utf-8").splitlines()[1:]:
        key, arrival, hold = line.split(",")
        n = per_key.get(key, 0)
        per_key[key] = n + 1
        runs.append((key, f"{key}~0#{n}", int(arrival), int(hold)))
    runs.sort(key=lambda r: (r[2], js_string_order(r[0]), js_string_order(r[1])))
    return runs


def plain(runs: list[PlannedRun]) -> list[tuple[str, str, int, int]]:
    return [(r.key, r.run_id, r.arrival_ms, r.hold_ms) for r in runs]


def test_a_trace_out_of_time_order_is_noted_at_its_first_such_line(tmp_path: Path) -> None:
    path = tmp_path / "t.csv"
    path.write_text("key,arrival_ms,hold_ms\na,0,1\nb,5,1\na,5,1\nb,3,1\na,1,1\n", "utf-8")
    assert read_trace(path).disorder == 5  # b,3 (file line 5) arrives before a,5 above it


def test_sorted_out_of_core_in_chunks_gives_the_runs_an_in_memory_sort_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = shuffled_trace(tmp_path, 300)
    monkeypatch.setattr(trace_stream, "SORT_CHUNK", 7)  # 43 chunks spilled, then merged
    summary = read_trace(path)
    assert summary.disorder > 0
    assert plain(replay(summary)) == sorted_in_memory(path)


def test_a_trace_in_time_order_is_read_as_the_runs_are_asked_for(tmp_path: Path) -> None:
    path = tmp_path / "t.csv"
    lines = [f"k{i % 3},{i // 2},5" for i in range(1000)]
    path.write_text("key,arrival_ms,hold_ms\n" + "\n".join(lines) + "\n", "utf-8")
    summary = read_trace(path)
    runs = stream(summary)
    assert summary.disorder == 0 and runs.total == 1000
    assert runs.per_key == {"k0": 334, "k1": 333, "k2": 333}
    first = [next(runs.runs) for _ in range(3)]
    assert plain(first) == [("k0", "k0~0#0", 0, 5), ("k1", "k1~0#0", 0, 5), ("k0", "k0~0#1", 1, 5)]
    path.write_text("key,arrival_ms,hold_ms\n" + "\n".join(lines[:10]) + "\n", "utf-8")
    with pytest.raises(TraceProblems, match=f"^{path}"):
        list(runs.runs)  # the file shrank under the replay: a problem naming it, not fewer runs
