"""Run every bundled matrix (and a few single scenarios) and write their results, timing aside.

    uv run python scripts/same_results.py OUT_DIR             # write OUT_DIR/<name>.json
    uv run python scripts/same_results.py OUT_DIR --against REF_DIR   # and diff with REF_DIR
    uv run python scripts/same_results.py OUT_DIR --against REF_DIR --added-ok


A refactor that must not move behaviour runs this before (into REF_DIR) and after: every file
must be byte-identical once timing fields (`wall_clock_s`, `wall_clock_ms`, the server's
`redis` block's run-time figures) are dropped. A change that only adds fields to the results
runs it with --added-ok: fields the reference lacks are left out of the comparison, and every
field it has must be unchanged.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

TIMING_FIELDS = {"wall_clock_s", "wall_clock_ms", "elapsed_s", "timing"}
RUNS: dict[str, list[str]] = {
    "default": [],
    "caps": ["--matrix", "caps"],
    "consumers": ["--matrix", "consumers"],
    "micro": ["--matrix", "micro"],
    "scaling": ["--matrix", "scaling"],
    "vtime-starvation": ["--matrix", "vtime-starvation"],
    "lifecycle": ["--matrix", "lifecycle"],
    "incident_trace": ["--scenario", "incident_trace"],
    "ck_weighted": ["--scenario", "ck_weighted"],
}


def strip_timing(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: strip_timing(v) for k, v in value.items() if k not in TIMING_FIELDS}
    if isinstance(value, list):
        return [strip_timing(v) for v in value]
    return value


def only_known(value: Any, ref: Any) -> Any:
    """`value` without the dict fields `ref` lacks, at every depth (lists element by element)."""
    if isinstance(value, dict) and isinstance(ref, dict):
        return {k: only_known(v, ref[k]) for k, v in value.items() if k in ref}
    if isinstance(value, list) and isinstance(ref, list) and len(value) == len(ref):
        return [only_known(v, r) for v, r in zip(value, ref, strict=True)]
    return value


def same(path: Path, ref: Path, added_ok: bool) -> bool:
    if not added_ok:
        return path.read_bytes() == ref.read_bytes()
    reference = json.loads(ref.read_text())
    return only_known(json.loads(path.read_text()), reference) == reference


def run(name: str, args: list[str], out: Path) -> Path:
    path = out / f"{name}.json"
    cmd = [sys.executable, "-m", "ckviz", "--headless", "--force", "--out", str(path)]
    done = subprocess.run([*cmd, *args], capture_output=True, text=True)
    if done.returncode not in (0, 1) or not path.exists():
        sys.exit(f"{name}: exit {done.returncode}\n{done.stderr[-2000:]}")
    text = json.dumps(strip_timing(json.loads(path.read_text())), indent=1, sort_keys=True)
    path.write_text(text + "\n")
    return path


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--against", type=Path)
    parser.add_argument("--only", action="append", choices=sorted(RUNS))
    parser.add_argument(
        "--added-ok", action="store_true", help="fields the reference lacks may be added"
    )
    a = parser.parse_args()
    a.out.mkdir(parents=True, exist_ok=True)
    differ = []
    for name in a.only or RUNS:
        path = run(name, RUNS[name], a.out)
        if a.against is not None and not (a.against / path.name).exists():
            print(f"{name}: written (no reference: new since it was made)", flush=True)
        elif a.against is not None:
            alike = same(path, a.against / path.name, a.added_ok)
            print(f"{name}: {'same' if alike else 'DIFFERENT'}", flush=True)
            if not alike:
                differ.append(name)
        else:
            print(f"{name}: written", flush=True)
    return 1 if differ else 0


if __name__ == "__main__":
    raise SystemExit(main())
