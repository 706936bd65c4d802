"""While a command loads, the cycle collector is off; it is back on after, whatever happened,
and what loading made is frozen only when the command is the whole process."""

from __future__ import annotations

import gc

import pytest

from ckviz.commands import loading as loading_module
from ckviz.commands.loading import loading


def test_the_collector_is_off_while_loading_and_back_on_after_nesting_and_errors() -> None:
    assert gc.isenabled()
    with loading():
        assert not gc.isenabled()
        with loading():
            assert not gc.isenabled()
        assert not gc.isenabled()  # the outer one puts it back
    assert gc.isenabled()
    with pytest.raises(ValueError), loading():
        raise ValueError
    assert gc.isenabled()


def test_what_loading_made_is_frozen_only_for_the_whole_process(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    before = gc.get_freeze_count()
    with loading():
        made = [[i] for i in range(1000)]
    assert gc.get_freeze_count() == before  # a test calling main(): nothing frozen
    monkeypatch.setattr(loading_module, "_whole_process", True)
    try:
        with loading():
            made = [[i] for i in range(1000)]
        assert gc.get_freeze_count() >= before + len(made)
    finally:
        gc.unfreeze()
