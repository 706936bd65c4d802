"""A run to the end (`>`) in the app against the same cell run headless, and the frames the
scrubber has after it.

    uv run python bench/app_long_move.py [--scenario ck_many_keys] [--discipline sfq]
                                         [--seed seed-a] [--runs N] [--repeat 1]

On one embedded server, per repeat (the two alternate, so both see the same load):
  headless  the cell as `ckviz --headless` runs it (its engine's run(), checks on, nobody
            watching), wall seconds
  app       the app's player (no terminal: the same Player and lanes the app drives, the
            app's view of 100 rows) pressed `>`, until its job has landed, wall seconds; with
            the frames it recorded (what `[` and `]` step through afterwards)
Printed: each figure, the ratio app / headless (issue 37 item 6 asks <= 2), and the frames.
--runs N stops both once N runs are out (ck_many_keys under sfq takes half an hour or more to
the end: 84 ms a run at 10,001 keys, docs/performance.md); the default runs to the end.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

import redis

from ckviz.inputs import scenario_files
from ckviz.model.matrix import Treatment
from ckviz.model.scenario import Scenario
from ckviz.player.frames import Frame, Setup
from ckviz.player.lanes import Lockstep
from ckviz.player.player import Player
from ckviz.player.progress import Heard
from ckviz.sim.cell.session import open_cell
from ckviz.store.server import connect, embedded_server


class UpTo(Lockstep):
    """The app's lanes, a run to the end stopped once `runs` are out (None: the end)."""

    def __init__(self, client: redis.Redis, namespace: str, runs: int | None) -> None:
        super().__init__(client, namespace)
        self.runs = runs

    def run_to_end(
        self,
        cancelled: Callable[[], bool],
        closing: Callable[[], bool] = lambda: False,
        heard: Heard | None = None,
    ) -> list[Frame]:
        runs = self.runs
        if runs is None:
            return super().run_to_end(cancelled, closing, heard)
        return super().run_to_end(lambda: cancelled() or self.where()[1] >= runs, closing, heard)


def headless(client: redis.Redis, setup: Setup, runs: int | None, prefix: str) -> float:
    """The cell as a headless run opens it (checks on, no trace, no history)."""
    treatment = Treatment(discipline=setup.disciplines[0])
    scenario = setup.scenario
    assert isinstance(scenario, Scenario), "a millisecond-clock scenario"
    with open_cell(client, scenario, setup.seed, treatment, prefix) as driver:
        started = time.perf_counter()
        driver.run(until_dequeued=runs)
        return time.perf_counter() - started


def in_the_app(
    client: redis.Redis, setup: Setup, runs: int | None, prefix: str
) -> tuple[float, int]:
    player = Player(UpTo(client, prefix, runs), setup)
    try:
        player.wait(player.start(setup))
        started = time.perf_counter()
        player.wait(player.run_to_end())
        return time.perf_counter() - started, len(player.recording.frames)
    finally:
        player.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenario", default="ck_many_keys")
    parser.add_argument("--discipline", default="sfq")
    parser.add_argument("--seed", default="seed-a")
    parser.add_argument("--runs", type=int, default=None)
    parser.add_argument("--repeat", type=int, default=1)
    ns = parser.parse_args()
    scenario = scenario_files.load_any(ns.scenario)
    setup = Setup(scenario, ns.seed, (ns.discipline,))
    upto = "to the end" if ns.runs is None else f"to {ns.runs:,} runs out"
    print(f"{ns.scenario} under {ns.discipline}, {ns.seed}, {upto}")
    ratios = []
    with embedded_server() as server:
        client = connect(server.url)
        for i in range(ns.repeat):
            alone = headless(client, setup, ns.runs, f"ckviz-bench-h{i}:")
            app, frames = in_the_app(client, setup, ns.runs, f"ckviz-bench-a{i}:")
            ratios.append(app / alone)
            print(
                f"  headless {alone:.1f} s · app {app:.1f} s · app/headless {app / alone:.2f}"
                f" · scrubber frames after > {frames}",
                flush=True,
            )
    print(f"app/headless: min {min(ratios):.2f}, median {statistics.median(ratios):.2f}")


if __name__ == "__main__":
    main()
