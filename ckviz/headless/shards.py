"""What a `--shard K/N` file records so `ckviz merge` can tell its slices belong together and
arrived whole: a digest of the matrix it is a slice of (the scenarios as defined, seeds,
treatments, flags, the Redis version) and of its own cells' figures, and how many cells it
and the whole matrix hold. The digests catch damage and mix-ups, not forgery: anyone who can
edit a file can recompute them."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import Any

from ckviz.errors import UsageError, echo
from ckviz.model.matrix import Treatment
from ckviz.model.results import Results, ScenarioResult, ShardInfo, SweepInfo
from ckviz.model.scenario import Scenario
from ckviz.model.steps import StepScenario


def digest(value: Any) -> str:
    """sha256 of `value` as canonical JSON (sorted keys, no spaces)."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def figures_digest(scenarios: Sequence[ScenarioResult], complete: bool) -> str:
    """The digest of a file's figures: every run and summary as written."""
    return digest(
        {"complete": complete, "scenarios": [s.model_dump(mode="json") for s in scenarios]}
    )


def matrix_digest(
    scenarios: Sequence[Scenario | StepScenario],
    treatments: Sequence[Treatment],
    flags: Mapping[str, Any],
    sweeps: Mapping[str, SweepInfo],
    redis_version: str,
) -> str:
    """The digest of everything that decides a matrix's figures: two slices with the same
    one ran the same matrix on the same Redis version."""
    return digest(
        {
            "scenarios": [_definition(s) for s in scenarios],
            "treatments": [t.model_dump(mode="json") for t in treatments],
            "flags": dict(flags),
            "sweeps": {name: s.model_dump(mode="json") for name, s in sweeps.items()},
            "redis_version": redis_version,
        }
    )


def _definition(scenario: Scenario | StepScenario) -> dict[str, Any]:
    """A scenario as it runs: its fields (not its description or rules), and for a replayed
    trace what was read from it."""
    fields = scenario.model_dump(mode="json", exclude={"description", "expect"})
    replay = scenario.replay
    if replay is not None:
        fields["replay"] = {
            "weights": replay.weights,
            "runs": replay.runs,
            "shift": replay.shift_ms,
        }
    return fields


def check_parts(parts: Sequence[tuple[str, Results]]) -> None:
    """UsageError naming the first file that does not belong: no digests, figures that do
    not match their digest, another Redis version, matrix or scenario weights, a cell the
    matrix does not have, a cell twice, or cells missing."""
    first_name, first = parts[0]
    for name, part in parts:
        shard = _recorded(name, part)
        if figures_digest(part.scenarios, part.complete) != shard.figures_digest:
            raise UsageError(
                f"{name}: its figures do not match the digest it was written with "
                "(edited or damaged); run that shard again"
            )
        if part.redis.version != first.redis.version:
            raise UsageError(
                f"{name}: ran on Redis {echo(part.redis.version)}, not "
                f"{echo(first.redis.version)} like {first_name}"
            )
        _same_weights(name, part, first_name, first)
        if shard.matrix_digest != _recorded(first_name, first).matrix_digest:
            raise UsageError(
                f"{name}: a different matrix than {first_name} (scenario "
                "definitions, treatments or flags differ)"
            )
        _known_cells(name, part, shard)
    _whole(parts)


def _recorded(name: str, part: Results) -> ShardInfo:
    shard = part.shard
    if shard is None or shard.figures_digest is None or shard.matrix_digest is None:
        raise UsageError(
            f"{name}: records no shard digests (written by an older ckviz); run that shard again"
        )
    return shard


def _same_weights(name: str, part: Results, first_name: str, first: Results) -> None:
    weights = {s.name: s.weights for s in first.scenarios}
    for s in part.scenarios:
        if s.name in weights and s.weights != weights[s.name]:
            raise UsageError(
                f"{name}: scenario '{echo(s.name)}' has other key weights than in {first_name}"
            )


def _known_cells(name: str, part: Results, shard: ShardInfo) -> None:
    matrix = part.matrix
    runs = 0
    for s in part.scenarios:
        if s.name not in matrix.scenarios:
            raise UsageError(f"{name}: scenario '{echo(s.name)}' is not in its matrix")
        for run in s.runs:
            runs += 1
            if run.seed not in matrix.seeds:
                raise UsageError(
                    f"{name}: a run of '{echo(s.name)}' names seed "
                    f"'{echo(run.seed)}', not one of its matrix's"
                )
            if run.treatment not in matrix.disciplines:
                raise UsageError(
                    f"{name}: a run of '{echo(s.name)}' names treatment "
                    f"'{echo(run.treatment)}', not one of its matrix's"
                )
    if runs > (shard.cells or 0) or (part.complete and runs != shard.cells):
        raise UsageError(f"{name}: holds {runs} runs, but its slice has {shard.cells} cells")


def _whole(parts: Sequence[tuple[str, Results]]) -> None:
    seen: dict[tuple[str, str, str], str] = {}
    for name, part in parts:
        for s in part.scenarios:
            for run in s.runs:
                cell = (s.name, run.treatment, run.seed)
                if cell in seen:
                    raise UsageError(
                        f"{name}: cell {'/'.join(map(echo, cell))} is also in {seen[cell]}"
                    )
                seen[cell] = name
    first_name, first = parts[0]
    total = first.shard.matrix_cells if first.shard else None
    if all(p.complete for _, p in parts) and len(seen) != total:
        raise UsageError(
            f"merge: the shards hold {len(seen)} cells, but {first_name}'s matrix has {total}"
        )
