"""What a refresh costs the server, and how the refresh interval backs off when it costs more
than its budget (SPEC-live 4).

INFO commandstats is read before and after a refresh's commands: each command kind's usec
delta is the server's time on it. The counts are the server's, over every client: calls of
the same kinds by others meanwhile are counted, and taken out in proportion (the figure is
then an estimate, and says so).

INFO commandstats is itself a command the server formats line by line, one per command kind
ever called: on a busy server it costs more than the reads it measures. So it is read around
the first refresh and every MEASURE_EVERY-th after (`Meter`); a refresh between is priced from
the commands it sent, kind by kind, at the usec per call last measured (`ReadCost.measured`
False). The back-off reads either figure the same way.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from ckviz.live.picture import ReadCost

MAX_INTERVAL_S = 60.0  # the slowest a backed-off refresh goes
MEASURE_EVERY = 10  # refreshes per INFO commandstats pair: the first, then every tenth


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
        calls, per_call = _delta(before, after, kind)
        if calls <= 0:
            continue
        own_us += per_call * min(calls, ours)
        others += max(0, calls - ours)
        slowest = max(slowest, per_call)
    return ReadCost(
        server_us=round(own_us, 1),
        commands=sum(sent.values()),
        round_trips=round_trips,
        slowest_us=round(slowest, 2),
        others_calls=others,
        wall_ms=round(wall_ms, 3),
    )


def _delta(
    before: Mapping[str, tuple[int, float]], after: Mapping[str, tuple[int, float]], kind: str
) -> tuple[int, float]:
    """A kind's calls between two commandstats, and their mean usec per call."""
    calls0, usec0 = before.get(kind, (0, 0.0))
    calls1, usec1 = after.get(kind, (calls0, usec0))
    calls = calls1 - calls0
    return calls, (usec1 - usec0) / calls if calls > 0 else 0.0


class Meter:
    """One watched connection's cost measurements: when INFO commandstats is next read, and the
    usec per call of each command kind it last measured (what a refresh between is priced at)."""

    def __init__(self, every: int = MEASURE_EVERY) -> None:
        self.every = every
        self.refreshes = 0
        self.per_call: dict[str, float] = {}
        self.since = 0  # refreshes since the last measurement

    def due(self) -> bool:
        """Whether this refresh reads commandstats around its commands."""
        return self.refreshes % self.every == 0 or not self.per_call

    def measured(
        self,
        before: Mapping[str, tuple[int, float]],
        after: Mapping[str, tuple[int, float]],
        sent: Counter[str],
        round_trips: int,
        wall_ms: float,
    ) -> ReadCost:
        """A measured refresh's cost; its kinds' usec per call kept for the next ones."""
        for kind in sent:
            calls, per_call = _delta(before, after, kind)
            if calls > 0:
                self.per_call[kind] = per_call
        self.refreshes, self.since = self.refreshes + 1, 0
        return read_cost(before, after, sent, round_trips, wall_ms)

    def estimated(self, sent: Counter[str], round_trips: int, wall_ms: float) -> ReadCost:
        """A refresh between measurements: its commands at the usec per call last measured
        (a kind not measured yet at the mean of those that were)."""
        known = self.per_call.values()
        mean = sum(known) / len(known) if known else 0.0
        prices = {kind: self.per_call.get(kind, mean) for kind in sent}
        self.refreshes, self.since = self.refreshes + 1, self.since + 1
        return ReadCost(
            server_us=round(sum(prices[kind] * n for kind, n in sent.items()), 1),
            commands=sum(sent.values()),
            round_trips=round_trips,
            slowest_us=round(max(prices.values(), default=0.0), 2),
            others_calls=0,
            wall_ms=round(wall_ms, 3),
            measured_ago=self.since,
        )


def next_interval(base_s: float, current_s: float, cost: ReadCost, budget_ms: float) -> float:
    """The wait before the next refresh: doubled while a refresh costs more than the budget,
    halved back towards `base_s` once it costs less."""
    if cost.server_us / 1000 > budget_ms:
        return min(MAX_INTERVAL_S, max(current_s, base_s) * 2)
    return max(base_s, current_s / 2)
