"""Deleting a prefix's keys page by page: every key under it goes, nothing else is touched."""

from __future__ import annotations

import pytest
import redis

from ckviz.store import prefix as prefixes
from ckviz.store.prefix import count_prefix, delete_prefix


def test_every_key_under_the_prefix_is_deleted_over_many_pages_and_no_other(
    client: redis.Redis, prefix: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(prefixes, "DELETE_SCAN_COUNT", 50)  # many pages from a few keys
    mine = f"{prefix}cell*1:"  # a glob character in the prefix: matched as itself
    others = [f"{prefix}cell*2:a", f"{prefix}cellX1:a", f"{prefix}cell:a"]
    pipe = client.pipeline(transaction=False)
    for i in range(1_200):
        pipe.set(f"{mine}k{i}", i)
    for other in others:
        pipe.set(other, 1)
    pipe.execute()
    assert delete_prefix(client, mine) == 1_200
    assert count_prefix(client, mine) == 0
    assert [client.get(other) for other in others] == ["1", "1", "1"]
    assert delete_prefix(client, mine) == 0  # nothing left: nothing more to delete
