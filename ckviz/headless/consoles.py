"""The matrix's two consoles (tables on stdout; progress, errors and notes on stderr), made
when first used.

rich takes ~25 ms to import, and the parent's start is the one stretch of `--headless` where a
core idles: every cell waits for it. So the consoles are made once the workers run, along with
the rest of what only the matrix's end needs (headless/matrix.py, `under_way`)."""

from __future__ import annotations

import sys
from functools import cached_property
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console

PIPED_WIDTH = 10_000  # wider than any table: piped tables are never cut with "…"


class Consoles:
    """stdout's and stderr's consoles for one run, each made on first use."""

    def __init__(self, quiet: bool = False) -> None:
        self.quiet = quiet  # --quiet: no tables

    @cached_property
    def stdout(self) -> Console:
        return stdout_console(self.quiet)

    @cached_property
    def stderr(self) -> Console:
        from rich.console import Console

        return Console(stderr=True)

    def line(self, text: str) -> None:
        """`text` as a line on stderr: through rich on a terminal (a progress bar drawn below
        it is drawn again), else written as it is. A CI log gets a line per cell while the
        workers need every core, and rich's rendering of one took ~0.4 ms of the parent's."""
        if self.stderr.is_interactive:
            self.stderr.print(text, highlight=False, markup=False, emoji=False, soft_wrap=True)
        else:
            sys.stderr.write(text + "\n")
            sys.stderr.flush()


def stdout_console(quiet: bool = False) -> Console:
    """Tables on stdout, none with --quiet. Piped (a CI log, a file, `| less`), no colours and a
    width no table reaches, so every figure is printed whole whatever the terminal's width."""
    from rich.console import Console

    console = Console(file=sys.stdout, quiet=quiet)
    if not console.is_terminal:
        console = Console(file=sys.stdout, width=PIPED_WIDTH, no_color=True, quiet=quiet)
    return console
