"""Run every bundled matrix (and a few single scenarios) and write their results, timing aside.

    uv run python scripts/same_results.py OUT_DIR             # write OUT_DIR/<name>.json
    uv run python scripts/same_results.py OUT_DIR --against REF_DIR   # and diff with REF_DIR
    uv run python scripts/same_results.py OUT_DIR --against REF_DIR --added-ok


A refactor that must not move behaviour runs this before (into REF_DIR) and after: every file
must carry the same figures once timing fields (`wall_clock_s`, `wall_clock_ms`, the server's
`redis` block's run-time figures) are dropped. Both sides are compared in one canonical form,
whichever layout wrote them: per-key figures as rows (a version 2 file's columns turned back,
as ckviz reads them) and no `schema_version`, then the same JSON text (sorted keys) on both
sides, so a figure that moves, or turns from an integer into a float, differs. A change that
only adds fields to the results runs it with --added-ok: fields the reference lacks are left
out of the comparison, and every field it has must be unchanged.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from ckviz.model.key_columns import to_rows

TIMING_FIELDS = {"wall_clock_s", "wall_clock_ms", "elapsed_s", "timing"}
RUNS: dict[str, list[str]] = {
    "default": [],
    "caps": ["--matrix", "caps"],
    "consumers": ["--matrix", "consumers"],
    "micro": ["--matrix", "micro"],
    "scaling": ["--matrix", "scaling"],
    "vtime-starvation": ["--matrix", "vtime-starvation"],
    "lifecycle": ["--matrix", "lifecycle"],
    "rollout": ["--matrix", "rollout"],
    "incident_trace": ["--scenario", "incident_trace"],
    "ck_weighted": ["--scenario", "ck_weighted"],
}


def strip_timing(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: strip_timing(v) for k, v in value.items() if k not in TIMING_FIELDS}
    if isinstance(value, list):
        return [strip_timing(v) for v in value]
    return value


def canonical(results: Any) -> Any:
    """A results file in the one form both layouts compare in: per-key rows, no version."""
    results = {k: v for k, v in results.items() if k != "schema_version"}
    for scenario in results.get("scenarios", []):
        for run in scenario.get("runs", []):
            metrics = run.get("metrics", {})
            if isinstance(metrics.get("per_key"), dict):
                metrics["per_key"] = to_rows(metrics["per_key"])
        for entry in scenario.get("summary", []):
            if isinstance(entry.get("per_key_first_seed"), dict):
                entry["per_key_first_seed"] = to_rows(entry["per_key_first_seed"])
    return results


def only_known(value: Any, ref: Any) -> Any:
    """`value` without the dict fields `ref` lacks, at every depth (lists element by element)."""
    if isinstance(value, dict) and isinstance(ref, dict):
        return {k: only_known(v, ref[k]) for k, v in value.items() if k in ref}
    if isinstance(value, list) and isinstance(ref, list) and len(value) == len(ref):
        return [only_known(v, r) for v, r in zip(value, ref, strict=True)]
    return value


def same(path: Path, ref: Path, added_ok: bool) -> bool:
    reference = canonical(strip_timing(json.loads(ref.read_text())))
    written = canonical(strip_timing(json.loads(path.read_text())))
    if added_ok:
        written = only_known(written, reference)
    return _text(written) == _text(reference)


def _text(value: Any) -> str:
    return json.dumps(value, indent=1, sort_keys=True)


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
