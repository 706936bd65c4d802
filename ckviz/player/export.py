"""What `x` writes: the run so far as a results file (the headless run's schema) and as two
CSV files (every dequeue; per-key figures), named after scenario, discipline(s) and round."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from pathlib import Path

from ckviz import __version__
from ckviz.headless.cells import run_result
from ckviz.headless.summary import scenario_result
from ckviz.model.lineup import flag_consumers
from ckviz.model.matrix import Treatment
from ckviz.model.results import MatrixInfo, RedisInfo, Results
from ckviz.model.results_file import write_results as write_results_file
from ckviz.outputs.csv_text import csv_text
from ckviz.outputs.writer import check_output, write_output
from ckviz.player.frames import Frame, Setup
from ckviz.player.moves import Export
from ckviz.sim.engine import Outcome


def export_stem(frame: Frame) -> str:
    """`ckviz-<scenario>-<discipline(s)>-round<step>`: one name per moment, safe in a path."""
    snaps = frame.snapshots
    name = f"ckviz-{frame.setup.title}-{'-vs-'.join(s.discipline for s in snaps)}"
    if frame.snapshots[0].time_unit == "step":
        name += f"-step{snaps[0].t}"
    else:
        name += f"-round{snaps[0].step}"
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name)


EXPORT_SUFFIXES = (".svg", ".json", "-events.csv", "-keys.csv")  # what `x` writes per stem


def free_stem(folder: Path, stem: str) -> str:
    """`stem`, or `stem-2`, `stem-3`...: the first that names no file `x` wrote in `folder`
    (the same moment exported again keeps the earlier export: it may hold other rows, a
    filter, another theme)."""
    for n in itertools.count(1):
        candidate = stem if n == 1 else f"{stem}-{n}"
        if not any((folder / f"{candidate}{suffix}").exists() for suffix in EXPORT_SUFFIXES):
            return candidate
    raise AssertionError("unreachable")


def results_file(
    setup: Setup, frame: Frame, outcomes: Sequence[Outcome], redis: RedisInfo
) -> Results:
    """The run so far as a results file: the headless run's schema and builders (one
    scenario, one seed, a run per lane), so the figures read as `ckviz --headless` writes
    them. Stepped by hand, a lane has no wall clock: its timing fields are 0. Before the end
    the file says so (`complete: false` and why)."""
    treatments = [Treatment(discipline=name) for name in setup.disciplines]
    runs = [
        run_result(setup.scenario, treatment, setup.seed, outcome, 0.0)
        for treatment, outcome in zip(treatments, outcomes, strict=True)
    ]
    labels = list(dict.fromkeys(treatment.name for treatment in treatments))
    unit = frame.snapshots[0].time_unit
    at = "/".join(str(t) for t in frame.times)
    return Results(
        ckviz_version=__version__,
        complete=frame.done,
        error=None if frame.done else f"exported from the app at {unit} {at}, before the end",
        redis=redis,
        matrix=MatrixInfo(
            scenarios=[setup.scenario.name],
            seeds=[setup.seed],
            disciplines=labels,
            max_count=frame.snapshots[0].max_count,
            consumers=flag_consumers(setup.consumers),
        ),
        wall_clock_s=0.0,
        scenarios=[scenario_result(setup.scenario, labels, [setup.seed], runs)],
    )


def write_export(
    frame: Frame, made: Export | None, redis: RedisInfo | None, folder: Path, stem: str
) -> tuple[list[Path], str]:
    """The files `x` writes for `frame` as `stem` (`made`: the live moment again, every key's
    row and each lane's run so far; None for a recorded moment), and a note on what is
    missing."""
    if redis is None:
        note = " (no results file: the app was not told its server)"
        return write_csv(frame, folder, stem), note
    if made is None:
        return write_csv(frame, folder, stem), " (a results file: at the live moment only)"
    frame = next(iter(made.frames), frame)
    results = results_file(made.setup, frame, made.outcomes, redis)
    return [write_results(results, folder, stem), *write_csv(frame, folder, stem)], ""


def write_results(results: Results, folder: Path, stem: str) -> Path:
    """`<stem>.json` in `folder`, laid out as the headless run writes its file."""
    path = folder / f"{stem}.json"
    write_results_file(results, check_output(str(path), "export", force=True), rescue=False)
    return path


EVENT_COLUMNS = ("lane", "discipline", "key", "run_id", "arrival", "dequeued", "wait")
KEY_COLUMNS = (
    "lane",
    "discipline",
    "key",
    "weight",
    "queued",
    "to_arrive",
    "dequeued",
    "held",
    "mean_wait",
    "wait_so_far",
    "head_age",
)
EVENT_TIMES = {"arrival", "dequeued", "wait"}  # these columns get the time unit: `wait_ms`
KEY_TIMES = {"mean_wait", "wait_so_far", "head_age"}  # (a key's `dequeued` is a count)


def csv_tables(frame: Frame) -> dict[str, list[list[object]]]:
    """The run so far as two tables (header row first): every dequeue, and per-key figures.
    Time columns end in `_ms`, or `_step` for a step scenario."""
    unit = f"_{frame.snapshots[0].time_unit}"
    events: list[list[object]] = [[c + unit if c in EVENT_TIMES else c for c in EVENT_COLUMNS]]
    keys: list[list[object]] = [[c + unit if c in KEY_TIMES else c for c in KEY_COLUMNS]]
    for lane, snap in enumerate(frame.snapshots):
        for e in snap.events:
            events.append(
                [lane, snap.discipline, e.key, e.run_id, e.arrival_ms, e.dequeued_ms, e.wait_ms]
            )
        t, base = snap.t, snap.score_base
        for r in snap.keys:
            keys.append(
                [
                    lane,
                    snap.discipline,
                    r.key,
                    r.weight,
                    r.queued,
                    r.to_arrive,
                    r.dequeued,
                    r.held,
                    _blank(r.mean_wait_ms),
                    _blank(r.wait_so_far(t, base)),
                    _blank(r.head_age(t, base)),
                ]
            )
    return {"events": events, "keys": keys}


def _blank(value: float | None) -> object:
    """None (nothing queued, nothing served) is an empty cell; whole numbers without `.0`."""
    if value is None:
        return ""
    return int(value) if float(value).is_integer() else round(value, 3)


def write_csv(frame: Frame, folder: Path, stem: str | None = None) -> list[Path]:
    """`<stem>-events.csv` and `<stem>-keys.csv` in `folder` (the moment's stem if None); the
    paths written."""
    paths = []
    for name, rows in csv_tables(frame).items():
        path = folder / f"{stem or export_stem(frame)}-{name}.csv"
        _write(path, csv_text(rows))  # key names are text a spreadsheet must not run
        paths.append(path)
    return paths


def _write(path: Path, text: str) -> None:
    """Through ckviz's one writer: whole or not at all, symlinks and devices kept (the stem
    is one no earlier export used: free_stem)."""
    write_output(check_output(str(path), "export", force=True), text)
