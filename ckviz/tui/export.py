"""What `x` writes: the run so far as JSON (per-key figures and every dequeue) and as two CSV
files (every dequeue; per-key figures), named after scenario, discipline(s) and round."""

from __future__ import annotations

import csv
import json
from pathlib import Path

from ckviz.tui.lanes import Frame


def export_stem(frame: Frame) -> str:
    """`ckviz-<scenario>-<discipline(s)>-round<step>`: one name per moment, safe in a path."""
    snaps = frame.snapshots
    name = f"ckviz-{frame.setup.scenario.name}-{'-vs-'.join(s.discipline for s in snaps)}"
    if frame.snapshots[0].time_unit == "step":
        name += f"-step{snaps[0].t}"
    else:
        name += f"-round{snaps[0].step}"
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name)


def figures(frame: Frame) -> dict[str, object]:
    """Every lane's per-key figures and dequeues at this frame (plain JSON types)."""
    lanes = []
    for snap, fair in zip(frame.snapshots, frame.fairness, strict=True):
        keys = [
            {
                "key": r.key,
                "weight": r.weight,
                "queued": r.queued,
                "to_arrive": r.to_arrive,
                "dequeued": r.dequeued,
                "held": r.held,
                "mean_wait_ms": r.mean_wait_ms,
                "wait_so_far_ms": r.wait_so_far(snap.t, snap.score_base),
            }
            for r in snap.keys
        ]
        events = [[e.key, e.run_id, e.arrival_ms, e.dequeued_ms] for e in snap.events]
        lanes.append(
            {
                "discipline": snap.discipline,
                "t": snap.t,
                "round": snap.step,
                "key_count": len(snap.every_key.key_names),  # more than "keys" if cut to a view
                "worst_share_over_weight": fair.worst_share if fair.contended else None,
                "worst_key": fair.worst_key,
                "jain": fair.jain if fair.contended else None,
                "keys": keys,
                "events": {
                    "columns": ["key", "run_id", "arrival_ms", "dequeued_ms"],
                    "rows": events,
                },
            }
        )
    setup = frame.setup
    return {"scenario": setup.scenario.name, "seed": setup.seed, "lanes": lanes}


def write_figures(frame: Frame, folder: Path) -> Path:
    """Write `figures(frame)` next to the screenshot; the path written."""
    path = folder / f"{export_stem(frame)}.json"
    path.write_text(json.dumps(figures(frame), indent=1) + "\n", encoding="utf-8")
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


def write_csv(frame: Frame, folder: Path) -> list[Path]:
    """`<stem>-events.csv` and `<stem>-keys.csv` in `folder`; the paths written."""
    paths = []
    for name, rows in csv_tables(frame).items():
        path = folder / f"{export_stem(frame)}-{name}.csv"
        with path.open("w", encoding="utf-8", newline="") as out:
            csv.writer(out).writerows(rows)
        paths.append(path)
    return paths
