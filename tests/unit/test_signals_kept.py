"""A module's fixture that runs ckviz in this process (which installs its stop handlers) leaves
the worker's own handlers to the tests after it (tests/conftest.py)."""

from __future__ import annotations

import signal

import pytest

from ckviz.outputs.interrupts import INTERRUPTS


@pytest.fixture(scope="module")
def ckviz_ran_here() -> None:
    INTERRUPTS.install()  # what `ckviz.cli.main` does first


def test_a_module_fixture_s_stop_handlers_do_not_outlive_its_setup(ckviz_ran_here: None) -> None:
    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        assert signal.getsignal(signum) != INTERRUPTS._handle
