"""Every CSV ckviz writes, as text a spreadsheet cannot run. A cell that begins with `=`, `+`,
`-`, `@`, a tab or a carriage return is a formula to Excel, LibreOffice and Google Sheets
(`=HYPERLINK(...)` in a key name would be one), so such a text cell gets a leading `'`
(OWASP's rule for CSV injection): the spreadsheet shows the text, and `'` is the one
character to strip when a program reads it back. Only text is escaped: a number ckviz
writes (`-3`, a negative figure) is a number, and stays one."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Sequence

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def text_cell(value: object) -> object:
    """`value`, with a leading `'` when it is text a spreadsheet would take as a formula."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def csv_text(rows: Iterable[Sequence[object]]) -> str:
    """`rows` as CSV text, every text cell through `text_cell`."""
    out = io.StringIO(newline="")
    writer = csv.writer(out)
    for row in rows:
        writer.writerow([text_cell(value) for value in row])
    return out.getvalue()
