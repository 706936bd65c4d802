"""Start the app on a Redis server and return the shell's exit code."""

from __future__ import annotations

import gc

from ckviz.defaults import DEFAULT_DISCIPLINE, DEFAULT_SCENARIO, DEFAULT_SEED
from ckviz.errors import ExitCode
from ckviz.model.lineup import Lineup
from ckviz.model.results import RedisInfo
from ckviz.outputs.writer import Output
from ckviz.player.lanes import Lockstep
from ckviz.sim.cell import new_namespace
from ckviz.sim.engine import YOUNG_THRESHOLD
from ckviz.store.server import RedisServer
from ckviz.tui.app import CkvizApp
from ckviz.tui.casting import recorded


def tune_gc() -> None:
    """Let a step's many short-lived objects die young.

    Each step allocates thousands of objects (snapshot rows, index entries, rendered strips).
    With CPython's default first threshold (700) many live just long enough to be promoted,
    which sets off full collections of the whole heap (long pauses: docs/performance.md).
    A larger first threshold keeps those pauses out of stepping. Process-wide, so only the
    process that runs the app calls it (a run to the end raises it the same way, for any
    caller: sim/engine/collector.py).
    """
    gc.set_threshold(YOUNG_THRESHOLD, 20, 20)


def run_app(
    server: RedisServer,
    scenario_name: str = DEFAULT_SCENARIO,
    discipline: str = DEFAULT_DISCIPLINE,
    seed: str = DEFAULT_SEED,
    *,
    namespace: str | None = None,
    compare_with: str | None = None,
    check_invariants: bool = True,
    consumers: int | Lineup | None = None,
    record: Output | None = None,
) -> int:
    """Run the app on `server` until the user quits; the exit code to return to the shell.

    Keys go under `namespace` (a fresh `ckviz:<random>:` if None). Raises UsageError for an
    unknown scenario or discipline (before anything starts). With `record`, the session is
    written there as an asciicast when the app ends.
    """
    client = server.client()
    try:
        lanes = Lockstep(client, namespace or new_namespace())
        redis = RedisInfo(version=server.version, mode=server.mode)
        app = CkvizApp(
            lanes,
            scenario_name,
            discipline,
            seed,
            compare_with=compare_with,
            handle_signals=True,
            check_invariants=check_invariants,
            consumers=consumers,
            redis=redis,
        )
        tune_gc()
        with recorded(app, record, f"ckviz {scenario_name} {discipline}"):
            try:
                result = app.run()
            finally:
                app.close_now()
    finally:
        client.close()
    if result is None:  # ended without quitting through `q` (e.g. an unexpected error)
        error = app.player.error
        return int(error.exit_code) if error else int(ExitCode.OK)
    return int(result)
