"""`--events FILE`: every dequeue of every cell as JSON Lines, never in the results file.

Each cell's worker writes its dequeues to a spool file of its own as the cell ends (one line
per dequeue, written as it goes); once the matrix is done the spool files are joined in cell
order into FILE through ckviz's one output writer (whole or not at all, `-` for stdout,
--force to replace), a piece at a time, so neither side holds the whole log."""

from __future__ import annotations

import contextlib
import json
import shutil
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path

from ckviz.model.clock import Unit
from ckviz.model.snapshot import DequeueEvent
from ckviz.outputs.writer import Output, write_pieces


def event_lines(
    scenario: str, treatment: str, seed: str, unit: Unit, events: Sequence[DequeueEvent]
) -> Iterator[str]:
    """One JSON line per dequeue; times in the run's unit (`_ms`, or `_step` for a step run)."""
    cell = json.dumps({"scenario": scenario, "treatment": treatment, "seed": seed})[1:-1]
    for e in events:
        yield (
            f'{{{cell}, "key": {json.dumps(e.key)}, "run_id": {json.dumps(e.run_id)}, '
            f'"arrival_{unit}": {e.arrival_ms}, "dequeued_{unit}": {e.dequeued_ms}, '
            f'"wait_{unit}": {e.wait_ms}}}\n'
        )


def spool_path(spool: str, index: int) -> Path:
    return Path(spool) / f"cell-{index:06d}.jsonl"


def spool_events(path: Path, lines: Iterator[str]) -> None:
    """A cell's lines into its spool file (in its worker, as the cell ends)."""
    with open(path, "w", encoding="utf-8") as f:
        f.writelines(lines)


@contextlib.contextmanager
def spool_folder(wanted: bool) -> Iterator[str | None]:
    """A temp folder for the cells' spool files while the matrix runs (None when no
    --events), removed afterwards whatever happens."""
    if not wanted:
        yield None
        return
    folder = tempfile.mkdtemp(prefix="ckviz-events-")
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def write_events(out: Output, spool: str, indices: Sequence[int]) -> None:
    """The cells' spool files (those that exist: a failed cell wrote none), in the order of
    `indices`, into `out`; OutputError on failure."""

    def pieces() -> Iterator[str]:
        for index in indices:
            path = spool_path(spool, index)
            if path.exists():
                with open(path, encoding="utf-8") as f:
                    yield from f

    write_pieces(out, pieces)
