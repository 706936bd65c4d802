"""Where one step of the terminal app spends its time: the engine's serve, the snapshot, the
fairness headline, drawing the panes and Textual's render, timed part by part.

    uv run python bench/tui_frame.py [--keys 10000] [--steps 20] [--discipline sfq]

Runs the app headless at 160x50 on bench/tui_step.py's scenario (one heavy backlog, the rest
light keys trickling in), presses `space` --steps times and prints, per part, the wall time
(min / median per step) and the CPU time the part's own thread spent (median per step). CPU
time moves much less with the machine's load than wall time, so it tells where a step's time
goes on a shared machine; the engine's wall time beyond its CPU is mostly waiting on Redis
(the server's own work: a rescoring discipline rewrites every key's score per serve).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tui_step import SCENARIO, SIZE, light_runs, open_app, pressed, until_shown

PARTS = ("engine step", "snapshot", "fairness", "panes shown", "render")
Times = dict[str, list[tuple[float, float]]]  # part -> (wall, thread CPU) per call


def timed(times: Times, owner: Any, name: str, part: str) -> None:
    """Wrap `owner.name` so each call adds its wall and thread CPU time to `part`."""
    inner: Callable[..., Any] = getattr(owner, name)

    def wrapped(*args: Any, **kwargs: Any) -> Any:
        wall, cpu = time.perf_counter(), time.thread_time()
        try:
            return inner(*args, **kwargs)
        finally:
            times[part].append((time.perf_counter() - wall, time.thread_time() - cpu))

    setattr(owner, name, wrapped)


def instrument(times: Times) -> None:
    from textual.screen import Screen

    from ckviz.player.lane_fairness import LaneFairness
    from ckviz.sim.millisecond_clock.driver import Driver
    from ckviz.tui.screens.main import MainScreen

    timed(times, Driver, "step", "engine step")
    timed(times, Driver, "snapshot", "snapshot")
    timed(times, LaneFairness, "now", "fairness")
    timed(times, MainScreen, "show", "panes shown")
    timed(times, Screen, "_on_timer_update", "render")


async def steps(client: Any, path: Path, discipline: str, count: int, times: Times) -> list[float]:
    app = await open_app(client, path, discipline, compare=False)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await until_shown(app, pilot)
            await pressed(app, app.action_step, wait=True)  # the first arrivals: not a step's
            times.clear()
            taken = [await pressed(app, app.action_step, wait=True) for _ in range(count)]
            await pilot.press("q")
    finally:
        app.close_now()
    return taken


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keys", type=int, default=10_000)
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--discipline", default="sfq")
    args = parser.parse_args()
    from ckviz.store.server import open_server
    from ckviz.tui.launch import tune_gc

    tune_gc()  # as run_app does
    times: Times = defaultdict(list)
    instrument(times)
    with (
        tempfile.TemporaryDirectory(prefix="ckviz-bench-") as tmp,
        open_server() as server,
        contextlib.closing(server.client()) as client,
    ):
        path = Path(tmp) / f"bench_{args.keys}_keys.toml"
        light = args.keys - 1
        path.write_text(SCENARIO.format(light=light, runs=light_runs(light)), encoding="utf-8")
        taken = asyncio.run(steps(client, path, args.discipline, args.steps, times))
    print(f"{args.keys} keys, {args.discipline}, {args.steps} steps at {SIZE[0]}x{SIZE[1]}")
    print(f"step, press to rendered: {ms(min(taken))} / {ms(statistics.median(taken))} ms")
    print(f"{'part':<12} {'wall min / median ms':>22} {'CPU median ms':>14} {'CPU per step':>13}")
    for part in PARTS:  # per call (render runs a few times a press, most with nothing to draw)
        calls = times.get(part, [])
        if not calls:
            print(f"{part:<12} {'-':>22} {'-':>14} {'-':>13}")
            continue
        walls, cpus = [w for w, _ in calls], [c for _, c in calls]
        wall = f"{ms(min(walls))} / {ms(statistics.median(walls))}"
        total = ms(sum(cpus) / args.steps)
        print(f"{part:<12} {wall:>22} {ms(statistics.median(cpus)):>14} {total:>13}")
    return 0


def ms(seconds: float) -> str:
    return f"{1000 * seconds:.1f}"


if __name__ == "__main__":
    sys.exit(main())
