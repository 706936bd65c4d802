"""A live queue's key names (SPEC-live 1): spelled from its ids, parsed back from its ckIndex
key, queue names holding `/` and `:`, concurrency keys holding `:`."""

from __future__ import annotations

import pytest

from ckviz.live.names import LiveQueue, jump_hash, queue_of_index

P = "engine:runqueue:"


def test_the_names_are_the_reference_layout() -> None:
    q = LiveQueue(P, "org1", "proj1", "env1", "task/send:v2")
    base = "{org:org1}:proj:proj1:env:env1:queue:task/send:v2"
    assert q.ck_index == f"{P}{base}:ckIndex"
    assert q.variant("acme:eu") == f"{P}{base}:ck:acme:eu"
    assert q.member("acme:eu") == f"{base}:ck:acme:eu"
    assert q.master_member == f"{base}:ck:*"
    assert q.env_queue == f"{P}{{org:org1}}:env:env1"
    assert q.env_held == f"{P}{{org:org1}}:proj:proj1:env:env1:currentConcurrency"
    assert q.queue_held == f"{P}{base}:currentConcurrency"
    assert q.message("run_1") == f"{P}{{org:org1}}:message:run_1"
    assert q.concurrency_key_of(q.member("a:b:c")) == "a:b:c"


@pytest.mark.parametrize("name", ["task/x", "task/a/b:c:d", "q:ck:looks-like-a-variant"])
def test_a_ck_index_key_parses_back_to_its_queue(name: str) -> None:
    q = LiveQueue(P, "org1", "proj1", "env1", name)
    assert queue_of_index(q.ck_index, P) == q


def test_a_deeper_prefix_is_the_queues_own() -> None:
    q = LiveQueue(P + "tenant:", "o", "p", "e", "task/x")
    assert queue_of_index(q.ck_index, P) == q


@pytest.mark.parametrize(
    "key",
    [
        f"{P}something:ckIndex",  # not the layout
        f"{P}{{org:o}}:proj:p:env:e:queue:task/x",  # not a ckIndex
        "other:{org:o}:proj:p:env:e:queue:task/x:ckIndex",  # another prefix
        f"{P}{{org:o}}:proj:p:env:e:queue::ckIndex",  # no queue name
    ],
)
def test_what_is_not_a_queues_index_is_none(key: str) -> None:
    assert queue_of_index(key, P) is None


def test_jump_hash_moves_a_key_only_to_a_new_bucket() -> None:
    """The jump hash's defining property: with one bucket more, a key stays or moves to it."""
    for key in range(0, 2**64, 2**64 // 997):
        before = jump_hash(key, 1)
        assert before == 0
        for buckets in range(2, 12):
            after = jump_hash(key, buckets)
            assert after in (before, buckets - 1)
            before = after
