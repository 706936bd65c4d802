"""Where a `ckviz --headless` process's wall time goes outside its cells, phase by phase.

    uv run python bench/startup.py [--repeat 3] [--against REV] [--cache both|none|warm]
                                   [-- CKVIZ_ARGS...]

Runs `ckviz --headless` (default: the default matrix, its default --jobs, its own embedded
server, stdout to /dev/null, as bench/scaling.py's part 2 runs it; other arguments after
`--`) through bench/startup_probe.py, which notes when ckviz's phases start and end, and
prints per phase the min and median wall milliseconds over --repeat runs:

  start        the interpreter, up to the first line of the probe (spawn to running)
  to main      importing the command's entry point, up to main()
  parser       main() up to the plan: the parser built, the flags read (imports included)
  early server start   the embedded server started while the matrix loads (if the tree does)
  plan         the flags into a plan: scenarios loaded and checked (imports included)
  server start the embedded server started and answering (open_server's entry)
  workspace    the rest of the workspace's entry: namespace claimed, eviction checked
  cells        every cell, on the worker pool (its start and stop included)
  assemble     the cells' figures into the results
  results      the results file written
  tables       the tables printed
  sweep        the namespace's keys deleted
  server stop  the embedded server stopped, its folder removed
  rest of main what main() does besides the above
  exit         main()'s return to the process gone (interpreter shutdown)
  total        spawn to exit, as a user waits for it
  imports      of all the above: every import, wherever it happens (-X importtime's
               top-level entries; forked workers' own imports too, if any)

Two cache modes, each tree with a bytecode cache of its own (PYTHONPYCACHEPREFIX, filled by
one untimed run first): `warm`, everything cached; `none`, all but ckviz's own modules, which
every process compiles again (PYTHONDONTWRITEBYTECODE=1, as this machine runs ckviz: the
libraries' caches were written once, a checkout's modules change). --against REV runs REV's
ckviz too (bench/trees.py), the trees alternating run by run so that both see the same load.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from trees import env_of, trees_to_measure

PROBE = Path(__file__).resolve().parent / "startup_probe.py"
PHASES = (
    "start",
    "to main",
    "parser",
    "early server start",
    "plan",
    "server start",
    "workspace",
    "cells",
    "assemble",
    "results",
    "tables",
    "sweep",
    "server stop",
    "rest of main",
    "exit",
    "total",
    "imports",
)
# the spans inside main that are phases of their own (the workspace's includes the server's)
INSIDE_MAIN = ("plan", "workspace", "cells", "assemble", "results", "tables")


def one_run(
    tree: Path, env: dict[str, str], ckviz_args: list[str], folder: Path
) -> dict[str, float]:
    """One `ckviz --headless` through the probe: seconds per phase."""
    notes_file = folder / "notes.json"
    out = folder / "results.json"
    out.unlink(missing_ok=True)
    command = [sys.executable, "-X", "importtime", str(PROBE), "--headless", *ckviz_args]
    command += ["--out", str(out)]
    child_env = {**env, "STARTUP_PROBE_OUT": str(notes_file)}
    spawned = time.perf_counter()
    proc = subprocess.run(
        command, env=child_env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    gone = time.perf_counter()
    if proc.returncode != 0:
        tail = [line for line in proc.stderr.splitlines() if not line.startswith("import time:")]
        raise SystemExit(
            f"ckviz failed ({tree}, exit {proc.returncode}):\n" + "\n".join(tail[-20:])
        )
    notes = json.loads(notes_file.read_text(encoding="utf-8"))
    return phases_of(notes, spawned, gone, imports_seconds(proc.stderr))


def phases_of(notes: dict, spawned: float, gone: float, imports: float) -> dict[str, float]:
    spent: dict[str, float] = {p: 0.0 for p in PHASES}
    spans = [(name, begun, ended) for name, begun, ended in notes["spans"]]
    for name, begun, ended in spans:
        phase = "workspace" if name in ("workspace start", "workspace stop") else name
        if phase in spent:
            spent[phase] += ended - begun
    # the workspace's entry and exit hold the server's start and stop, and the sweep
    spent["workspace"] -= spent["server start"] + spent["server stop"] + spent["sweep"]
    main_spans = [(b, e) for n, b, e in spans if n == "main"]
    main_begun, main_ended = main_spans[0] if main_spans else (notes["started"], notes["returned"])
    inside = (
        sum(spent[p] for p in INSIDE_MAIN) + spent["server start"] + spent["early server start"]
    )
    inside += spent["server stop"] + spent["sweep"]
    spent["start"] = notes["started"] - spawned
    spent["to main"] = main_begun - notes["started"]
    plans = [b for n, b, _ in spans if n == "plan"]
    spent["parser"] = (plans[0] - main_begun) if plans else 0.0
    spent["parser"] -= spent["early server start"]
    spent["rest of main"] = (main_ended - main_begun) - inside - spent["parser"]
    spent["exit"] = gone - main_ended
    spent["total"] = gone - spawned
    spent["imports"] = imports
    return spent


def imports_seconds(stderr: str) -> float:
    """The sum of -X importtime's top-level entries (cumulative microseconds)."""
    total = 0
    for line in stderr.splitlines():
        if not line.startswith("import time:"):
            continue
        parts = line.split("|")
        if len(parts) == 3 and not parts[2].startswith("  ") and parts[1].strip().isdigit():
            total += int(parts[1])
    return total / 1e6


