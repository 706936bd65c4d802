"""`ckviz --headless`: run the plan's cells on a workspace, with their progress; the end
(results, tables, exit code) is headless/ending.py's."""

from __future__ import annotations

import contextlib
import importlib
import time
from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import TYPE_CHECKING

import redis
from redis.cluster import RedisCluster

from ckviz.errors import RedisUnavailable
from ckviz.headless.cells import Cell, CellOutcome
from ckviz.headless.consoles import Consoles
from ckviz.headless.events import spool_folder
from ckviz.headless.plan import MatrixPlan
from ckviz.headless.runner import Interrupted, run_cells
from ckviz.model.results import RunResult
from ckviz.sim.cell import ServerChoice, open_workspace
from ckviz.store.cluster import Keyspace, route_cells
from ckviz.store.server import RedisServer, connect, server_run_id

if TYPE_CHECKING:
    from rich.console import Console


def run_matrix(plan: MatrixPlan, choice: ServerChoice, consoles: Consoles) -> int:
    """Run the plan on the server `choice` names; results are written whatever happens.
    Returns the exit code.

    Keys go under a namespace claimed on the server, swept at the end even on failure. A cell
    that loses the server stops the matrix: later cells would only fail the same way."""
    with spool_folder(plan.events is not None) as spool:
        with open_workspace(choice, plan.need(), allow_cluster=True) as workspace:
            server = workspace.server
            cells = _routed(plan.my_cells(workspace.namespace), server, workspace.keyspace)
            cells = [replace(c, events_spool=spool, progress=not plan.quiet) for c in cells]
            cells = _with_run_ids(cells, server.url, workspace.client)
            started = time.perf_counter()
            outcomes, stop = _run_with_progress(server, cells, plan.jobs, consoles, plan.quiet)
        wall_s = time.perf_counter() - started
        from ckviz.headless.ending import CellsRun, finish  # loaded while the cells ran

        run = CellsRun(
            server, outcomes, len(cells), stop, wall_s, workspace.left, workspace.evicted, spool
        )
        return finish(plan, run, consoles)


def _routed(cells: list[Cell], server: RedisServer, keyspace: Keyspace) -> list[Cell]:
    """In a cluster, each cell goes to the primary owning its slot (checked before the first
    cell runs); elsewhere the cells run on the one server."""
    if not server.cluster or not isinstance(keyspace, RedisCluster):
        return cells
    routes = route_cells(keyspace, server.url, [c.prefix for c in cells])
    return [replace(c, node_url=routes[c.prefix]) for c in cells]


def _with_run_ids(cells: list[Cell], url: str, client: redis.Redis) -> list[Cell]:
    """Each cell carries the run id its server (in a cluster, its node) has now, for the
    cell to check at its start: a server restarted between two cells stops the matrix.
    `client`: the workspace's, on `url`."""
    run_ids = {url: server_run_id(client)}
    for node in {c.node_url for c in cells if c.node_url and c.node_url != url}:
        node_client = connect(node)
        try:
            run_ids[node] = server_run_id(node_client)
        finally:
            node_client.close()
    return [replace(c, server_run_id=run_ids[c.node_url or url]) for c in cells]


# What only the matrix's end uses, loaded while the cells run: the parent's start is the one
# stretch where a core idles (every cell waits for it), the cells' the one where it does not.
_FOR_THE_END = ("ckviz.headless.ending",)


def _run_with_progress(
    server: RedisServer, cells: list[Cell], jobs: int, consoles: Consoles, quiet: bool
) -> tuple[list[CellOutcome], Interrupted | None]:
    # a shard's cells keep the matrix's indices; the count shown is the place in this run
    place = {cell.index: i for i, cell in enumerate(cells)}
    with contextlib.ExitStack() as later:
        advance: list[Callable[[], None]] = []

        def under_way() -> None:  # the workers run their first cells (none are forked later)
            for name in _FOR_THE_END:
                importlib.import_module(name)
            if not quiet:  # which server, its version and why that one (docs/headless.md)
                consoles.line(server.described)
            advance.append(later.enter_context(_progress_bar(consoles.stderr, quiet, len(cells))))

        def on_done(outcome: CellOutcome) -> None:
            cell = cells[place[outcome.index]]
            status = outcome.error or _cell_line(outcome.result)
            if not quiet:
                consoles.line(
                    f"[{place[outcome.index] + 1}/{len(cells)}] {cell.scenario.name} "
                    f"{cell.treatment.name} {cell.seed}: {status}"
                )
            advance[0]()

        try:
            own = yields_to_server(server)
            outcomes = run_cells(server.url, cells, jobs, on_done, _lost_server, own, under_way)
            return outcomes, None
        except Interrupted as stop:
            return stop.outcomes, stop


def yields_to_server(server: RedisServer) -> bool:
    """The workers yield the cores to the server only when it is the one ckviz started on
    this machine: a server named by URL (or Docker's) is not in their scheduling group, may
    be on another machine, and lower-priority workers would only yield to everything else."""
    return server.mode == "embedded" and server.pid is not None


def _lost_server(outcome: CellOutcome) -> bool:
    return outcome.exit_code == RedisUnavailable.exit_code


def _cell_line(result: RunResult | None) -> str:
    if result is None:
        return "-"
    m = result.metrics
    return (
        f"worst share {m.contention_worst_share_over_weight:.5f}, "
        f"{m.redis_round_trips} trips, {m.wall_clock_ms:.0f} ms"
    )


@contextlib.contextmanager
def _progress_bar(console: Console, quiet: bool, total: int) -> Iterator[Callable[[], None]]:
    """A bar of cells done on a terminal, gone when the run ends; its `advance`. Elsewhere
    (a CI log, a file: nothing would be drawn) nothing: no drawing thread, and rich's live
    display not even imported."""
    if quiet or not console.is_interactive:
        yield lambda: None
        return
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
    )

    bar = Progress(
        TextColumn("[bold]ckviz"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
        transient=True,
    )
    with bar:
        task = bar.add_task("cells", total=total)
        yield lambda: bar.advance(task)
