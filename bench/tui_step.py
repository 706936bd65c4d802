"""Time per step of the terminal app with 200 keys: engine (driver thread) + showing + render.

    uv run python bench/tui_step.py [--steps 300] [--discipline sfq] [--compare]

Writes a temporary 200-key scenario, starts the embedded Redis, runs the app headless at
160x50 and presses `space` (one dequeue round) `--steps` times, waiting each time until the
frame is on screen and the screen has been rendered. Aim: under 50 ms a step.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from ckviz.lanes import Lockstep
from ckviz.sim.session import new_namespace
from ckviz.store.server import open_server
from ckviz.tui.app import CkvizApp, tune_gc
from ckviz.tui.messages import DriverFailed, Stepped

SCENARIO = """\
description = "Bench: one heavy backlog and 199 light keys trickling in behind it."
env_limit = 16

[[keys]]
name = "heavy"
runs = 2000
arrival = "immediate"
hold_ms_mean = 25

[[keys]]
name = "light"
count = 199
runs = 10
arrival = "poisson"
rate_per_sec = 5
hold_ms_mean = 25
"""


class TimedApp(CkvizApp):
    """The app, plus a signal when a frame has been handled and the engine time per job."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.handled = asyncio.Event()
        self.engine_s: list[float] = []

    def timed_lockstep(self) -> None:
        for name in ("step_round", "step_instant"):
            step = getattr(self.lockstep, name)

            def timed(step: Any = step) -> Any:
                start = time.perf_counter()
                try:
                    return step()
                finally:
                    self.engine_s.append(time.perf_counter() - start)

            setattr(self.lockstep, name, timed)

    async def on_stepped(self, message: Stepped) -> None:
        await super().on_stepped(message)
        self.handled.set()

    def on_driver_failed(self, message: DriverFailed) -> None:
        super().on_driver_failed(message)
        self.handled.set()


async def bench(path: Path, steps: int, discipline: str, compare: bool) -> list[float]:
    with open_server() as server, contextlib.closing(server.client()) as client:
        compare_with = "baseline" if compare else None
        app = TimedApp(Lockstep(client, new_namespace()), str(path), discipline,
                       compare_with=compare_with)  # fmt: skip
        totals: list[float] = []
        try:
            async with app.run_test(size=(160, 50)) as pilot:
                while app.busy or (app.recording.current is None and app.error is None):
                    await pilot.pause()
                app.timed_lockstep()
                for _ in range(steps):
                    app.handled.clear()
                    start = time.perf_counter()
                    app.action_step()
                    await app.handled.wait()
                    app.screen._on_timer_update()  # render now, as the screen's update timer would
                    totals.append(time.perf_counter() - start)
                    if app.error is not None:
                        raise SystemExit(f"the app failed: {app.error}")
                    if app.recording.current is not None and app.recording.current.done:
                        break
                await pilot.press("q")
        finally:
            app.close_now()
        report(totals, app.engine_s, discipline + (" vs baseline" if compare else ""))
        return totals


def report(totals: list[float], engine: list[float], label: str) -> None:
    def ms(values: list[float], q: float) -> float:
        ordered = sorted(values)
        return 1000 * ordered[min(len(ordered) - 1, int(q * len(ordered)))]

    n = len(totals)
    print(f"{label}: {n} steps, 200 keys")
    print(f"  per step (engine + show + render): mean {1000 * statistics.mean(totals):.1f} ms,"
          f" median {ms(totals, 0.5):.1f} ms, p95 {ms(totals, 0.95):.1f} ms")  # fmt: skip
    print(f"  of which engine (driver thread):   mean {1000 * statistics.mean(engine):.1f} ms,"
          f" median {ms(engine, 0.5):.1f} ms, p95 {ms(engine, 0.95):.1f} ms")  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--discipline", default="sfq")
    parser.add_argument("--compare", action="store_true", help="two lanes (vs baseline)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="ckviz-bench-") as tmp:
        path = Path(tmp) / "bench_200_keys.toml"
        path.write_text(SCENARIO, encoding="utf-8")
        tune_gc()  # as run_app does
        totals = asyncio.run(bench(path, args.steps, args.discipline, args.compare))
    return 0 if statistics.mean(totals) < 0.050 else 1


if __name__ == "__main__":
    sys.exit(main())
