"""Tenants (issue 36 item 2): a scenario's [tenants] table and a trace's tenant column group
keys, and fairness at the tenant grain owes each tenant an equal share, however many keys it
splits its load over (docs/fairness.md, "Tenants")."""

from __future__ import annotations

from pathlib import Path

import pytest

from ckviz.errors import UsageError
from ckviz.fairness import key_service
from ckviz.fairness_judged import most_over_served
from ckviz.fairness_tenants import tenant_figures
from ckviz.inputs import scenario_files
from ckviz.inputs.trace import TraceProblems, read_trace
from ckviz.model.snapshot import DequeueEvent
from ckviz.model.tenants import is_one_grain, tenant_of

KEYS = """
[[keys]]
name = "heavy"
count = 3
runs = 5
arrival = "immediate"

[[keys]]
name = "light"
runs = 2
"""


def write(tmp_path: Path, text: str, name: str = "s.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_patterns_and_names_group_keys_and_the_rest_are_their_own_tenant() -> None:
    owner = tenant_of(["heavy-0", "heavy-1", "light", "other"], {"s": ["heavy-*"], "h": ["light"]})
    assert owner == {"heavy-0": "s", "heavy-1": "s", "light": "h", "other": "other"}
    assert not is_one_grain(owner) and is_one_grain({"a": "a", "b": "b"})


@pytest.mark.parametrize(
    ("table", "reason"),
    [
        ('a = ["heavy-*"]\nb = ["heavy-1"]', "key 'heavy-1' is matched by tenants 'a' and 'b'"),
        ('a = ["nobody-*"]', "tenant 'a' matches none of the keys"),
        ("a = []", "tenant 'a' names no keys"),
        ('a = "heavy-*"', "tenants.a"),
    ],
)
def test_a_bad_tenants_table_is_one_line_naming_the_file_and_field(
    tmp_path: Path, table: str, reason: str
) -> None:
    path = write(tmp_path, KEYS + "\n[tenants]\n" + table + "\n")
    problems = scenario_files.problems_in(path)
    assert any(p.startswith(f"{path}: tenants") and reason in p for p in problems), problems
    assert all("\n" not in p for p in problems)
    with pytest.raises(UsageError):
        scenario_files.load(str(path))


def test_a_scenario_gives_each_key_its_tenant(tmp_path: Path) -> None:
    path = write(tmp_path, KEYS + '\n[tenants]\nsybil = ["heavy-*"]\n')
    scenario = scenario_files.load(str(path))
    assert scenario.tenant_of() == {
        "heavy-0": "sybil",
        "heavy-1": "sybil",
        "heavy-2": "sybil",
        "light": "light",
    }


def test_a_trace_tenant_column_is_read_and_older_traces_still_are(tmp_path: Path) -> None:
    old = write(tmp_path, "key,arrival_ms,hold_ms\na,0,5\n", "old.csv")
    assert read_trace(old).tenants is None
    new = write(
        tmp_path, "key,arrival_ms,hold_ms,tenant\na,0,5,acme\nb,1,5,acme\nc,2,5,\n", "t.csv"
    )
    assert read_trace(new).tenants == {"a": "acme", "b": "acme"}
    bad = write(tmp_path, "key,arrival_ms,hold_ms,tenant\na,0,5,acme\na,1,5,zeta\n", "bad.csv")
    with pytest.raises(TraceProblems) as caught:
        read_trace(bad)
    assert caught.value.lines == [
        f"{bad}:3: tenant: 'zeta' differs from the 'acme' given for key 'a' on line 2"
    ]


def test_a_trace_scenario_takes_its_tenants_from_the_column(tmp_path: Path) -> None:
    write(tmp_path, "key,arrival_ms,hold_ms,tenant\na,0,5,acme\nb,1,5,acme\nc,2,5,\n", "t.csv")
    path = write(tmp_path, '[trace]\npath = "t.csv"\n')
    assert scenario_files.load(str(path)).tenant_of() == {"a": "acme", "b": "acme", "c": "c"}
    table = write(tmp_path, '[trace]\npath = "t.csv"\n[tenants]\nx = ["z*"]\n', "x.toml")
    with pytest.raises(UsageError, match=r"tenants: tenant 'x' matches none of the keys"):
        scenario_files.load(str(table))


def sybil_run() -> list[DequeueEvent]:
    """Four sybil keys with a backlog of 40 each, one honest key with 40: one dequeue per ms,
    served round-robin over the five keys (fair per key)."""
    keys = ["s-0", "s-1", "s-2", "s-3", "honest"]
    return [DequeueEvent(keys[i % 5], f"{keys[i % 5]}#{i // 5}", 0, i + 1) for i in range(200)]


def test_a_sybil_split_is_fair_per_key_and_the_honest_tenant_pays_per_tenant() -> None:
    events = sybil_run()
    weights = dict.fromkeys(["s-0", "s-1", "s-2", "s-3", "honest"], 1.0)
    by_key = key_service(events, weights)
    assert all(s.attainment == pytest.approx(1.0, abs=0.1) for s in by_key.values())
    owner = {"s-0": "sybil", "s-1": "sybil", "s-2": "sybil", "s-3": "sybil", "honest": "honest"}
    figures = tenant_figures(events, owner)
    sybil, honest = figures.rows
    assert honest.dequeued == 40 and sybil.dequeued == 160
    assert honest.fair_share_attainment is not None
    assert honest.fair_share_attainment < 0.5  # owed half, got a fifth
    assert sybil.fair_share_attainment is not None and sybil.fair_share_attainment > 1.5
    assert figures.most_underserved == ("honest", honest.fair_share_attainment)
    assert (sybil.tenant, sybil.keys) == ("sybil", ["s-0", "s-1", "s-2", "s-3"])
    assert (honest.tenant, honest.keys) == ("honest", ["honest"])
    assert most_over_served(figures.attainments()) == ("sybil", sybil.fair_share_attainment)
