"""The tenant grain of a run in progress, kept as it goes (fairness_tenants.TenantsSoFar),
equals tenant_figures over the dequeues so far with every queued run counted, at any moment;
and a tenant's interval over one sample comes from the run's own time windows, as a key's."""

from __future__ import annotations

import pytest

from ckviz.fairness import OwnLimit
from ckviz.fairness_intervals import RESAMPLES, resampled_attainment
from ckviz.fairness_tenants import TenantsSoFar, standing, tenant_figures
from ckviz.fairness_windows import WINDOWS, Windows
from ckviz.model.snapshot import DequeueEvent
from tests.unit.test_fairness_so_far import a_run

OWNER = {"heavy": "big", "a": "big", "b": "small", "c": "c"}


def expected(
    arrivals: list[tuple[int, str, str]], events: list[DequeueEvent], t: int, own: OwnLimit | None
) -> tuple[object, object]:
    served = {e.run_id for e in events}
    queued: dict[str, list[int]] = {}
    for at, key, run in arrivals:
        if at <= t and run not in served:
            queued.setdefault(key, []).append(at)
    return standing(tenant_figures(events, OWNER, None, own, queued=queued).service)


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("capped", [False, True])
def test_kept_as_it_goes_equals_recomputed_at_every_dequeue(seed: int, capped: bool) -> None:
    arrivals, events, holds = a_run(seed)
    own = OwnLimit(2, holds) if capped else None
    tally = TenantsSoFar(OWNER, own, None)
    handed = judged = 0
    for i in range(len(events) + 1):
        t = events[i - 1].dequeued_ms if i else 0  # mid-instant: more may come at t
        while handed < len(arrivals) and arrivals[handed][0] <= t:
            tally.arrived(arrivals[handed][0], arrivals[handed][1])
            handed += 1
        tally.dequeued(events[i - 1 : i] if i else [])
        (low, high), (want_low, want_high) = tally.so_far(t), expected(arrivals, events[:i], t, own)
        assert (low is None) == (want_low is None) and (high is None) == (want_high is None)
        if low is not None and want_low is not None:
            assert low[0] == want_low[0] and low[1] == pytest.approx(want_low[1]), i
        if high is not None and want_high is not None:
            assert high[0] == want_high[0] and high[1] == pytest.approx(want_high[1]), i
        judged += low is not None
    assert judged > len(events) // 2
    whole = tenant_figures(events, OWNER, None, own)  # at the end: the results' figures
    assert tally.so_far(events[-1].dequeued_ms + 1) == standing(whole.service)


@pytest.mark.parametrize("seed", range(5))
def test_tenant_windows_add_up_to_the_run_and_leave_its_figures_alone(seed: int) -> None:
    _, events, _ = a_run(seed)
    plain = tenant_figures(events, OWNER)
    windows = Windows()
    kept = tenant_figures(events, OWNER, windows=windows)
    assert kept == plain  # float for float
    assert windows.keys == ["big", "small", "c"]
    for tenant, service in kept.service.items():
        per = windows.per_window(kept.service, tenant)
        assert len(per) == WINDOWS
        assert sum(o for o, _ in per) == pytest.approx(service.owed)
        assert sum(g for _, g in per) == service.got
    resamples = resampled_attainment(kept.service, windows)
    assert resamples is not None and len(resamples) == RESAMPLES
    assert kept.most_underserved is not None
    judged = sorted(v for v in resamples if v is not None)
    assert judged[5] <= kept.most_underserved[1] <= judged[-5]
