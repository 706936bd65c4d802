"""The lifecycle's workload fields: keys' fail_rate / fail_attempts / delay_ms / ttl_ms /
fast_path, the [retry] and [ttl] tables, and trace files' delay_ms / ttl_ms / attempts columns.
Unset, they leave a scenario's dump (its digest) and its workload exactly as before."""

from __future__ import annotations

from pathlib import Path

import pytest

from ckviz.errors import UsageError
from ckviz.inputs import scenario_files
from ckviz.inputs.trace import TraceProblems, read_trace
from ckviz.inputs.trace_stream import replay
from ckviz.inputs.workload import generate
from ckviz.model.lifecycle import PLAIN, RunLifecycle
from ckviz.model.scenario import Scenario

KEY = '[[keys]]\nname = "a"\nruns = 40\n'


def load(tmp_path: Path, text: str) -> Scenario:
    path = tmp_path / "s.toml"
    path.write_text(text, encoding="utf-8")
    return scenario_files.load(str(path))


def error(tmp_path: Path, text: str) -> str:
    with pytest.raises(UsageError) as caught:
        load(tmp_path, text)
    message = str(caught.value)
    assert "\n" not in message
    return message


def test_unset_fields_leave_the_dump_and_the_workload_as_they_were(tmp_path: Path) -> None:
    plain = load(tmp_path, KEY)
    dumped = plain.model_dump_json()
    for word in ("fail_rate", "delay_ms", "ttl_ms", "fast_path", "retry", '"ttl"'):
        assert word not in dumped
    assert not plain.has_lifecycle
    assert all(run.life is PLAIN for run in generate(plain, "s"))


def test_lifecycle_fields_change_no_arrival_or_hold(tmp_path: Path) -> None:
    plain = generate(load(tmp_path, KEY), "s")
    text = (
        KEY + "fail_rate = 0.5\nfail_attempts = 2\ndelay_ms = 7\nttl_ms = 900\nfast_path = true\n"
    )
    lively = generate(load(tmp_path, text), "s")
    assert [(r.run_id, r.arrival_ms, r.hold_ms) for r in plain] == [
        (r.run_id, r.arrival_ms, r.hold_ms) for r in lively
    ]
    fails = [r.life.fails for r in lively]
    assert set(fails) == {0, 2} and 5 < fails.count(2) < 35  # a seeded share, near half
    assert {(r.life.delay_ms, r.life.ttl_ms, r.life.fast_path) for r in lively} == {(7, 900, True)}
    again = generate(load(tmp_path, text), "s")
    assert [r.life for r in again] == [r.life for r in lively]  # the same seed, the same draws
    other = generate(load(tmp_path, text), "t")
    assert [r.life.fails for r in other] != fails


def test_retry_and_ttl_tables(tmp_path: Path) -> None:
    text = "[retry]\nmax_attempts = 4\nfactor = 1.5\nrandomize = false\n[ttl]\nsweep_ms = 250\n"
    scenario = load(tmp_path, text + KEY)
    assert scenario.has_lifecycle and scenario.retry is not None and scenario.ttl is not None
    options = scenario.retry.options()
    assert (options.max_attempts, options.factor, options.min_timeout_ms) == (4, 1.5, 1000)
    assert options.randomize is False
    assert (scenario.ttl.every_ms, scenario.ttl.per_sweep) == (250, 100)


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        (KEY + "fail_rate = 1.5\n", "keys[0] (a).fail_rate: Input should be less than or equal"),
        (KEY + "fail_rate = -0.1\n", "keys[0] (a).fail_rate: Input should be greater than"),
        (KEY + 'fail_rate = "half"\n', "keys[0] (a).fail_rate: Input should be a valid number"),
        (KEY + "fail_attempts = 2\n", "fail_attempts needs fail_rate"),
        (KEY + "fail_rate = 0.1\nfail_attempts = 0\n", "(a).fail_attempts: Input should be"),
        (KEY + "delay_ms = -1\n", "keys[0] (a).delay_ms: Input should be greater than or equal"),
        (KEY + "delay_ms = 1.5\n", "keys[0] (a).delay_ms: Input should be a valid integer"),
        (KEY + "ttl_ms = 0\n", "keys[0] (a).ttl_ms: Input should be greater than or equal to 1"),
        (KEY + 'fast_path = "yes"\n', "keys[0] (a).fast_path: Input should be a valid boolean"),
        ("[retry]\nmax_attempts = 0\n" + KEY, "retry.max_attempts: Input should be greater"),
        ("[retry]\nfactor = 0\n" + KEY, "retry.factor: Input should be greater than 0"),
        ("[retry]\nmin_timeout_ms = nan\n" + KEY, "retry.min_timeout_ms: Input should be a finite"),
        ("[retry]\nmin_timeout_ms = 90000\n" + KEY, "retry: min_timeout_ms (90000) is above"),
        ("[retry]\nrandomise = true\n" + KEY, "retry.randomise: Extra inputs are not permitted"),
        ("[ttl]\nsweep_ms = -5\n" + KEY, "ttl.sweep_ms: Input should be greater than or equal"),
        ("[ttl]\nbatch = 0\n" + KEY, "ttl.batch: Input should be greater than or equal to 1"),
    ],
)
def test_bad_values_are_one_line_naming_the_field(tmp_path: Path, text: str, needle: str) -> None:
    message = error(tmp_path, text)
    assert str(tmp_path / "s.toml") in message and needle in message, message


def test_trace_lifecycle_columns(tmp_path: Path) -> None:
    path = tmp_path / "t.csv"
    text = "key,arrival_ms,hold_ms,delay_ms,ttl_ms,attempts\na,0,5,,,\na,1,5,30,200,3\nb,2,5,,,1\n"
    path.write_text(text, encoding="utf-8")
    summary = read_trace(path)
    assert summary.lifecycle
    lives = {r.run_id: r.life for r in replay(summary)}
    assert lives == {"a~0#0": PLAIN, "a~0#1": RunLifecycle(30, 200, 2), "b~0#0": PLAIN}
    assert load(tmp_path, '[trace]\npath = "t.csv"\n').has_lifecycle


def test_a_trace_without_them_is_plain(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_text('{"key": "a", "arrival_ms": 0, "hold_ms": 4}\n', encoding="utf-8")
    assert not read_trace(path).lifecycle


@pytest.mark.parametrize(
    ("line", "needle"),
    [
        ('"delay_ms": -2', "t.jsonl:1: delay_ms: must be from 0 to 600000"),
        ('"ttl_ms": 0', "t.jsonl:1: ttl_ms: must be from 1 to 600000"),
        ('"ttl_ms": "soon"', "t.jsonl:1: ttl_ms: not a number"),
        ('"attempts": 0', "t.jsonl:1: attempts: must be from 1 to 1000"),
        ('"attempts": 2.5', "t.jsonl:1: attempts: not a whole number"),
        ('"attempts": true', "t.jsonl:1: attempts: not a number"),
    ],
)
def test_bad_trace_columns_name_line_and_field(tmp_path: Path, line: str, needle: str) -> None:
    path = tmp_path / "t.jsonl"
    path.write_text('{"key": "a", "arrival_ms": 0, "hold_ms": 4, ' + line + "}\n")
    with pytest.raises(TraceProblems) as caught:
        read_trace(path)
    assert needle in caught.value.lines[0]
