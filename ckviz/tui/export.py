"""What `x` writes: the run so far as JSON (per-key figures and every dequeue)."""

from __future__ import annotations

import json
from pathlib import Path

from ckviz.lanes import Frame
from ckviz.tui.text import wait_so_far


def export_stem(frame: Frame) -> str:
    """`ckviz-<scenario>-<discipline(s)>-round<step>`: one name per moment, safe in a path."""
    snaps = frame.snapshots
    name = f"ckviz-{frame.setup.scenario.name}-{'-vs-'.join(s.discipline for s in snaps)}"
    name += f"-round{snaps[0].step}"
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name)


def figures(frame: Frame) -> dict[str, object]:
    """Every lane's per-key figures and dequeues at this frame (plain JSON types)."""
    lanes = []
    for snap, fair in zip(frame.snapshots, frame.fairness, strict=True):
        keys = [
            {"key": r.key, "weight": r.weight, "queued": r.queued, "to_arrive": r.to_arrive,
             "dequeued": r.dequeued, "held": r.held, "mean_wait_ms": r.mean_wait_ms,
             "wait_so_far_ms": wait_so_far(r, snap)}
            for r in snap.keys
        ]  # fmt: skip
        events = [[e.key, e.run_id, e.arrival_ms, e.dequeued_ms] for e in snap.events]
        lanes.append({
            "discipline": snap.discipline, "t": snap.t, "round": snap.step,
            "key_count": len(snap.every_key.key_names),  # more than "keys" if cut to a view
            "worst_share_over_weight": fair.worst_share if fair.contended else None,
            "worst_key": fair.worst_key, "jain": fair.jain if fair.contended else None,
            "keys": keys, "events": {"columns": ["key", "run_id", "arrival_ms", "dequeued_ms"],
                                     "rows": events},
        })  # fmt: skip
    setup = frame.setup
    return {"scenario": setup.scenario.name, "seed": setup.seed, "lanes": lanes}


def write_figures(frame: Frame, folder: Path) -> Path:
    """Write `figures(frame)` next to the screenshot; the path written."""
    path = folder / f"{export_stem(frame)}.json"
    path.write_text(json.dumps(figures(frame), indent=1) + "\n", encoding="utf-8")
    return path
