"""Fixtures for every functional test."""

from __future__ import annotations

import signal
from collections.abc import Iterator

import pytest


@pytest.fixture(autouse=True)
def keep_signals() -> Iterator[None]:
    """`ckviz.cli.main` installs SIGINT, SIGTERM and SIGHUP handlers; give pytest its own back."""
    saved = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
    yield
    for signum, handler in saved.items():
        signal.signal(signum, handler)
