"""The `ckviz` command's entry point (see ckviz/commands/ for the commands themselves)."""

from __future__ import annotations

import gc
import os
import sys
from typing import NoReturn

from ckviz.commands.loading import whole_process
from ckviz.commands.main import main
from ckviz.outputs.interrupts import INTERRUPTS

__all__ = ["main", "run"]


def run() -> NoReturn:
    # ckviz's models use no pydantic plugin; looking for them reads every installed package's
    # entry points when the first model is built (~25 ms of each start). A user's setting wins.
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    whole_process()  # what the command loads may be frozen out of the collector's way
    code = main()
    INTERRUPTS.done()  # a repeat of the stop arriving while the interpreter exits changes nothing
    # What is left is freed by the exit: the interpreter's last collections need not trace it
    # (~60 ms of CPU after a matrix, docs/performance.md). Every output is closed by now.
    gc.freeze()
    sys.exit(code)


if __name__ == "__main__":
    run()
