"""The discipline door: scripts found by file, one way to call them, state keys passed along."""

from __future__ import annotations

import re
from collections.abc import Sequence
from importlib import resources

import pytest
import redis

from ckviz.disciplines.baseline import Baseline
from ckviz.disciplines.registry import make_discipline
from ckviz.inputs import scenario_files
from ckviz.inputs.workload import generate
from ckviz.model.queue import DisciplineState, IndexEntry, PlannedRun
from ckviz.sim.millisecond_clock.config import DriverConfig
from ckviz.sim.millisecond_clock.driver import Driver
from ckviz.store.keys import BASE
from ckviz.store.runqueue import RunQueue
from ckviz.store.scripts import Door, load_scripts


@pytest.mark.parametrize("package", ["ckviz.store", "ckviz.disciplines.vtime"])
def test_every_lua_file_but_the_lib_is_a_script_with_the_lib_functions_it_calls_in_front(
    package: str,
) -> None:
    folder = resources.files(package) / "lua"
    files = {f.name[:-4] for f in folder.iterdir() if f.name.endswith(".lua")}
    scripts = load_scripts(package)
    assert set(scripts) == files - {"lib"} and {"enqueue", "dequeue", "ack"} <= files
    lib = (resources.files("ckviz.store") / "lua" / "lib.lua").read_text()
    for name, script in scripts.items():
        body = (folder / f"{name}.lua").read_text()
        assert script.source.endswith(body)
        front = script.source[: -len(body)]
        for function in re.findall(r"^local function (\w+)", front, re.M):
            assert f"local function {function}(" in lib + lib_texts(package)


def lib_texts(package: str) -> str:
    found = [resources.files(p) / "lua" / "lib.lua" for p in (package, "ckviz.store.lifecycle")]
    return "".join(f.read_text() for f in found if f.is_file())


def test_a_queue_loads_the_stores_scripts_and_its_doors_own() -> None:
    door = make_discipline("vtime").door
    queue = RunQueue(redis.Redis(), "unused:", 1, door=door)
    loaded = {s.sha for s in queue.scripts}
    assert {s.sha for s in load_scripts().values()} | {s.sha for s in door.scripts} == loaded
    assert door.ack.sha != load_scripts()["ack"].sha  # HEAD parks a drained key's tag
    assert make_discipline("vtime-v17").door.ack == load_scripts()["ack"]  # V17 acks as ever


class InRedis:
    """A discipline whose order lives in Redis: it names scripts and keys, ranks nothing."""

    name = "in-redis"
    door = Door(state_keys=("ckProbe", "ckProbeFloor"), argv=("quantum", 7))

    def order(self, active: Sequence[IndexEntry], now: int) -> list[str]:
        return [e.member for e in sorted(active, key=lambda e: (e.score, e.member))]

    def advance(self, active: Sequence[IndexEntry], now: int) -> list[str]:
        raise AssertionError("the driver must not rank for a discipline that lives in Redis")

    def on_serviced(self, key: str) -> None:
        return None

    def state(self) -> DisciplineState:
        return DisciplineState(self.name)


def test_a_doors_state_keys_follow_every_script_call(client: redis.Redis, prefix: str) -> None:
    queue = RunQueue(client, prefix, 4, door=InRedis.door)
    trip = queue.trip()
    trip.enqueue(PlannedRun("a", "a~0#0", 0, 5), 1)
    trip.dequeue(1, 2)
    trip.ack("a~0#0", "a")
    probe = (f"{prefix}{BASE}:ckProbe", f"{prefix}{BASE}:ckProbeFloor")
    for args, _, _ in trip._commands:
        count = args[2]
        assert tuple(args[3 : 3 + count][-2:]) == probe
        assert args[-2:] == ("quantum", 7)  # its own ARGV after the usual ones


def run(client: redis.Redis, prefix: str, discipline: Baseline | InRedis) -> list[tuple[str, int]]:
    sc = scenario_files.load("ck_skew")
    config = DriverConfig("ck_skew", "seed-a", sc.env_limit, sc.weights())
    queue = RunQueue(client, prefix, sc.env_limit, door=discipline.door)
    queue.open()
    try:
        driver = Driver(config, generate(sc, "seed-a"), discipline, queue)
        driver.run()
        return [(e.run_id, e.dequeued_ms) for e in driver.events]
    finally:
        queue.close()


def test_a_discipline_in_redis_runs_through_the_same_door_as_the_baseline(
    client: redis.Redis, prefix: str
) -> None:
    # the stock scripts ignore the extra keys, so this one serves exactly as the baseline does
    assert run(client, f"{prefix}x:", InRedis()) == run(client, f"{prefix}b:", Baseline())
