"""What a run's service singles out, for the results, the report and the hunt: each judged
key's attainment, the most under- and over-served, the share below a bar, the starved (the
keys' service itself: fairness.py)."""

from __future__ import annotations

from collections.abc import Mapping

from ckviz.fairness import KeyService


def attainments(service: Mapping[str, KeyService]) -> dict[str, float]:
    """Each judged key's attainment, in the keys' order."""
    return {k: a for k, s in service.items() if (a := s.attainment) is not None}


def most_underserved(service: Mapping[str, KeyService]) -> tuple[str, float] | None:
    """The judged key with the lowest attainment (ties: the first name), and that attainment."""
    judged = attainments(service)
    if not judged:
        return None
    key = min(judged, key=lambda k: (judged[k], k))
    return key, judged[key]


def most_over_served(judged: Mapping[str, float | None]) -> tuple[str, float] | None:
    """Who gained: of the judged keys (or tenants) and their attainments, the highest, one that
    got any (ties: the first name). The one rule for both grains, the results' and the app's."""
    found = [(k, a) for k, a in judged.items() if a]
    return min(found, key=lambda ka: (-ka[1], ka[0])) if found else None


def share_below(service: Mapping[str, KeyService], bar: float) -> float | None:
    """The share of judged keys whose attainment is below `bar`; None when none is judged."""
    judged = attainments(service)
    if not judged:
        return None
    return sum(a < bar for a in judged.values()) / len(judged)


def starved_keys(service: Mapping[str, KeyService]) -> list[str]:
    return [k for k, s in service.items() if s.starved]