def cache_envs(tree: Path, ckviz_args: list[str], folder: Path) -> dict[str, dict[str, str]]:
    """The child's environment per cache mode, for `tree`: a bytecode cache of its own filled
    by one untimed run (`warm`), and a copy of it without ckviz's modules, which nothing
    writes to (`none`)."""
    warm_cache = folder / f"pyc-warm-{tree.name}-{len(list(folder.iterdir()))}"
    warm = {**env_of(tree), "PYTHONPYCACHEPREFIX": str(warm_cache)}
    warm.pop("PYTHONDONTWRITEBYTECODE", None)
    one_run(tree, warm, ckviz_args, folder)
    cold_cache = warm_cache.with_name(warm_cache.name.replace("warm", "none"))
    shutil.copytree(warm_cache, cold_cache)
    shutil.rmtree(cold_cache / tree.resolve().relative_to("/") / "ckviz")
    none = {**env_of(tree), "PYTHONPYCACHEPREFIX": str(cold_cache)}
    none["PYTHONDONTWRITEBYTECODE"] = "1"
    return {"warm": warm, "none": none}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--against", metavar="REV", help="also measure REV's ckviz")
    parser.add_argument("--cache", choices=("both", "none", "warm"), default="both")
    parser.add_argument("ckviz_args", nargs="*", help="after --: more `ckviz --headless` flags")
    args = parser.parse_args()
    modes = ("none", "warm") if args.cache == "both" else (args.cache,)
    with tempfile.TemporaryDirectory(prefix="ckviz-bench-startup-") as tmp:
        trees = trees_to_measure(args.against, Path(tmp))
        envs = {name: cache_envs(tree, args.ckviz_args, Path(tmp)) for name, tree in trees.items()}
        samples: dict[tuple[str, str], list[dict[str, float]]] = {}
        for mode in modes:
            for attempt in range(args.repeat):
                for name, tree in trees.items():
                    got = one_run(tree, envs[name][mode], args.ckviz_args, Path(tmp))
                    samples.setdefault((mode, name), []).append(got)
                    print(
                        f"{mode} cache, {name}, run {attempt + 1}: total {got['total']:.2f} s, "
                        f"cells {got['cells']:.2f} s, outside {got['total'] - got['cells']:.2f} s",
                        file=sys.stderr,
                    )
        print_table(samples, modes, list(trees))


def print_table(
    samples: dict[tuple[str, str], list[dict[str, float]]], modes: tuple[str, ...], trees: list[str]
) -> None:
    columns = [(mode, name) for mode in modes for name in trees]
    print(f"\nms per phase, min / median of {len(samples[columns[0]])} runs; load {load()}")
    print("| phase | " + " | ".join(f"{name} ({mode} cache)" for mode, name in columns) + " |")
    print("|---|" + "---:|" * len(columns))
    for phase in (*PHASES, "outside cells"):
        cells = []
        for column in columns:
            values = [outside(s) if phase == "outside cells" else s[phase] for s in samples[column]]
            ms = [v * 1000 for v in values]
            cells.append(f"{min(ms):.0f} / {statistics.median(ms):.0f}")
        print(f"| {phase} | " + " | ".join(cells) + " |")


def outside(sample: dict[str, float]) -> float:
    return sample["total"] - sample["cells"]


def load() -> str:
    try:
        return " ".join(f"{x:.1f}" for x in os.getloadavg())
    except OSError:
        return "?"


if __name__ == "__main__":
    main()
