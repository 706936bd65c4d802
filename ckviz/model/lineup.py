"""Which consumer runs which discipline: a mixed rollout (issue 22, item 2; SPEC-lifecycle 7).

`--consumers NAME:2,baseline:1` (or `consumers = "NAME:2,baseline:1"` in a scenario or a
matrix's treatment) puts three consumers on one queue: c1 and c2 run NAME's scripts (the flag
on), c3 the baseline's (the flag off), on the same keys. Consumers are numbered in the order
the form lists them. The results name the mix `NAME:2+baseline:1` wherever they name a
discipline. NAME is a discipline whose order lives in Redis (the registry's IN_REDIS; its
MIX_EXAMPLE is what help and error lines above the model show).

Who makes each call:
- a dequeue: the consumer whose turn it is (the turns are drawn as for any several consumers);
- an ack (and a nack): the consumer whose dequeue took the run, as a worker acks through the
  instance that handed it the run;
- an enqueue: the instance the run's producer happened to reach, drawn per run from the seed
  and the run id (`enqueuer`), so each consumer enqueues about its share of the runs, whatever
  their order. A draw, not a round robin: a workload whose keys arrive in a cycle would hand
  each key to one consumer only under a round robin of the same length.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

SEPARATOR = ","
MIX_FORM = "name:count,name:count"  # the form, as the model's own error lines show it
LABEL_SEPARATOR = "+"
FLAG_OFF = "baseline"  # in a scenario's mix: the instances the rollout has not reached


@dataclass(frozen=True, slots=True)
class Lineup:
    """The disciplines of a mix and how many consumers run each, in the order given."""

    parts: tuple[tuple[str, int], ...]

    @property
    def label(self) -> str:
        """What the results call the mix: `NAME:2+baseline:1`."""
        return LABEL_SEPARATOR.join(f"{name}:{count}" for name, count in self.parts)

    @property
    def form(self) -> str:
        """The mix as the flag and the files take it: `NAME:2,baseline:1`."""
        return SEPARATOR.join(f"{name}:{count}" for name, count in self.parts)

    @property
    def per_consumer(self) -> tuple[str, ...]:
        """Each consumer's discipline, c1..cN."""
        return tuple(name for name, count in self.parts for _ in range(count))

    @property
    def names(self) -> tuple[str, ...]:
        """The disciplines, each once, in the order given."""
        return tuple(name for name, _ in self.parts)

    def __len__(self) -> int:
        return sum(count for _, count in self.parts)


def parse_lineup(text: str, most: int) -> Lineup:
    """`name:count,...` (a bare name counts 1); ValueError saying what is wrong otherwise."""
    parts: list[tuple[str, int]] = []
    for item in text.split(SEPARATOR):
        name, colon, count_text = item.strip().partition(":")
        name, count_text = name.strip(), count_text.strip()
        if not name:
            raise ValueError(f"empty discipline in '{text}' (expected {MIX_FORM})")
        if colon and not (count_text.isascii() and count_text.isdigit()):  # not `²`, `٣`
            raise ValueError(f"'{item.strip()}': the count after ':' must be a whole number")
        count = _count(count_text, most) if colon else 1
        if count < 1:
            raise ValueError(f"'{item.strip()}': a discipline needs at least 1 consumer")
        if count > most:  # on its own: the sum of counts past any int is never made
            raise ValueError(f"'{item.strip()}': at most {most} consumers (one connection each)")
        if any(name == seen for seen, _ in parts):
            raise ValueError(f"'{name}' is listed twice")
        parts.append((name, count))
    lineup = Lineup(tuple(parts))
    if len(lineup) > most:
        raise ValueError(f"{len(lineup)} consumers in all; at most {most} (one connection each)")
    return lineup


def _count(digits: str, most: int) -> int:
    """The count `digits` (0-9) spell, or `most + 1` when it is larger (a count of 5,000 digits
    is past what int() converts)."""
    significant = digits.lstrip("0") or "0"
    return int(significant) if len(significant) <= len(str(most)) else most + 1


def mix_of(consumers: int | str | None, most: int) -> Lineup | None:
    """A `consumers` value (checked when read) as the mix it names; None for a count."""
    return parse_lineup(consumers, most) if isinstance(consumers, str) else None


def flag_consumers(consumers: int | Lineup | None) -> int | str | None:
    """`--consumers` as read (a count, or the mix) as a results file names it: the count, or
    the mix in its form."""
    return consumers.form if isinstance(consumers, Lineup) else consumers


def consumers_value(value: object, most: int) -> int | Lineup:
    """A `consumers` value as scenario files take it: a count (1 to `most`), or the mix a
    `name:count,...` or a table `{name = count, ...}` names (in the order written), or a mix
    read already; ValueError saying what is wrong otherwise. The flag and a matrix's
    treatments read the same mix with `parse_lineup`."""
    if isinstance(value, Lineup):  # read once already (with_mix_read)
        return value
    if isinstance(value, dict):
        value = SEPARATOR.join(f"{name}:{_table_count(name, n)}" for name, n in value.items())
    if isinstance(value, str) and value.strip().isdigit():
        raise ValueError(f"a count is a whole number without quotes, or a mix {MIX_FORM}")
    if isinstance(value, str):
        return parse_lineup(value, most)
    if isinstance(value, int) and not isinstance(value, bool):
        if not 1 <= value <= most:
            raise ValueError(f"must be 1 to {most} (one connection each), got {value}")
        return value
    raise ValueError(f"expected a whole number (1 to {most}) or a mix {MIX_FORM}")


def with_mix_read(data: object, most: int) -> tuple[object, Lineup | None]:
    """A model's input `data` with its `consumers` read once when a well-formed mix (the
    field's validator then takes the Lineup as read), and that mix; a bad value is left as
    given, for the field's validator to read and name the field."""
    if not isinstance(data, dict) or not isinstance(data.get("consumers"), str | dict):
        return data, None
    try:
        read = consumers_value(data["consumers"], most)
    except ValueError:
        return data, None
    if not isinstance(read, Lineup):
        return data, None
    return {**data, "consumers": read}, read


def _table_count(name: str, count: object) -> int:
    if not isinstance(count, int) or isinstance(count, bool):
        raise ValueError(f"'{name}': the count must be a whole number")
    return count


def is_lineup(value: int | str | None) -> bool:
    """Whether a `consumers` value names disciplines (a mix) rather than a count."""
    return isinstance(value, str)


def enqueuer(seed: str, run_id: str, count: int) -> int:
    """The index of the consumer that enqueues `run_id`: a draw from the seed and the run id
    (BLAKE2b, the same in every process), uniform over the `count` consumers."""
    if count == 1:
        return 0
    digest = hashlib.blake2b(f"{seed}/enqueue/{run_id}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") % count
