"""Issue 19's layout, held: which clock a scenario needs is decided in few places, and the one
Redis-side discipline lives in its package, not wired by hand through the rest of ckviz."""

from __future__ import annotations

import re
from pathlib import Path

CKVIZ = Path(__file__).resolve().parents[2] / "ckviz"
VTIME_PACKAGE = CKVIZ / "disciplines" / "vtime"
MOST_MODULES_NAMING_VTIME = 12  # knobs in the models, results fields, flags, the registry


def _modules() -> dict[Path, str]:
    return {path: path.read_text() for path in sorted(CKVIZ.rglob("*.py"))}


def test_the_clock_is_told_apart_in_at_most_two_places() -> None:
    checks = [
        (path.relative_to(CKVIZ), line)
        for path, text in _modules().items()
        for line in text.splitlines()
        if re.search(r"isinstance\([^)]*StepScenario", line)
    ]
    assert 1 <= len(checks) <= 2, checks


def test_vtime_lives_in_its_package() -> None:
    assert not (CKVIZ / "store" / "vtime.py").exists()
    assert (VTIME_PACKAGE / "__init__.py").exists()
    outside = [
        path.relative_to(CKVIZ)
        for path, text in _modules().items()
        if VTIME_PACKAGE not in path.parents and "vtime" in text.lower()
    ]
    assert 0 < len(outside) <= MOST_MODULES_NAMING_VTIME, outside


def test_store_knows_no_discipline() -> None:
    store = [(p, t) for p, t in _modules().items() if (CKVIZ / "store") in p.parents]
    assert store
    for path, text in store:
        assert not re.search(r"^\s*(from|import) ckviz\.disciplines", text, re.M), path
