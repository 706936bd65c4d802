"""`ckviz merge PART.json... --out ALL.json`: join the slices of a matrix run with --shard K/N
into the file the whole matrix run on one machine writes (timing fields aside)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from pydantic import ValidationError

from ckviz.commands.parsing import CommandParser, add_quiet
from ckviz.errors import UsageError, first_line
from ckviz.headless.shards import check_parts
from ckviz.headless.summary import summarized
from ckviz.inputs.files import read_regular_text
from ckviz.inputs.json_numbers import too_large
from ckviz.model.results import Results, RunResult, ScenarioResult
from ckviz.model.results_file import write_results
from ckviz.outputs.writer import check_output


def build_parser() -> argparse.ArgumentParser:
    p = CommandParser(
        prog="ckviz merge",
        description="Join the results files of `ckviz --headless --shard K/N` (one per K, "
        "same matrix and flags) into one results file, equal to the unsharded run's apart "
        "from timing fields.",
    )
    p.add_argument("parts", nargs="+", metavar="PART.json", help="one results file per shard")
    p.add_argument(
        "--out", required=True, metavar="PATH", help="the merged results file (- for stdout)"
    )
    p.add_argument("--force", action="store_true", help="overwrite an existing --out file")
    add_quiet(p)
    return p


def main(argv: Sequence[str]) -> int:
    ns = build_parser().parse_args(list(argv))
    out = check_output(ns.out, "--out", force=ns.force)
    merged = merge([(text, load_part(text)) for text in ns.parts])
    write_results(merged, out)
    runs = sum(len(s.runs) for s in merged.scenarios)
    if not ns.quiet:
        print(f"merged {len(ns.parts)} shards, {runs} runs: {out}", file=sys.stderr)
    return 0


def load_part(text: str) -> Results:
    try:
        raw = read_regular_text(Path(text))
        data = json.loads(raw)
        if (huge := too_large(raw, data)) is not None:
            raise UsageError(f"{text}: not a ckviz results file ({huge})")
        return Results.model_validate(data)
    except OSError as exc:
        raise UsageError(f"{text}: cannot read ({exc.strerror or exc})") from None
    except ValidationError as exc:  # where, and why: its first line only counts the errors
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "(top level)"
        raise UsageError(f"{text}: not a ckviz results file ({where}: {first['msg']})") from None
    except ValueError as exc:
        raise UsageError(f"{text}: not a ckviz results file ({first_line(exc)})") from None
    except RecursionError:
        raise UsageError(f"{text}: not a ckviz results file (JSON nested too deeply)") from None


def merge(parts: Sequence[tuple[str, Results]]) -> Results:
    """One results file from every shard of one matrix; UsageError naming the odd file out."""
    first_name, first = parts[0]
    for name, part in parts:
        if part.shard is None:
            raise UsageError(f"{name}: holds no --shard slice (it is a whole run already)")
        if part.matrix != first.matrix or part.shard.count != _count(first):
            raise UsageError(f"{name}: a different matrix, flags or shard count than {first_name}")
        if part.ckviz_version != first.ckviz_version:
            raise UsageError(
                f"{name}: written by ckviz {part.ckviz_version}, not "
                f"{first.ckviz_version} like {first_name}"
            )
    seen = sorted(p.shard.index for _, p in parts if p.shard)
    wanted = list(range(1, _count(first) + 1))
    if seen != wanted:
        missing = sorted(set(wanted) - set(seen))
        twice = sorted({k for k in seen if seen.count(k) > 1})
        what = f"shard {twice[0]} given twice" if twice else f"shard {missing[0]} missing"
        raise UsageError(f"merge: {what} (need 1..{_count(first)} of {first_name}'s matrix)")
    check_parts(parts)  # digests, Redis version, weights, cells
    errors = [p.error for _, p in parts if p.error]
    return Results(
        ckviz_version=first.ckviz_version,
        complete=all(p.complete for _, p in parts),
        error=errors[0] if errors else None,
        redis=first.redis,
        matrix=first.matrix,
        wall_clock_s=round(sum(p.wall_clock_s for _, p in parts), 3),
        scenarios=_scenarios([p for _, p in parts]),
    )


def _count(results: Results) -> int:
    return results.shard.count if results.shard else 1


def _scenarios(parts: list[Results]) -> list[ScenarioResult]:
    """Per scenario in matrix order: the runs of every shard in cell order (treatment, then
    seed), summarized again over all of them."""
    matrix = parts[0].matrix
    label_at = {label: i for i, label in enumerate(matrix.disciplines)}
    seed_at = {seed: i for i, seed in enumerate(matrix.seeds)}
    merged: list[ScenarioResult] = []
    for name in matrix.scenarios:
        entries = [s for p in parts for s in p.scenarios if s.name == name]
        if not entries:
            continue
        runs: list[RunResult] = [r for s in entries for r in s.runs]
        runs.sort(key=lambda r: (label_at[r.treatment], seed_at[r.seed]))
        meta = entries[0]
        light_key = meta.treatments[0].light_key if meta.treatments else None
        merged.append(summarized(meta, light_key, matrix.disciplines, matrix.seeds, runs))
    return merged
