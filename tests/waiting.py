"""Waiting on a condition, never for a fixed time: a test asks what it waits for again and
again until it holds. The timeout is generous (a loaded machine may be many times slower than
a quiet one): it only ends a wait that would otherwise hang, and it is never what a test
asserts."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

TIMEOUT_S = 60.0
_LOOK_EVERY_S = 0.02


def within(condition: Callable[[], T], timeout: float) -> T | None:
    """The first truthy value `condition` gives, else None once `timeout` seconds passed (for a
    fake that waits to be stopped, and stops by itself if nobody does)."""
    deadline = time.monotonic() + timeout
    while not (got := condition()):
        if time.monotonic() > deadline:
            return None
        time.sleep(_LOOK_EVERY_S)
    return got


def wait_until(condition: Callable[[], T], what: str, timeout: float = TIMEOUT_S) -> T:
    """The first truthy value `condition` gives; AssertionError naming `what` at the timeout."""
    got = within(condition, timeout)
    if not got:
        raise AssertionError(f"not within {timeout:g} s: {what}")
    return got


async def eventually(condition: Callable[[], T], what: str, timeout: float = TIMEOUT_S) -> T:
    """`wait_until` for a test running in an event loop: the loop runs while it waits."""
    deadline = time.monotonic() + timeout
    while not (got := condition()):
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {timeout:g} s: {what}")
        await asyncio.sleep(_LOOK_EVERY_S)
    return got
