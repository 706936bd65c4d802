"""Benchmark: the results file of a large run, in both layouts.

    uv run python bench/results_size.py                      # ck_many_keys: 10,001 keys
    uv run python bench/results_size.py --scenario ck_100k_keys
    uv run python bench/results_size.py --light 30000        # ck_many_keys resized

Runs `ckviz --headless` once on a bundled scenario (`--light`: its light family resized; one
seed, one discipline, checks on) and prints, for the file it wrote (version 2: per-key
figures as columns) and the same results laid out as version 1 wrote them (a row per key):
the size, the time to write it (version 1 built the whole text, then wrote it; version 2
streams run by run) and the most memory the write allocated (tracemalloc), and the time
`ckviz report` takes to read it back. Also the run's wall time and peak RSS.

`--widen N` then measures a file of N keys made from the run's (its light keys' rows repeated
under new names, in every run and summary): the layouts' sizes at 100,000 keys without the
run's own cost, which a loaded 2-core machine cannot afford. Say so when quoting it.
"""

from __future__ import annotations

import argparse
import json
import re
import resource
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

from ckviz.inputs.scenario_files import bundled_dir
from ckviz.model.json_text import readable_json
from ckviz.model.results import KeyRowResult, Results
from ckviz.model.results_file import write_results
from ckviz.outputs.writer import check_output, write_output
from ckviz.report.sources import read_results


def resized(folder: Path, name: str, light: int) -> Path:
    """Bundled scenario `name` with `light` light keys: a scenario file."""
    text = (bundled_dir() / f"{name}.toml").read_text(encoding="utf-8")
    text = re.sub(r"(?m)^count = \d+", f"count = {light}", text)
    path = folder / f"{name}_{light}.toml"
    path.write_text(text, encoding="utf-8")
    return path


def write_v1(results: Results, path: Path) -> None:
    """As version 1 wrote it: the whole dict, the whole text, then one write."""
    node = {**results.model_dump(mode="json"), "schema_version": 1}
    write_output(check_output(str(path), "v1", force=True), readable_json(node))


def write_v2(results: Results, path: Path) -> None:
    write_results(results, check_output(str(path), "v2", force=True))


def widened(results: Results, keys: int) -> Results:
    """`results` with `keys` keys per table: light rows repeated under fresh names."""

    def widen(rows: list[KeyRowResult]) -> list[KeyRowResult]:
        light = [r for r in rows if r.key.startswith("light-")]
        extra = keys - len(rows)
        fresh = [
            light[i % len(light)].model_copy(update={"key": f"light-w{i}"}) for i in range(extra)
        ]
        return rows + fresh

    wide = results.model_copy(deep=True)
    for scenario in wide.scenarios:
        for run in scenario.runs:
            run.metrics.per_key = widen(run.metrics.per_key)
        for entry in scenario.summary:
            entry.per_key_first_seed = widen(entry.per_key_first_seed)
        scenario.weights.update({f"light-w{i}": 1.0 for i in range(keys - len(scenario.weights))})
    return wide


def timed(action: Callable[[], object]) -> float:
    started = time.perf_counter()
    action()
    return time.perf_counter() - started


def peak_mb(action: Callable[[], object]) -> float:
    tracemalloc.start()
    try:
        action()
        return tracemalloc.get_traced_memory()[1] / 1e6
    finally:
        tracemalloc.stop()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenario", default="ck_many_keys", help="a bundled scenario")
    parser.add_argument("--light", type=int, default=None, help="resize its light family")
    parser.add_argument("--discipline", action="append", help="default: baseline")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--widen", type=int, default=None, metavar="N", help="see above")
    a = parser.parse_args()
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        scenario = resized(folder, a.scenario, a.light) if a.light else a.scenario
        new, old = folder / "v2.json", folder / "v1.json"
        command = [sys.executable, "-m", "ckviz", "--headless", "--scenario", str(scenario)]
        disciplines = a.discipline or ["baseline"]
        for discipline in disciplines:
            command += ["--discipline", discipline]
        command += ["--seeds", "seed-a", "--quiet"]
        command += ["--jobs", str(a.jobs), "--out", str(new)]
        started = time.perf_counter()
        subprocess.run(command, check=True)
        wall = time.perf_counter() - started
        rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        results = read_results(new)
        keys = len(json.loads(new.read_text())["scenarios"][0]["weights"])
        print(
            f"{a.scenario}, {keys:,} keys, {' + '.join(disciplines)}, seed-a, checks on: run "
            f"{wall:.1f} s, peak RSS {rss:.0f} MB"
        )
        if a.widen:
            results = widened(results, a.widen)
            print(f"widened to {a.widen:,} keys (light rows repeated under new names)")
        print(f"{'layout':<22}{'size MB':>9}{'write s':>9}{'write peak MB':>15}{'read s':>8}")
        for label, path, write in (
            ("v1 (rows, whole)", old, write_v1),
            ("v2 (columns, streamed)", new, write_v2),
        ):
            seconds = timed(lambda: write(results, path))  # noqa: B023 (called at once)
            peak = peak_mb(lambda: write(results, path))  # noqa: B023
            read = timed(lambda: read_results(path))  # noqa: B023
            size = path.stat().st_size / 1e6
            print(f"{label:<22}{size:>9.1f}{seconds:>9.2f}{peak:>15.0f}{read:>8.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
