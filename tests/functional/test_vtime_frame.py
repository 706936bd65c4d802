"""A frame of vtime shows what a sort of every key shows, a screenful of it: the next order
(pass 1's over ckIndex read whole, here kept from the books and the tags as read), the tags
in ckVtime order and the rows' tags, on the millisecond clock past the 64 keys a read lists
whole (each read then names only the keys a trip touched)."""

from __future__ import annotations

from pathlib import Path

import pytest
import redis

from ckviz.disciplines.vtime.discipline import VirtualTime
from ckviz.disciplines.vtime.values import VtimeView
from ckviz.inputs import scenario_files
from ckviz.model.matrix import Treatment
from ckviz.model.scenario import Scenario
from ckviz.model.snapshot import ViewRequest
from ckviz.sim.cell.session import open_cell
from ckviz.store.keys import key_of_member

pytestmark = pytest.mark.slow

SCENARIO = """\
description = "A heavy backlog and 150 light keys arriving at random: tags spread and tie."
env_limit = 3

[[keys]]
name = "heavy"
runs = 80
arrival = "immediate"
hold_ms_mean = 25

[[keys]]
name = "light"
count = 150
runs = 3
arrival = "poisson"
rate_per_sec = 10
hold_ms_mean = 20
"""


@pytest.fixture(scope="module")
def light_keys(tmp_path_factory: pytest.TempPathFactory) -> Scenario:
    path = Path(tmp_path_factory.mktemp("vtime-frame")) / "vtime_frame.toml"
    path.write_text(SCENARIO, encoding="utf-8")
    scenario = scenario_files.load(str(path))
    assert isinstance(scenario, Scenario)
    return scenario


@pytest.mark.parametrize(
    ("scenario", "discipline", "limit"),
    [
        ("light_keys", "vtime", 12),
        ("light_keys", "vtime-v17", 5),
        ("life_retry_storm", "vtime", 4),  # nacked runs queued again
        ("life_ttl_light", "vtime", 3),  # queued runs expire
    ],
)
def test_a_frame_shows_the_first_of_what_every_key_sorted_shows(
    client: redis.Redis,
    prefix: str,
    light_keys: Scenario,
    scenario: str,
    discipline: str,
    limit: int,
) -> None:
    loaded = light_keys if scenario == "light_keys" else scenario_files.load(scenario)
    assert isinstance(loaded, Scenario)
    treatment = Treatment(discipline=discipline)
    with open_cell(client, loaded, "seed-a", treatment, prefix, trace=True) as d:
        vtime = d.discipline
        assert isinstance(vtime, VirtualTime)
        frames, unlisted = 0, 0
        while not d.done:
            d.step_instant()
            framed = d.snapshot(ViewRequest(limit=limit, index_limit=limit))
            index = d.queue.peek_index(None)[0]  # ckIndex whole: what the order ranked before
            whole = d.snapshot()
            if not d.done:
                expected = tuple(map(key_of_member, vtime.order(index, 0)))
                assert whole.next_order == expected
                assert framed.next_order == expected[:limit]
            assert framed.index_read == whole.index_read[:limit]
            shown, every = framed.discipline_state, whole.discipline_state
            assert isinstance(shown.detail, VtimeView) and isinstance(every.detail, VtimeView)
            assert shown.detail.pane_lines() == every.detail.pane_lines()
            rows = framed.carried or {}
            assert shown.per_key == tuple(kv for kv in every.per_key if kv[0] in rows)
            assert shown.fields == every.fields
            frames += 1
            unlisted += vtime.view.state is not None and not vtime.view.state.listed
        assert frames > 20
        if scenario == "light_keys":  # past the listing: reads named only the keys touched
            assert unlisted > 20
