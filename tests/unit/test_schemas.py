"""The committed JSON Schemas match the models (run scripts/write_schemas.py to refresh)."""

from __future__ import annotations

import pytest

from scripts.write_schemas import FOLDER, SCHEMAS, rendered


@pytest.mark.parametrize("name", sorted(SCHEMAS))
def test_committed_schema_is_current(name: str) -> None:
    committed = (FOLDER / name).read_text(encoding="utf-8")
    assert committed == rendered(SCHEMAS[name]), "stale: run python scripts/write_schemas.py"
