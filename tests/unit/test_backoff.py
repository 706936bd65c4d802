"""The nack's retry delay (SPEC-lifecycle 2.2): ranges, defaults and traps."""

from __future__ import annotations

import random

import pytest

from ckviz.model.backoff import (
    QUEUE_DEFAULTS,
    NackOutcome,
    dead_letter_at,
    laid_over_core,
    on_nack,
    retry_delay_ms,
    retry_score,
)

TEST_OPTS = laid_over_core(max_attempts=12, factor=1.1, min_timeout_ms=100)


def delays(opts, attempt: int, n: int = 2000) -> list[int]:
    rng = random.Random(7)
    return [retry_delay_ms(opts, attempt, rng) for _ in range(n)]


@pytest.mark.parametrize(
    ("attempt", "low", "high"),
    [(1, 1000, 1999), (2, 2000, 3999), (11, 1_024_000, 2_047_999)],
)
def test_queue_defaults_stay_in_the_specs_ranges(attempt: int, low: int, high: int) -> None:
    got = delays(QUEUE_DEFAULTS, attempt)
    assert low <= min(got) and max(got) <= high
    assert max(got) - min(got) > (high - low) // 2  # randomised, not pinned to one end


@pytest.mark.parametrize(("attempt", "low", "high"), [(1, 100, 200), (0, 91, 182)])
def test_the_test_options_ranges(attempt: int, low: int, high: int) -> None:
    got = delays(TEST_OPTS, attempt)
    assert low <= min(got) and max(got) <= high


def test_no_randomising_gives_r_one_and_needs_no_generator() -> None:
    opts = laid_over_core(max_attempts=12, randomize=False)
    assert [retry_delay_ms(opts, a) for a in (1, 2, 3)] == [1000, 2000, 4000]


def test_the_max_timeout_caps_the_delay() -> None:
    opts = laid_over_core(max_attempts=30, randomize=False)
    assert retry_delay_ms(opts, 20) == 60_000  # core max, not the queue's 3 600 000


def test_no_delay_at_or_past_max_attempts() -> None:
    opts = laid_over_core(max_attempts=2, randomize=False)
    assert retry_delay_ms(opts, 1) == 1000
    assert retry_delay_ms(opts, 2) == 0
    assert retry_delay_ms(opts, 5) == 0


def test_options_without_max_attempts_stop_delaying_at_three_but_dead_letter_at_twelve() -> None:
    opts = laid_over_core(factor=2, randomize=False)
    assert opts.max_attempts == 3
    assert retry_delay_ms(opts, 2) == 2000
    assert retry_delay_ms(opts, 3) == 0
    assert retry_score(5000, opts, 3) == 5000  # the score becomes now
    assert dead_letter_at(None) == 12
    assert dead_letter_at(4) == 4


def test_math_round_rounds_halves_up() -> None:
    opts = laid_over_core(max_attempts=12, factor=1, min_timeout_ms=2.5, randomize=False)
    assert retry_delay_ms(opts, 1) == 3  # Python's round(2.5) would give 2


def test_same_seed_same_delays_and_retry_at_wins() -> None:
    assert delays(QUEUE_DEFAULTS, 3, 50) == delays(QUEUE_DEFAULTS, 3, 50)
    rng = random.Random(1)
    assert retry_score(1000, QUEUE_DEFAULTS, 1, rng, retry_at=42) == 42
    assert rng.random() == random.Random(1).random()  # retryAt draws nothing


def test_randomising_without_a_generator_is_refused() -> None:
    with pytest.raises(ValueError, match="seeded generator"):
        retry_delay_ms(QUEUE_DEFAULTS, 1)


def test_with_max_attempts_two_the_second_nack_dead_letters() -> None:
    opts = laid_over_core(max_attempts=2, randomize=False)
    first = on_nack(0, 5000, 2, opts)
    assert first == NackOutcome(1, False, 6000)
    second = on_nack(first.attempt, 9000, 2, opts)
    assert second.dead_letter and second.score is None


def test_a_non_incrementing_nack_never_dead_letters() -> None:
    opts = laid_over_core(max_attempts=2, randomize=False)
    outcome = on_nack(5, 5000, 2, opts, increment=False)
    assert outcome == NackOutcome(5, False, 5000)  # at/past max attempts: no delay either


def test_without_max_attempts_the_nack_dead_letters_at_twelve_not_three() -> None:
    opts = laid_over_core(randomize=False)
    assert on_nack(2, 100, None, opts) == NackOutcome(3, False, 100)  # no delay from 3 on
    assert not on_nack(10, 100, None, opts).dead_letter
    assert on_nack(11, 100, None, opts).dead_letter


def test_a_dead_letter_draws_nothing_from_the_generator() -> None:
    rng = random.Random(3)
    assert on_nack(0, 0, 1, QUEUE_DEFAULTS, rng).dead_letter
    assert rng.random() == random.Random(3).random()
