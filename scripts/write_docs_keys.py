"""Write the app page's list of keys (docs/app.md) from the bindings table, the same list the
app's help shows (tests/tui/test_docs_keys.py fails when the page is stale).

    uv run python scripts/write_docs_keys.py
"""

from __future__ import annotations

from pathlib import Path

from ckviz.tui.bindings import help_lines

PAGE = Path(__file__).resolve().parent.parent / "docs" / "app.md"
START = "<!-- the keys: written by scripts/write_docs_keys.py from ckviz/tui/bindings.py -->\n"
END = "<!-- end of the keys -->\n"


def rendered(page: str) -> str:
    """`page` with the text between the markers replaced by the bindings table's keys."""
    head, rest = page.split(START, 1)
    _, tail = rest.split(END, 1)
    return head + START + "\n" + "\n".join(help_lines()) + "\n\n" + END + tail


def main() -> None:
    PAGE.write_text(rendered(PAGE.read_text(encoding="utf-8")), encoding="utf-8")
    print(f"wrote the keys of {PAGE.name}")


if __name__ == "__main__":
    main()
