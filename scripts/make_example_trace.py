"""Write the bundled example trace, scenarios/traces/incident.csv: a noisy-neighbour incident.

Generated, not recorded (and so anonymised by construction): 300 tenants with hash-like keys
enqueue a few runs each over 20 s at their own steady pace; 5 s in, one tenant floods the
queue with 1,200 runs in a second. Timestamps are epoch ms from 2026-01-01T00:00:00Z, as an
export of enqueue and ack logs would give them; ckviz shifts them to start at 0. Fixed seed:
the same file every time.

    uv run python scripts/make_example_trace.py
"""

from __future__ import annotations

import csv
import hashlib
import random
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "scenarios" / "traces" / "incident.csv"
EPOCH_MS = 1_767_225_600_000  # 2026-01-01T00:00:00Z
TENANTS = 300
SPAN_MS = 20_000
FLOOD_AT_MS, FLOOD_RUNS, FLOOD_OVER_MS = 5_000, 1_200, 1_000


def tenant(i: int) -> str:
    return "t-" + hashlib.sha1(f"tenant-{i}".encode()).hexdigest()[:8]


def runs(rng: random.Random) -> list[tuple[str, int, int, str]]:
    rows = []
    for i in range(TENANTS):
        key = tenant(i)
        rate_per_s = rng.uniform(0.1, 0.5)  # a few runs each over the span
        t = rng.uniform(0, 2_000)
        while t < SPAN_MS:
            rows.append((key, EPOCH_MS + round(t), max(1, round(rng.expovariate(1 / 40)))))
            t += rng.expovariate(rate_per_s / 1000)
    noisy = tenant(TENANTS)
    for _ in range(FLOOD_RUNS):
        at = FLOOD_AT_MS + rng.uniform(0, FLOOD_OVER_MS)
        rows.append((noisy, EPOCH_MS + round(at), max(1, round(rng.expovariate(1 / 60)))))
    rows.sort(key=lambda r: (r[1], r[0]))
    return [(k, at, hold, f"run_{n:05d}") for n, (k, at, hold) in enumerate(rows)]


def main() -> None:
    OUT.parent.mkdir(parents=True, exist_ok=True)
    with OUT.open("w", encoding="utf-8", newline="") as f:
        writer = csv.writer(f, lineterminator="\n")
        writer.writerow(["key", "arrival_ms", "hold_ms", "run_id"])
        writer.writerows(runs(random.Random(2026)))
    print(f"wrote {OUT.relative_to(OUT.parents[2])} (noisy key: {tenant(TENANTS)})")


if __name__ == "__main__":
    main()
