"""The `ckviz` command's entry point (see ckviz/commands/ for the commands themselves)."""

from __future__ import annotations

import sys
from typing import NoReturn

from ckviz.commands.main import main

__all__ = ["main", "run"]


def run() -> NoReturn:
    sys.exit(main())


if __name__ == "__main__":
    run()
