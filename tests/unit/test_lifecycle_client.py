"""The client's side of a nack and the fast-path offer (SPEC-lifecycle 2.1, 2.2, 3, 6)."""

from __future__ import annotations

import json
import random

from ckviz.model.backoff import QUEUE_DEFAULTS, laid_over_core
from ckviz.store.lifecycle.client import fast_path_offer, nack_payload, nack_step

PAYLOAD = json.dumps(
    {"runId": "a1", "concurrencyKey": "a", "timestamp": 1000, "attempt": 0, "ttlExpiresAt": 9}
)
FIXED = laid_over_core(max_attempts=5, randomize=False)


def test_the_nack_payload_has_the_new_attempt_and_no_ttl_and_keeps_its_timestamp() -> None:
    message = json.loads(nack_payload(PAYLOAD, 3))
    assert message == {"runId": "a1", "concurrencyKey": "a", "timestamp": 1000, "attempt": 3}


def test_a_nack_requeues_at_now_plus_the_backoff_with_the_next_attempt() -> None:
    step = nack_step(PAYLOAD, 50_000, 5, FIXED)
    assert (step.dead_letter, step.attempt, step.score) == (False, 1, 51_000)
    assert step.payload is not None and json.loads(step.payload)["attempt"] == 1
    second = nack_step(step.payload, 50_000, 5, FIXED)
    assert (second.attempt, second.score) == (2, 52_000)  # min timeout x factor


def test_a_message_without_an_attempt_counts_from_zero() -> None:
    assert nack_step('{"runId":"a1"}', 0, 5, FIXED).attempt == 1


def test_an_incrementing_nack_at_the_dead_letter_attempt_writes_nothing() -> None:
    payload = nack_payload(PAYLOAD, 1)
    step = nack_step(payload, 0, 2, laid_over_core(max_attempts=2))  # the second nack
    assert step.dead_letter and step.attempt == 2
    assert step.payload is None and step.score is None


def test_a_non_incrementing_nack_never_dead_letters_and_keeps_the_attempt() -> None:
    payload = nack_payload(PAYLOAD, 7)
    step = nack_step(payload, 100, 2, FIXED, increment=False)
    assert not step.dead_letter and step.attempt == 7
    assert step.score == 100  # attempt 7 >= maxAttempts 5: no delay


def test_without_max_attempts_the_nack_dead_letters_at_12() -> None:
    payload = nack_payload(PAYLOAD, 10)
    assert not nack_step(payload, 0, None, laid_over_core(randomize=False)).dead_letter
    assert nack_step(nack_payload(PAYLOAD, 11), 0, None, laid_over_core()).dead_letter


def test_a_given_retry_at_wins_and_draws_nothing() -> None:
    rng = random.Random(7)
    state = rng.getstate()
    step = nack_step(PAYLOAD, 0, None, QUEUE_DEFAULTS, rng, retry_at=12_345)
    assert step.score == 12_345 and rng.getstate() == state


def test_a_randomised_delay_draws_from_the_callers_generator() -> None:
    a = nack_step(PAYLOAD, 0, None, QUEUE_DEFAULTS, random.Random(1))
    b = nack_step(PAYLOAD, 0, None, QUEUE_DEFAULTS, random.Random(1))
    assert a == b and a.score is not None and 1000 <= a.score <= 1999


def test_the_fast_path_is_offered_only_when_enabled_and_due() -> None:
    assert fast_path_offer(True, 100, 100) == 100
    assert fast_path_offer(True, 101, 100) is None  # a delayed run
    assert fast_path_offer(False, 0, 100) is None
