"""How long `ckviz` (the app, no flags) takes from process start to its first frame drawn.

    uv run python bench/first_paint.py [--repeat 5] [-- CKVIZ_ARGS...]

Each repeat spawns a fresh interpreter that runs ckviz's own entry point (ckviz.cli.run) with
the app headless (Textual's headless driver, 120x40: no terminal needed, so the terminal
check is skipped) and a hook on the
app's first frame: once it is on screen (after the refresh that draws it) the process prints
the wall milliseconds since the parent spawned it and quits. Printed: min and median over
--repeat runs (issue 37 item 9 asks < 1 s on a quiet machine), and each run's figure. The
embedded server's start is part of it, as a user waits for it.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time

PROBE = """
import os, sys, time
T0 = float(os.environ["CKVIZ_FIRST_PAINT_T0"])
from ckviz.tui.app import CkvizApp

run, show = CkvizApp.run, CkvizApp._show

def headless_run(self, *args, **kwargs):
    return run(self, headless=True, size=(120, 40))

def first_show(self, frame):
    show(self, frame)
    if not getattr(self, "_painted", False):
        self._painted = True
        def painted():
            print(f"first-paint-ms {(time.time() - T0) * 1000:.0f}", file=sys.stderr, flush=True)
            self.exit(0)
        self.call_after_refresh(painted)

CkvizApp.run, CkvizApp._show = headless_run, first_show
import ckviz.commands.app as app_command
app_command.need_terminal = lambda: None  # headless: no terminal to draw on
sys.argv = ["ckviz", *sys.argv[1:]]
from ckviz.cli import run as ckviz_run
ckviz_run()
"""


def one_run(args: list[str]) -> float:
    env = {**os.environ, "CKVIZ_FIRST_PAINT_T0": repr(time.time())}
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *args],
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
    parser.add_argument("ckviz_args", nargs="*")
    ns = parser.parse_args()
    figures = [one_run(ns.ckviz_args) for _ in range(ns.repeat)]
    print(
        f"first paint: min {min(figures):.0f} ms, median {statistics.median(figures):.0f} ms "
        f"over {len(figures)} runs ({', '.join(f'{f:.0f}' for f in figures)})"
    )


if __name__ == "__main__":
    main()
