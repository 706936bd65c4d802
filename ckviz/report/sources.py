"""Reading the results files a report compares, each under a short unique label."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from pydantic import ValidationError

from ckviz.errors import UsageError
from ckviz.inputs.files import read_regular_text, why
from ckviz.inputs.json_numbers import too_large
from ckviz.model.results import READABLE_VERSIONS, SCHEMA_VERSION, Results


@dataclass(frozen=True)
class Source:
    """One results file: its label in the report (e.g. `main/results`), path and content."""

    label: str
    path: Path
    results: Results

    @property
    def shown_path(self) -> str:
        """The file as a report names it: the path given on the command line, or only the
        file's name when that path was whole (`/home/alice/...`, or `~/...` as the shell
        expands it): a report is shared, and must not tell where its author keeps files."""
        return self.path.name if self.path.is_absolute() else str(self.path)

    @property
    def seeds_run(self) -> list[str]:
        """The seeds its runs were made with (the matrix's list may name more: a trace, which
        replays the same arrivals whatever the seed, runs the first one only)."""
        ran = {r.seed for s in self.results.scenarios for r in s.runs}
        listed = [seed for seed in self.results.matrix.seeds if seed in ran]
        return listed + sorted(ran - set(listed))


def load_sources(paths: list[str]) -> list[Source]:
    """Every file read and validated; the first bad one raises a one-line UsageError."""
    if not paths:
        raise UsageError("report: give one or more results JSON files")
    loaded = [(Path(p), read_results(Path(p))) for p in paths]
    labels = unique_labels([path for path, _ in loaded])
    return [
        Source(label, path, results) for label, (path, results) in zip(labels, loaded, strict=True)
    ]


def redis_versions_note(sources: Sequence[Source]) -> str | None:
    """A sentence when the files ran on different Redis versions (a difference between them
    may then be the server's, not the change compared); None when they agree."""
    versions = {s.results.redis.version for s in sources}
    if len(versions) < 2:
        return None
    ran = ", ".join(f"{s.label} on {s.results.redis.version}" for s in sources)
    return (
        f"these files ran on different Redis versions ({ran}): a difference between them "
        "may come from the server, not from what you compare"
    )


def read_results(path: Path) -> Results:
    try:
        text = read_regular_text(path)
    except FileNotFoundError:
        raise UsageError(f"{path}: file not found") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"{path}: cannot read: {why(exc)}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise UsageError(f"{path}: not valid JSON: {exc}") from None
    except RecursionError:
        raise UsageError(f"{path}: not valid JSON: nested too deeply") from None
    except ValueError as exc:  # an integer past Python's 4,300 digits
        raise UsageError(f"{path}: not valid JSON: {str(exc).split(';')[0]}") from None
    if (huge := too_large(text, data)) is not None:
        raise UsageError(f"{path}: not a ckviz results file: {huge}")
    version = data.get("schema_version") if isinstance(data, dict) else None
    if version is not None and version not in READABLE_VERSIONS:
        raise UsageError(
            f"{path}: results schema_version {version!r}; this ckviz reads 1 to {SCHEMA_VERSION}"
        )
    try:
        return Results.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "(top level)"
        more = f" (and {exc.error_count() - 1} more problems)" if exc.error_count() > 1 else ""
        reason = f"{where}: {first['msg']}{more}"
        raise UsageError(f"{path}: not a ckviz results file: {reason}") from None


def unique_labels(paths: list[Path]) -> list[str]:
    """The shortest trailing path parts (without `.json`) that tell the files apart; the same
    file given twice gets a number."""
    parts = [p.with_suffix("").parts if p.suffix == ".json" else p.parts for p in paths]
    distinct = list(dict.fromkeys(parts))
    depth = 1
    while len({ps[-depth:] for ps in distinct}) < len(distinct):
        depth += 1  # ends: distinct paths differ somewhere, so some depth tells them apart
    seen: dict[str, int] = {}
    labels = []
    for ps in parts:
        label = "/".join(ps[-depth:])
        seen[label] = seen.get(label, 0) + 1
        labels.append(label if seen[label] == 1 else f"{label} ({seen[label]})")
    return labels
