"""What a refresh costs the server, and how the refresh interval backs off when it costs more
than its budget (SPEC-live 4).

INFO commandstats is read before and after a refresh's commands: each command kind's usec
delta is the server's time on it. The counts are the server's, over every client: calls of
the same kinds by others meanwhile are counted, and taken out in proportion (the figure is
then an estimate, and says so).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from ckviz.live.picture import ReadCost

MAX_INTERVAL_S = 60.0  # the slowest a backed-off refresh goes


def command_kind(args: tuple[Any, ...]) -> str:
    """The commandstats name of a command: `zrange`, `info`, `client|setname`."""
    name = str(args[0]).lower()
    if name in ("client", "config", "object") and len(args) > 1:
        return f"{name}|{str(args[1]).lower()}"
    return name


def stats_of(info: Mapping[str, Any]) -> dict[str, tuple[int, float]]:
    """INFO commandstats (as redis-py parses it) -> kind -> (calls, usec)."""
    stats: dict[str, tuple[int, float]] = {}
    for name, fields in info.items():
        if name.startswith("cmdstat_") and isinstance(fields, Mapping):
            stats[name[len("cmdstat_") :]] = (int(fields["calls"]), float(fields["usec"]))
    return stats


def read_cost(
    before: Mapping[str, tuple[int, float]],
    after: Mapping[str, tuple[int, float]],
    sent: Counter[str],
    round_trips: int,
    wall_ms: float,
) -> ReadCost:
    """The refresh's own server time, from the two stats and the kinds it sent between them
    (the first INFO among them: the second one's own call is not yet counted when it answers)."""
    own_us, others, slowest = 0.0, 0, 0.0
    for kind, ours in sent.items():
        calls0, usec0 = before.get(kind, (0, 0.0))
        calls1, usec1 = after.get(kind, (calls0, usec0))
        calls, usec = calls1 - calls0, usec1 - usec0
        if calls <= 0:
            continue
        own_us += usec * min(1.0, ours / calls)
        others += max(0, calls - ours)
        slowest = max(slowest, usec / calls)
    return ReadCost(
        server_us=round(own_us, 1),
        commands=sum(sent.values()),
        round_trips=round_trips,
        slowest_us=round(slowest, 2),
        others_calls=others,
        wall_ms=round(wall_ms, 3),
    )


def next_interval(base_s: float, current_s: float, cost: ReadCost, budget_ms: float) -> float:
    """The wait before the next refresh: doubled while a refresh costs more than the budget,
    halved back towards `base_s` once it costs less."""
    if cost.server_us / 1000 > budget_ms:
        return min(MAX_INTERVAL_S, max(current_s, base_s) * 2)
    return max(base_s, current_s / 2)
