"""How long `ckviz` (the app, no flags) takes from process start to its first frame drawn.

    uv run python bench/first_paint.py [--repeat 5] [--against REV] [-- CKVIZ_ARGS...]

Each repeat spawns a fresh interpreter that runs ckviz's own entry point (ckviz.cli.run) with
the app headless and a hook on its first frame (bench/first_frame_probe.py): once the frame is
on screen the process prints the wall milliseconds since the parent spawned it and quits.
Printed: min and median over --repeat runs (issue 37 item 9 asks < 1 s on a quiet machine),
each run's figure, and the machine's load average before and after.
The embedded server's start is part of it, as a user waits for it. --against REV measures
REV's ckviz too (bench/trees.py), the trees alternating run by run.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from trees import env_of, trees_to_measure

PROBE = Path(__file__).resolve().parent / "first_frame_probe.py"


def one_run(args: list[str], tree: Path) -> float:
    env = {**env_of(tree), "FIRST_FRAME_T0": repr(time.time())}
    done = subprocess.run(
        [sys.executable, "-P", str(PROBE), *args],  # -P: the tree's ckviz, not the folder's
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        timeout=120,
        check=False,
    )
    for line in done.stderr.splitlines():
        if line.startswith("first-paint-ms "):
            return float(line.split()[1])
    raise SystemExit(f"no first frame (exit {done.returncode}): {done.stderr.strip()[-400:]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--against", metavar="REV", help="REV's ckviz too, run by run")
    parser.add_argument("ckviz_args", nargs="*")
    ns = parser.parse_args()
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="ckviz-first-paint-") as folder:
        trees = trees_to_measure(ns.against, Path(folder))
        figures: dict[str, list[float]] = {name: [] for name in trees}
        for _ in range(ns.repeat):  # the trees alternate: both see the same load
            for name, tree in trees.items():
                figures[name].append(one_run(ns.ckviz_args, tree))
    print(f"load average (1 min): {load_before:.1f} before, {os.getloadavg()[0]:.1f} after")
    for name, runs in figures.items():
        print(
            f"first paint ({name}): min {min(runs):.0f} ms, median {statistics.median(runs):.0f}"
            f" ms over {len(runs)} runs ({', '.join(f'{f:.0f}' for f in runs)})"
        )


if __name__ == "__main__":
    main()
