"""`--events FILE`: every dequeue of every cell as JSON Lines, never in the results file.

Each cell's worker writes its dequeues to a spool file of its own as they happen (one line
per dequeue, through the file's buffer: a day's log is never held in memory); once the
matrix is done the spool files are joined in cell order into FILE through ckviz's one output
writer (whole or not at all, `-` for stdout, --force to replace), a piece at a time, so
neither side holds the whole log."""

from __future__ import annotations

import contextlib
import json
import shutil
import tempfile
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from ckviz.model.clock import Unit
from ckviz.outputs.writer import Output, write_pieces


class EventLine:
    """One cell's dequeue as its JSON line."""

    def __init__(self, scenario: str, treatment: str, seed: str, unit: Unit) -> None:
        self.cell = json.dumps({"scenario": scenario, "treatment": treatment, "seed": seed})[1:-1]
        self.unit = unit

    def __call__(self, key: str, run_id: str, arrival: int, dequeued: int) -> str:
        u = self.unit
        return (
            f'{{{self.cell}, "key": {json.dumps(key)}, "run_id": {json.dumps(run_id)}, '
            f'"arrival_{u}": {arrival}, "dequeued_{u}": {dequeued}, '
            f'"wait_{u}": {dequeued - arrival}}}\n'
        )


def spool_path(spool: str, index: int) -> Path:
    return Path(spool) / f"cell-{index:06d}.jsonl"


@contextlib.contextmanager
def spooling(path: Path, line: EventLine) -> Iterator[Callable[[str, str, int, int], None]]:
    """A cell's spool file open while it runs; what writes each dequeue's line into it."""
    with open(path, "w", encoding="utf-8") as f:
        write = f.write

        def spool(key: str, run_id: str, arrival: int, dequeued: int) -> None:
            write(line(key, run_id, arrival, dequeued))

        yield spool


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
