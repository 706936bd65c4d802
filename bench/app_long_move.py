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

--side-by-side runs the two at the same time instead, each in its own process on its own
embedded server, so a long run shares whatever load the machine has evenly (run one after the
other over an hour, the two would see different neighbours). Each side prints where it stands
every --every seconds (runs out of the total, logical time, wall), then its wall seconds and
CPU seconds (its own process and its server's); the ratio comes last.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import redis

from ckviz.inputs import scenario_files
from ckviz.model.matrix import Treatment
from ckviz.model.scenario import Scenario
from ckviz.player.frames import Frame, Setup
from ckviz.player.lanes import Lockstep
from ckviz.player.player import Player
from ckviz.player.progress import Heard
from ckviz.sim.cell.session import open_cell
from ckviz.store.server import RedisServer, connect, embedded_server

SIDES = ("headless", "app")


class Teller:
    """Prints where a side stands (runs out of the total, logical time, wall) every `every`
    seconds: how far a long run got, should it be stopped before its end."""

    def __init__(self, side: str, total: int, every: float) -> None:
        self.side, self.total, self.every = side, total, every
        self.started = self.last = time.perf_counter()

    def __call__(self, out: int, t: int) -> None:
        now = time.perf_counter()
        if now - self.last < self.every:
            return
        self.last = now
        print(
            f"  {self.side}: {out:,} / {self.total:,} runs out · t={t:,} ms"
            f" · {now - self.started:,.0f} s",
            flush=True,
        )


class UpTo(Lockstep):
    """The app's lanes, a run to the end stopped once `runs` are out (None: the end), telling
    `told` where they stand as the progress line would hear it."""

    def __init__(
        self,
        client: redis.Redis,
        namespace: str,
        runs: int | None,
        told: Callable[[int, int], None] | None = None,
    ) -> None:
        super().__init__(client, namespace)
        self.runs = runs
        self.told = told

    def run_to_end(
        self,
        cancelled: Callable[[], bool],
        closing: Callable[[], bool] = lambda: False,
        heard: Heard | None = None,
    ) -> list[Frame]:
        runs, told = self.runs, self.told

        def stop() -> bool:
            if told is not None:
                t, out = self.where()
                told(out, t)
            return cancelled() or (runs is not None and self.where()[1] >= runs)

        return super().run_to_end(stop, closing, heard)


def headless(
    client: redis.Redis,
    setup: Setup,
    runs: int | None,
    prefix: str,
    told: Callable[[int, int], None] | None = None,
) -> float:
    """The cell as a headless run opens it (checks on, no trace, no history)."""
    treatment = Treatment(discipline=setup.disciplines[0])
    scenario = setup.scenario
    assert isinstance(scenario, Scenario), "a millisecond-clock scenario"
    with open_cell(client, scenario, setup.seed, treatment, prefix) as driver:
        started = time.perf_counter()
        driver.run(progress=told, until_dequeued=runs)
        return time.perf_counter() - started


def in_the_app(
    client: redis.Redis,
    setup: Setup,
    runs: int | None,
    prefix: str,
    told: Callable[[int, int], None] | None = None,
) -> tuple[float, int]:
    player = Player(UpTo(client, prefix, runs, told), setup)
    try:
        player.wait(player.start(setup))
        started = time.perf_counter()
        player.wait(player.run_to_end())
        return time.perf_counter() - started, len(player.recording.frames)
    finally:
        player.close()


def server_cpu(server: RedisServer) -> float:
    """The server process's CPU seconds so far (user + system, from /proc; 0 elsewhere)."""
    try:
        fields = Path(f"/proc/{server.pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    ticks = int(fields[11]) + int(fields[12])  # utime, stime
    return ticks / _TICKS_PER_S


_TICKS_PER_S = 100.0  # os.sysconf("SC_CLK_TCK") on Linux


def one_side(side: str, setup: Setup, runs: int | None, every: float) -> None:
    """One side alone on its own server, telling its progress; its figures last."""
    total = setup.scenario.total_runs if runs is None else runs
    told = Teller(side, total, every)
    cpu = time.process_time()
    with embedded_server() as server:
        client = connect(server.url)
        frames = ""
        if side == "headless":
            wall = headless(client, setup, runs, "ckviz-bench-h:", told)
        else:
            wall, count = in_the_app(client, setup, runs, "ckviz-bench-a:", told)
            frames = f" · scrubber frames after > {count}"
        own, served = time.process_time() - cpu, server_cpu(server)
    print(
        f"  {side}: done · wall {wall:.1f} s · CPU {own:.1f} s + server {served:.1f} s{frames}",
        flush=True,
    )
    print(f"WALL {side} {wall:.3f}", flush=True)


def side_by_side(argv: list[str]) -> None:
    """Both sides at once, each in a child process (so neither waits on the other's GIL), each
    child's lines passed on as they come; the ratio of their walls last."""
    children = [
        subprocess.Popen(
            [sys.executable, __file__, *argv, "--only", side],
            stdout=subprocess.PIPE,
            text=True,
        )
        for side in SIDES
    ]
    walls: dict[str, float] = {}

    def relay(child: subprocess.Popen[str]) -> None:
        assert child.stdout is not None
        for line in child.stdout:
            if line.startswith("WALL "):
                _, side, wall = line.split()
                walls[side] = float(wall)
            else:
                print(line, end="", flush=True)

    relays = [threading.Thread(target=relay, args=(c,)) for c in children]
    for r in relays:
        r.start()
    for r, c in zip(relays, children, strict=True):
        r.join()
        c.wait()
    if len(walls) == len(SIDES):
        print(f"app/headless {walls['app'] / walls['headless']:.2f} (side by side)", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenario", default="ck_many_keys")
    parser.add_argument("--discipline", default="sfq")
    parser.add_argument("--seed", default="seed-a")
    parser.add_argument("--runs", type=int, default=None)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--side-by-side", action="store_true")
    parser.add_argument("--every", type=float, default=60.0, help="progress every N s")
    parser.add_argument("--only", choices=SIDES, help=argparse.SUPPRESS)
    ns = parser.parse_args()
    scenario = scenario_files.load_any(ns.scenario)
    setup = Setup(scenario, ns.seed, (ns.discipline,))
    if ns.only is not None:
        one_side(ns.only, setup, ns.runs, ns.every)
        return
    upto = "to the end" if ns.runs is None else f"to {ns.runs:,} runs out"
    print(f"{ns.scenario} under {ns.discipline}, {ns.seed}, {upto}", flush=True)
    if ns.side_by_side:
        side_by_side([a for a in sys.argv[1:] if a != "--side-by-side"])
        return
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
