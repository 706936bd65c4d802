"""How many bytes ckviz's keys will take on a server, measured rather than assumed: a sample of
the workload's own runs (its key names, run ids and payloads) is enqueued under the claimed
namespace through the real enqueue script, each key's MEMORY USAGE summed, the sample deleted,
and the figure scaled to the whole workload by the bytes of its names.

Asked only of a server that evicts (see store/preflight.check_eviction), so a run on the
embedded server or one without an eviction policy writes no sample."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

import redis

from ckviz.defaults import DEFAULT_SEED
from ckviz.errors import RedisUnavailable, first_line
from ckviz.inputs.workload import each_run
from ckviz.model.clock import SCORE_BASE
from ckviz.model.queue import PlannedRun, run_id
from ckviz.model.scenario import Scenario
from ckviz.model.steps import FRESH_PREFIX, StepScenario
from ckviz.store.prefix import delete_prefix, keys_under
from ckviz.store.runqueue import RunQueue

SAMPLE_KEYS = 8
# Past the 128 entries where Redis turns a small sorted set (listpack) into a skiplist, which
# costs several times more per entry: a key's queue that grows past it in the run does in the
# sample too.
SAMPLE_RUNS_PER_KEY = 160
RUN_BYTES = 96  # a run's cost beyond its names (entries, headers), for scaling only
MARGIN = 1.5  # a discipline's own state in Redis, allocator rounding, the measure's slack
# Bytes per name byte above any measured (2.3 to 3.7 on the bundled scenarios and 200-character
# keys): the estimate when even the sample could press on the server's headroom.
ROUGH_PER_NAME_BYTE = 6
FIXED_BYTES = 256 * 1024  # the scripts, the env's keys, the connections' buffers

AnyScenario = Scenario | StepScenario


def planned_runs(scenario: AnyScenario) -> Iterable[PlannedRun]:
    """Every run the scenario may enqueue (under the first seed: the names, which is what
    the memory depends on, do not change with it); a trace's read as they are asked for."""
    if isinstance(scenario, Scenario):
        return each_run(scenario, DEFAULT_SEED)
    names = [name for spec in scenario.keys for name in spec.names() for _ in range(spec.runs)]
    arriving = scenario.total_runs - len(names)  # minted and refed between calls: one each
    names += [f"{FRESH_PREFIX}{i}" for i in range(arriving)]
    return [PlannedRun(name, run_id(name, i), 0, 1) for i, name in enumerate(names)]


def sample(runs: Iterable[PlannedRun]) -> tuple[list[PlannedRun], int]:
    """The runs of up to SAMPLE_KEYS keys spread over the workload's keys (first to last),
    at most SAMPLE_RUNS_PER_KEY of each, and the name bytes of every run: one pass that keeps
    only each key's first runs (a trace's runs stream by)."""
    by_key: dict[str, list[PlannedRun]] = {}
    every = 0
    for run in runs:
        every += RUN_BYTES + len(run.key.encode()) + len(run.run_id.encode())
        first = by_key.get(run.key)
        if first is None:
            by_key[run.key] = [run]
        elif len(first) < SAMPLE_RUNS_PER_KEY:
            first.append(run)
    keys = list(by_key)
    step = max(1, len(keys) // SAMPLE_KEYS)
    chosen = keys[::step][:SAMPLE_KEYS]
    return [run for key in chosen for run in by_key[key]], every


def name_bytes(runs: Sequence[PlannedRun]) -> int:
    return sum(RUN_BYTES + len(r.key.encode()) + len(r.run_id.encode()) for r in runs)


def measured_bytes(client: redis.Redis, prefix: str, runs: Sequence[PlannedRun]) -> int:
    """MEMORY USAGE of every key `runs` make when enqueued under `prefix` (then deleted)."""
    queue = RunQueue(client, prefix, env_limit=1)
    try:
        queue.open()
        trip = queue.trip()
        for run in runs:
            trip.enqueue(run, SCORE_BASE + run.arrival_ms)
        trip.send()
        names = list(keys_under(client, prefix))
        return sum(int(client.memory_usage(name, samples=0) or 0) for name in names)
    finally:
        queue.close()
        delete_prefix(client, prefix)


def workload_bytes(
    client: redis.Redis | None, prefix: str, scenario: AnyScenario, free: int
) -> int:
    """The bytes one lane of `scenario` may hold with every run queued at once. The sample is
    written only where it takes at most a quarter of the `free` bytes (it must not evict
    anything itself); where it would take more, the run cannot fit either, and the rough
    figure says so. Without a client to sample on (a cluster node, which may not own the
    sample's slot), the rough figure too."""
    chosen, every = sample(planned_runs(scenario))
    if not every:
        return 0
    rough = ROUGH_PER_NAME_BYTE * every
    if client is None or ROUGH_PER_NAME_BYTE * name_bytes(chosen) > free // 4:
        return rough
    try:
        measured = measured_bytes(client, prefix, chosen)
    except redis.ResponseError:  # MEMORY USAGE (or SCAN) denied by an ACL: the rough figure
        return rough
    except (redis.RedisError, OSError) as exc:
        raise RedisUnavailable(f"measuring what ckviz will write: {first_line(exc)}") from None
    return int(measured / name_bytes(chosen) * every * MARGIN)


Need = Callable[[redis.Redis | None, str, int], int]


def need_of(scenarios: Sequence[AnyScenario], lanes: int) -> Need:
    """What `lanes` lanes of the largest of `scenarios` may hold at once: (client to sample
    on or None, claimed namespace, free bytes) -> bytes, measured when asked."""

    def need(client: redis.Redis | None, namespace: str, free: int) -> int:
        prefix = f"{namespace}footprint:"
        largest = max(workload_bytes(client, prefix, s, free) for s in scenarios)
        return largest * lanes + FIXED_BYTES

    return need
