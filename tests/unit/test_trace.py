"""Trace files on their own: parsing, the epoch shift, weights, run ids and line-numbered
problems, without Redis."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ckviz.errors import UsageError
from ckviz.inputs import scenario_files
from ckviz.inputs.trace import MAX_PROBLEMS, TraceProblems, read_trace
from ckviz.inputs.trace_lines import lines_of
from ckviz.inputs.trace_stream import replay
from ckviz.inputs.workload import generate

HEADER = "key,arrival_ms,hold_ms\n"


def trace(tmp_path: Path, text: str, name: str = "t.csv") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def problems(path: Path) -> list[str]:
    with pytest.raises(TraceProblems) as caught:
        read_trace(path)
    return caught.value.lines


def test_csv_runs_replay_in_event_order_with_reference_run_ids(tmp_path: Path) -> None:
    path = trace(tmp_path, HEADER + "b,10,5\na,10,7.6\na,0,0.2\n\nb,3,20\n")
    summary = read_trace(path)
    assert summary.weights == {"b": 1.0, "a": 1.0} and summary.runs == 4 and summary.shift_ms == 0
    runs = [(r.key, r.run_id, r.arrival_ms, r.hold_ms) for r in replay(summary)]
    assert runs == [
        ("a", "a~0#1", 0, 1),  # a hold rounds to the ms, at least 1
        ("b", "b~0#1", 3, 20),
        ("a", "a~0#0", 10, 8),
        ("b", "b~0#0", 10, 5),
    ]


def test_json_lines_with_epoch_ms_start_at_zero_and_keep_run_ids_and_weights(
    tmp_path: Path,
) -> None:
    lines = [
        {"key": "gold", "arrival_ms": 1767225600100, "hold_ms": 30, "run_id": "r-2", "weight": 3},
        {"key": "bronze", "arrival_ms": 1767225600000.4, "hold_ms": 10, "run_id": "r-1"},
        {"key": "gold", "arrival_ms": 1767225600250, "hold_ms": 5, "run_id": "r-3"},
    ]
    path = trace(tmp_path, "\n".join(json.dumps(x) for x in lines) + "\n", "t.jsonl")
    summary = read_trace(path)
    assert summary.shift_ms == 1767225600000 and summary.weights == {"gold": 3.0, "bronze": 1.0}
    assert [(r.run_id, r.arrival_ms) for r in replay(summary)] == [
        ("r-1", 0),
        ("r-2", 100),
        ("r-3", 250),
    ]


def test_a_trace_scenario_is_the_same_under_every_seed(tmp_path: Path) -> None:
    path = trace(tmp_path, HEADER + "a,0,5\nb,1,5\n")
    scenario = scenario_files.load(str(path))
    assert scenario.name == "t" and scenario.weights() == {"a": 1.0, "b": 1.0}
    assert scenario.total_runs == 2
    assert generate(scenario, "seed-a") == generate(scenario, "seed-b")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (HEADER + "a,0,5\na,1,x\n", ":3: hold_ms: not a number"),
        (HEADER + "a,-1,5\n", ":2: arrival_ms: must not be negative"),
        (HEADER + "a,nan,5\n", ":2: arrival_ms: not a number"),
        (HEADER + ",0,5\n", ":2: key: missing"),
        (HEADER + "a,0\n", ":2: 2 fields, the header has 3"),
        (
            HEADER + "a:currentConcurrency,0,5\n",
            ":2: key: a key name may not end with ':currentConcurrency'",
        ),
        ("key,arrival_ms\na,0\n", ":1: the header has no 'hold_ms' column"),
        ("key,arrival_ms,hold_ms,customer\n", ":1: unknown column 'customer'"),
        (
            "key,arrival_ms,hold_ms,weight\na,0,5,2\na,1,5,3\n",
            ":3: weight: 3 differs from the 2 given for key 'a' on line 2",
        ),
        ("key,arrival_ms,hold_ms,weight\na,0,5,0\n", ":2: weight: must be greater than 0"),
        (
            "key,arrival_ms,hold_ms,run_id\na,0,5,r1\nb,0,5,r1\n",
            ":3: run_id: 'r1' is already on line 2",
        ),
        (HEADER + "a,1767225600000,5\nb,5,5\n", ": arrival_ms mixes epoch ms"),
        (HEADER, ": no runs"),
        ("", ": no runs"),
    ],
)
def test_csv_problems_name_the_line_and_field(tmp_path: Path, text: str, expected: str) -> None:
    path = trace(tmp_path, text)
    found = problems(path)
    assert any(p.startswith(str(path)) and expected in p for p in found), found


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ('{"key": "a", "arrival_ms": 0}', ":1: hold_ms: missing"),
        ('{"key": "a", "arrival_ms": "0", "hold_ms": 1}', ":1: arrival_ms: not a number"),
        ('{"key": "a", "arrival_ms": true, "hold_ms": 1}', ":1: arrival_ms: not a number"),
        ('{"key": 7, "arrival_ms": 0, "hold_ms": 1}', ":1: key: not a string"),
        ('{"key": "a", "arrival_ms": 0, "hold_ms": 1, "queue": "x"}', ":1: queue: unknown field"),
        ("[1, 2]", ":1: expected an object"),
        ("{nope", ":1: not valid JSON"),
    ],
)
def test_json_lines_problems_name_the_line_and_field(
    tmp_path: Path, line: str, expected: str
) -> None:
    found = problems(trace(tmp_path, line + "\n", "t.jsonl"))
    assert any(expected in p for p in found), found


def test_many_problems_are_capped_with_a_count(tmp_path: Path) -> None:
    path = trace(tmp_path, HEADER + "a,x,1\n" * 50)
    found = problems(path)
    assert len(found) == MAX_PROBLEMS + 1 and found[-1].endswith(
        f"... and {50 - MAX_PROBLEMS} more problems"
    )
    with pytest.raises(
        UsageError, match=r"t.csv:2: arrival_ms: not a number \(and 49 more problems"
    ):
        scenario_files.load(str(path))


def test_a_toml_scenario_points_at_a_trace_and_adds_light_key_caps_and_rules(
    tmp_path: Path,
) -> None:
    (tmp_path / "traces").mkdir()
    trace(tmp_path / "traces", HEADER + "heavy,0,50\nheavy,0,50\nlight,10,5\n", "load.csv")
    toml = tmp_path / "replay.toml"
    toml.write_text(
        'light_key = "light"\nenv_limit = 1\n[caps]\nper_key = 1\n[trace]\npath = "traces/load.csv"\n'
        '[[expect]]\ndiscipline = "sfq"\nmetric = "light_key_mean_wait"\nbetter_than = "baseline"\n',
        encoding="utf-8",
    )
    assert scenario_files.problems_in(toml) == []
    scenario = scenario_files.load(str(toml))
    assert scenario.name == "replay" and scenario.caps.per_key == 1 and scenario.total_runs == 3
    assert [r.key for r in generate(scenario, "seed-a")] == ["heavy", "heavy", "light"]
    toml.write_text(
        toml.read_text().replace('light_key = "light"', 'light_key = "lite"'), encoding="utf-8"
    )
    (problem,) = scenario_files.problems_in(toml)
    assert problem == f"{toml}: light_key: 'lite' is not a key of the trace"
    toml.write_text(
        toml.read_text().replace("traces/load.csv", "traces/gone.csv"), encoding="utf-8"
    )
    (problem,) = scenario_files.problems_in(toml)
    assert problem.startswith(f"{tmp_path / 'traces' / 'gone.csv'}: cannot read")


def test_keys_and_a_trace_together_are_refused(tmp_path: Path) -> None:
    toml = trace(tmp_path, '[trace]\npath = "x.csv"\n[[keys]]\nname = "a"\nruns = 1\n', "both.toml")
    problem, missing = scenario_files.problems_in(toml)
    assert problem == f"{toml}: keys: give either [[keys]] or a [trace], not both"
    assert "x.csv" in missing  # the trace is checked too, in the same run


def test_the_bundled_incident_trace_is_as_its_script_writes_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from scripts import make_example_trace

    committed = make_example_trace.OUT.read_text(encoding="utf-8")
    monkeypatch.setattr(make_example_trace, "OUT", tmp_path / "incident.csv")
    make_example_trace.main()
    assert (tmp_path / "incident.csv").read_text(encoding="utf-8") == committed
    scenario = scenario_files.load("incident_trace")
    assert len(scenario.weights()) == 301 and scenario.replay is not None
    first = min(int(line.split(",")[1]) for line in committed.splitlines()[1:])
    assert first > make_example_trace.EPOCH_MS and scenario.replay.shift_ms == first
    assert generate(scenario, "seed-a")[0].arrival_ms == 0


@pytest.mark.parametrize("index", ["\u00b2", "1" * 5000])
def test_a_run_id_index_no_int_holds_is_just_a_run_id(tmp_path: Path, index: str) -> None:
    """`a~0#²` and `a~0#` + 5,000 digits made tracebacks (issue 35 item 5): int() of a
    superscript, or past 4,300 digits. Neither can be a generated id: the run keeps its own."""
    path = trace(tmp_path, f"key,arrival_ms,hold_ms,run_id\na,0,5,a~0#{index}\nb,1,5,b1\n")
    summary = read_trace(path)
    assert [r.run_id for r in replay(summary)] == [f"a~0#{index}", "b1"]


def test_a_plain_three_column_file_reads_as_the_full_check_reads_it(tmp_path: Path) -> None:
    # the three-column rows take a shorter way (no record built); a `weight` column left empty
    # sends the same rows through the full check: each line, run or problem, must agree
    rows = ["a,10,5", "a, 12,1_0", "b,+3,0", "b,4,7.6", "c,1e3,2", "a,-1,5", "a,5,", "d\x01,1,1"]
    rows += ['"a",7,"8"', "b,8,-2", ",9,1", "a,99999999999999,3", "\u00e9,0,1"]
    plain = trace(tmp_path, HEADER + "\n".join(rows) + "\n", "plain.csv")
    full = trace(tmp_path, "key,arrival_ms,hold_ms,weight\n" + ",\n".join(rows) + ",\n", "f.csv")
    read = [str(line).replace("plain.csv", "f.csv") for line in lines_of(plain)]
    assert read == [str(line) for line in lines_of(full)]
    assert sum(not isinstance(line, str) for line in lines_of(plain)) == 8
