"""Benchmark: the full default matrix on the embedded server; prints its figures.

Wall seconds, round trips per dequeued run (as the results count them), and commands per
dequeued run: those ckviz sent (a script call is one command) and those the server executed
by INFO commandstats (which also counts every redis.call inside the scripts).
"""

from __future__ import annotations

import argparse
import time

from ckviz.headless.cells import CellOutcome
from ckviz.headless.matrix import MatrixPlan, default_jobs
from ckviz.headless.runner import run_cells
from ckviz.inputs import scenario_files
from ckviz.sim.session import new_namespace
from ckviz.store.server import open_server


def command_counts(client) -> tuple[int, int]:  # type: ignore[no-untyped-def]
    stats = client.info("commandstats")
    return 0, sum(int(v["calls"]) for v in stats.values())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--jobs", type=int, default=default_jobs(), help="default: as ckviz")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--no-check-invariants",
        dest="check",
        action="store_false",
        help="measure without the per-trip invariant checks (on by default, as in ckviz)",
    )
    args = parser.parse_args()
    matrix = scenario_files.load_matrix("default")
    plan = MatrixPlan(
        scenarios=[scenario_files.load(n) for n in matrix.scenarios],
        seeds=list(matrix.seeds),
        treatments=matrix.all_treatments(),
        max_count=matrix.max_count,
        jobs=args.jobs,
        out=scenario_files.bundled_dir(),  # unused: the bench writes no results file
        check_invariants=args.check,
    )
    with open_server() as server:
        client = server.client()
        checks = "on" if args.check else "off"
        print(
            f"redis {server.version} ({server.mode}), jobs={args.jobs}, invariant checks {checks}"
        )
        for attempt in range(1, args.repeat + 1):
            cells = plan.cells(new_namespace("ckviz-bench"))
            before = command_counts(client)
            started = time.perf_counter()
            outcomes: list[CellOutcome] = run_cells(server.url, cells, args.jobs, lambda o: None)
            wall = time.perf_counter() - started
            after = command_counts(client)
            results = [o.result for o in outcomes if o.result]
            dequeued = sum(r.metrics.total_dequeued for r in results)
            trips = sum(r.metrics.redis_round_trips for r in results)
            sent = sum(o.commands_sent for o in outcomes)
            calls = after[1] - before[1] - 2  # minus the two INFO calls of the "before" read
            print(
                f"run {attempt}: {len(results)} runs, {dequeued} dequeued, wall {wall:.2f} s, "
                f"{trips / dequeued:.2f} round trips/run, {sent / dequeued:.2f} commands/run "
                f"sent, {calls / dequeued:.2f} server-side calls/run incl. inside scripts"
            )
        client.close()


if __name__ == "__main__":
    main()
