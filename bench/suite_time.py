"""How long `uv run pytest` takes from a fresh clone, as CI runs it (issue 33: the whole suite
under 5 minutes on two quiet cores, the fast tier under 90 s).

    uv run python bench/suite_time.py [--workers 4 3] [--repeat 1] [--fast] [--rev HEAD]

Clones the revision into a temp folder, prepares it as `.ci/run` does (the venv with its
bytecode, ckviz's and the tests' compiled), then runs the suite once per worker count and
round, the counts alternating so each sees the same machine. Prints pytest's own time and
the CPU of the whole process tree (every worker, `ckviz` subprocess and server it reaped),
min and median per count, and the machine's load before each go. Nothing is asserted: the
tests that fail are printed, the figures are kept.
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PYTEST_TIME = re.compile(r"in ([0-9.]+)s")


def prepare(clone: Path, rev: str) -> dict[str, str]:
    """A clone of `rev`, its venv and bytecode made as .ci/run makes them; the environment
    the suite runs in."""
    subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
    subprocess.run(["git", "-C", str(clone), "checkout", "-q", rev], check=True)
    dropped = ("PYTHONDONTWRITEBYTECODE", "VIRTUAL_ENV")  # as .ci/run; the clone's venv
    env = {k: v for k, v in os.environ.items() if k not in dropped}
    env |= {"CI": "true", "CKVIZ_REQUIRE_BROWSER": "1"}
    env.setdefault("CKVIZ_REDIS_7", "/usr/bin/redis-server")
    steps = [
        ["uv", "sync", "-q", "--frozen", "--group", "docs", "--compile-bytecode"],
        ["uv", "run", "python", "-m", "compileall", "-q", "-j", "0", "ckviz", "scripts", "bench"],
        ["uv", "run", "pytest", "--collect-only", "-q", "-n", "0", "-p", "no:cacheprovider"],
    ]
    for step in steps:
        subprocess.run(step, cwd=clone, env=env, check=True, stdout=subprocess.DEVNULL)
    return env


def one_go(clone: Path, env: dict[str, str], workers: int, fast: bool) -> tuple[float, float]:
    """pytest's seconds and the process tree's CPU seconds for one run of the suite."""
    args = ["uv", "run", "pytest", "-q", "-p", "no:cacheprovider", "-n", str(workers)]
    if fast:
        args += ["-m", "not slow"]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(args, cwd=clone, env=env, capture_output=True, text=True, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = sum(getattr(after, f) - getattr(before, f) for f in ("ru_utime", "ru_stime"))
    last = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else ""
    if done.returncode != 0:
        print(f"  exit {done.returncode}: {last}")
        for line in done.stdout.splitlines():
            if line.startswith(("FAILED", "ERROR")):
                print(f"  {line}")
    found = PYTEST_TIME.search(last)
    return (float(found.group(1)) if found else float("nan")), cpu


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, nargs="+", default=[4])
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--fast", action="store_true", help='the fast tier: -m "not slow"')
    parser.add_argument("--rev", default="HEAD")
    args = parser.parse_args()
    rev = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--short", args.rev],
        capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    print(f"{platform.node()}: {os.cpu_count()} cores, Python {platform.python_version()}")
    print(f"{rev}, {'fast tier' if args.fast else 'whole suite'}, {time.strftime('%F %H:%M')}")
    figures: dict[int, list[tuple[float, float]]] = {n: [] for n in args.workers}
    with tempfile.TemporaryDirectory(prefix="ckviz-suite-") as folder:
        clone = Path(folder) / "clone"
        env = prepare(clone, rev)
        for round_ in range(args.repeat):
            for workers in args.workers:
                load = os.getloadavg()[0]
                took, cpu = one_go(clone, env, workers, args.fast)
                figures[workers].append((took, cpu))
                go = f"round {round_ + 1}, -n {workers}"
                print(f"{go}: {took:.1f} s, CPU {cpu:.0f} s (load {load:.1f})")
    for workers, runs in figures.items():
        took = [t for t, _ in runs]
        cpu = [c for _, c in runs]
        print(
            f"-n {workers}: pytest {min(took):.1f} / {statistics.median(took):.1f} s, "
            f"CPU {min(cpu):.0f} / {statistics.median(cpu):.0f} s (min / median of {len(runs)})"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
