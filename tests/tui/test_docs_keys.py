"""The app page lists the keys the bindings table binds (run scripts/write_docs_keys.py)."""

from __future__ import annotations

from scripts.write_docs_keys import PAGE, rendered


def test_the_app_page_lists_the_bindings_tables_keys() -> None:
    page = PAGE.read_text(encoding="utf-8")
    assert page == rendered(page), "stale: run python scripts/write_docs_keys.py"
    assert "- `space`: one dequeue round" in page and "- `q`, `ctrl+c`: quit" in page
