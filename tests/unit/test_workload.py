"""The seedrandom port and the workload sampler against ground truth from the npm package, and
a cell's workload drawn once for the cells of the same scenario and seed."""

from __future__ import annotations

import pytest

from ckviz.inputs import scenario_files
from ckviz.inputs.workload import SeedRandom, exp_ms, generate, js_round, run_id
from ckviz.sim.cell.session import workload_of


@pytest.mark.parametrize(
    ("seed", "first"),
    [
        ("hello.", [0.9282578795792454, 0.3752569768646784]),
        (
            "seed-a",
            [
                0.8257384764500466,
                0.802520136370583,
                0.7745050175906711,
                0.8353819717453898,
                0.8847862579754823,
            ],
        ),
        ("seed-b", [0.9402353314250321, 0.33218968045923086, 0.695767128504869]),
        ("seed-c", [0.6258074900413719, 0.33687262610659524, 0.0861557350798005]),
    ],
)
def test_first_draws_match_spec(seed: str, first: list[float]) -> None:
    rng = SeedRandom(seed)
    assert [rng.random() for _ in first] == first


def test_thousandth_draw_of_seed_a() -> None:
    rng = SeedRandom("seed-a")
    draws = [rng.random() for _ in range(1000)]
    assert draws[-1] == 0.3624344888285491


def test_200_draws_bit_exact_for_every_vector_seed(vectors: dict) -> None:
    for seed, expected in vectors["seedrandom_draws"].items():
        rng = SeedRandom(seed)
        assert [rng.random() for _ in expected] == expected, seed


def test_long_and_unicode_seeds_are_deterministic() -> None:
    long_seed = "x" * 600  # longer than the 256-byte key: exercises the smear wrap-around
    assert SeedRandom(long_seed).random() == SeedRandom(long_seed).random()
    assert SeedRandom("☕-tenant").random() != SeedRandom("tenant").random()


def test_js_round_is_half_up_not_bankers() -> None:
    assert js_round(2.5) == 3  # Python's round(2.5) == 2
    assert js_round(0.49999) == 0


def test_exp_ms_is_at_least_one() -> None:
    rng = SeedRandom("tiny")
    assert min(exp_ms(rng, 0.001) for _ in range(100)) == 1


def test_run_ids_sort_by_name_like_the_reference() -> None:
    assert sorted([run_id("heavy", i) for i in (0, 1, 2, 10, 100)]) == [
        "heavy~0#0",
        "heavy~0#1",
        "heavy~0#10",
        "heavy~0#100",
        "heavy~0#2",
    ]


@pytest.mark.parametrize("name", ["ck_skew", "ck_balanced", "ck_trickle"])
@pytest.mark.parametrize("seed", ["seed-a", "seed-b", "seed-c"])
def test_bundled_workloads_match_ground_truth(vectors: dict, name: str, seed: str) -> None:
    expected = vectors["workloads"][f"{name}/{seed}"]
    got = [
        [r.key, r.run_id, r.arrival_ms, r.hold_ms]
        for r in generate(scenario_files.load(name), seed)
    ]
    assert got == expected


def test_a_cells_workload_is_drawn_once_per_scenario_and_seed() -> None:
    skew = scenario_files.load("ck_skew")
    first = workload_of(skew, "seed-a")
    assert first == generate(skew, "seed-a")
    first.pop()  # a cell's list is its own
    again = workload_of(skew, "seed-a")
    assert again == generate(skew, "seed-a")
    assert again[0] is first[0]  # the same frozen runs, not drawn again
    assert workload_of(skew, "seed-b") == generate(skew, "seed-b")
    other = scenario_files.load("ck_balanced")
    assert workload_of(other, "seed-a") == generate(other, "seed-a")
