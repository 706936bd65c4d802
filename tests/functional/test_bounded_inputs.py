"""Issue 20 item 8: inputs that made tracebacks are one line, exit 2: JSON nested 100,000
deep (a trace, a results file, a shard), a CSV field past 131,072 characters, a JSON integer
past 4,300 digits, a key with a lone surrogate (validate refuses it too), a results file whose
timeline arrays disagree, an unknown URL query parameter, a trace changed after its check."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ckviz.cli import main
from ckviz.errors import ExitCode
from ckviz.inputs.trace import TraceProblems, read_trace
from ckviz.inputs.trace_stream import replay
from ckviz.sim.cell.session import new_namespace
from ckviz.store.server import RedisServer
from tests.functional.trust_support import refused_here, stderr_lines

# no xdist_group: the module fixture is one cell, cheaper made on each worker than the
# file's subprocesses run on one
pytestmark = pytest.mark.slow

DEEP = "[" * 100_000 + "]" * 100_000
ROW = '{"key": "a", "arrival_ms": 0, "hold_ms": 5}\n'


def trace_scenario(folder: Path, name: str, text: str) -> Path:
    (folder / name).write_text(text, encoding="utf-8")
    scenario = folder / "s.toml"
    scenario.write_text(f'[trace]\npath = "{name}"\n')
    return scenario


@pytest.mark.parametrize(
    ("name", "text", "said"),
    [
        ("t.jsonl", ROW + DEEP + "\n", "t.jsonl:2: not valid JSON: nested too deeply"),
        ("t.jsonl", ROW + '{"key": "a", "arrival_ms": ' + "9" * 5000 + ', "hold_ms": 1}\n',
         "t.jsonl:2: not valid JSON: Exceeds the limit (4300 digits)"),
        ("t.jsonl", ROW + '{"key": "\\ud800", "arrival_ms": 1, "hold_ms": 1}\n',
         "t.jsonl:2: key: a key name may not contain a lone surrogate"),
        ("t.csv", "key,arrival_ms,hold_ms\na,0,5\n" + "b" * 200_000 + ",1,1\n",
         "t.csv:3: a field is longer than 131,072 characters"),
    ],
    ids=["deep-json", "long-integer", "lone-surrogate", "long-csv-field"],
)  # fmt: skip
@pytest.mark.parametrize("command", ["validate", "--headless"])
def test_a_bad_trace_is_one_line(
    tmp_path: Path, name: str, text: str, said: str, command: str
) -> None:
    scenario = trace_scenario(tmp_path, name, text)
    out = tmp_path / "r.json"
    if command == "validate":
        proc = refused_here("validate", str(scenario))
    else:
        proc = refused_here("--headless", "--scenario", str(scenario), "--out", str(out))
    assert proc.returncode == ExitCode.USAGE, proc.stderr
    assert said in proc.stderr, proc.stderr
    assert not out.exists()


def test_a_trace_changed_after_its_check_is_refused_not_replayed(tmp_path: Path) -> None:
    trace = tmp_path / "t.jsonl"
    trace.write_text(ROW + '{"key": "b", "arrival_ms": 1, "hold_ms": 5}\n')
    summary = read_trace(trace)
    assert len(replay(summary)) == 2
    trace.write_text(ROW + '{"key": "c", "arrival_ms": 1, "hold_ms": 5}\n')  # b is gone
    with pytest.raises(TraceProblems, match="changed since it was checked"):
        replay(summary)


@pytest.fixture(scope="module")
def results(redis_server: RedisServer, tmp_path_factory: pytest.TempPathFactory) -> dict:
    out = tmp_path_factory.mktemp("results") / "r.json"
    root = new_namespace("ckviz-bounds").rstrip(":").replace(":", "-")  # one per worker
    args = ["--headless", "--scenario", "ck_trickle", "--seeds", "seed-a", "--discipline",
            "baseline", "--redis-url", redis_server.url, "--prefix", root, "--out", str(out)]  # fmt: skip
    assert main(args) == 0
    loaded: dict = json.loads(out.read_text())
    return loaded


def _broken_timeline(results: dict) -> str:
    series = results["scenarios"][0]["runs"][0]["metrics"]["timeline"]["series"][0]
    series["served"] = series["served"][:-3]
    return json.dumps(results)


@pytest.mark.parametrize(
    ("content", "said"),
    [
        (lambda r: DEEP, "nested too deeply"),
        (_broken_timeline, "served counts for 65 instants"),
    ],
    ids=["deep-json", "timeline-arrays"],
)
def test_a_bad_results_file_is_one_line_in_report_and_merge(
    results: dict, tmp_path: Path, capsys: pytest.CaptureFixture[str], content: object, said: str
) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(content(json.loads(json.dumps(results))))  # type: ignore[operator]
    capsys.readouterr()
    report = ["report", str(bad), "--out", str(tmp_path / "r.html")]
    for args in (report, ["merge", str(bad), "--out", str(tmp_path / "m.json")]):
        assert main(args) == ExitCode.USAGE
        (line,) = capsys.readouterr().err.splitlines()
        assert said in line and str(bad) in line, line
    assert not (tmp_path / "r.html").exists()


@pytest.mark.parametrize(
    ("query", "said"),
    [
        ("foo=bar", "unknown query parameter 'foo'"),
        ("socket_timeout=abc", "Invalid value for 'socket_timeout'"),
    ],
)
def test_an_odd_url_query_is_one_line(query: str, said: str) -> None:
    url = f"redis://user:secret@127.0.0.1:1/0?{query}"
    proc = refused_here("--headless", "--scenario", "ck_skew", "--redis-url", url)
    assert proc.returncode == ExitCode.USAGE
    (line,) = stderr_lines(proc)
    assert said in line and "secret" not in line, line


@pytest.mark.parametrize("flag", ["--out", "--markdown"])
def test_a_report_that_cannot_be_written_is_refused_before_the_work(
    flag: str, tmp_path: Path
) -> None:
    missing = tmp_path / "not-read-yet.json"  # would be the error if the files came first
    proc = refused_here("report", str(missing), flag, "/proc/report.out")
    assert proc.returncode == ExitCode.USAGE
    (line,) = stderr_lines(proc)
    assert line.startswith(f"ckviz: error: {flag}: cannot write in /proc"), line
