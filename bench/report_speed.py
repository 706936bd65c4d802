"""The CPU a user pays for `ckviz report` of the default matrix's results: the whole command
(interpreter start, imports, reading, every figure drawn, the page written), in a process of
its own each time.

    uv run python bench/report_speed.py [--repeat 5] [--against REV] [RESULTS.json]

Without RESULTS.json it runs the default matrix first (`ckviz --headless`) for a results
file. Each go's CPU is the child's own (user + system, from its rusage), not the wall: on a
shared machine the wall moves with the others' load far more than the CPU does. Printed:
min and median over --repeat goes, and each go's figure. --against REV measures REV's ckviz
too (bench/trees.py), the trees alternating go by go, and says whether the two pages are the
same bytes (the report holds no timing of its own: same results, same page).
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import statistics
import subprocess
import tempfile
from pathlib import Path

from trees import ckviz_argv, env_of, trees_to_measure


def one_go(tree: Path, results: Path, page: Path) -> float:
    """The CPU seconds of one `ckviz report RESULTS --out PAGE`, run with `tree`'s ckviz (the
    children's rusage before and after: the child is this process's only one meanwhile)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(  # run beside the file, named as typed: each page names it alike
        ckviz_argv("report", results.name, "--out", str(page), "--force", "--quiet"),
        cwd=results.parent,
        env=env_of(tree),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        timeout=600,
        check=False,
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"ckviz report failed ({tree}): {done.stderr.strip()[-400:]}")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def default_results(folder: Path) -> Path:
    path = folder / "results.json"
    print("running the default matrix for a results file ...", flush=True)
    subprocess.run(ckviz_argv("--headless", "--out", str(path)), check=True, capture_output=True)
    return path


def machine() -> str:
    load = " ".join(f"{x:.1f}" for x in os.getloadavg())
    cores = f"{platform.machine()}, {os.cpu_count()} cores"
    return f"{cores}, Python {platform.python_version()}, load average {load}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--against", metavar="REV", help="REV's ckviz too, go by go")
    parser.add_argument("results", nargs="?", type=Path)
    ns = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="ckviz-report-speed-") as tmp:
        folder = Path(tmp)
        results = (ns.results or default_results(folder)).resolve()
        trees = trees_to_measure(ns.against, folder)
        print(f"machine: {machine()}")
        cpu: dict[str, list[float]] = {name: [] for name in trees}
        pages = {name: folder / f"page-{i}.html" for i, name in enumerate(trees)}
        for _ in range(ns.repeat):  # the trees alternate: both see the same load
            for name, tree in trees.items():
                cpu[name].append(one_go(tree, results, pages[name]))
        print(f"load after: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
        for name, goes in cpu.items():
            print(
                f"ckviz report CPU ({name}): min {min(goes):.2f} s, median "
                f"{statistics.median(goes):.2f} s over {len(goes)} goes "
                f"({', '.join(f'{g:.2f}' for g in goes)})"
            )
        if len(pages) > 1:
            first, *others = (p.read_bytes() for p in pages.values())
            print(f"same page bytes: {'yes' if all(o == first for o in others) else 'NO'}")


if __name__ == "__main__":
    main()
