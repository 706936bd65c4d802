"""The `ckviz` command's entry point (see ckviz/commands/ for the commands themselves)."""

from __future__ import annotations

import sys
from typing import NoReturn

from ckviz.commands.main import main
from ckviz.outputs.interrupts import INTERRUPTS

__all__ = ["main", "run"]


def run() -> NoReturn:
    code = main()
    INTERRUPTS.done()  # a repeat of the stop arriving while the interpreter exits changes nothing
    sys.exit(code)


if __name__ == "__main__":
    run()
