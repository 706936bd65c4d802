"""Run `ckviz` (the app) as its entry point does, headless, and quit once its first frame is
on screen (bench/first_paint.py times it; tests/functional/test_startup.py lists what it
loaded).

    python -P bench/first_frame_probe.py ARGS...

FIRST_FRAME_T0 (seconds since the epoch, as the parent spawned this): print
`first-paint-ms N` on stderr, the wall milliseconds since then. FIRST_FRAME_MODULES (a file):
write the names of the modules loaded, as JSON. The app runs on Textual's headless driver at
120x40 (no terminal needed, so the terminal check is skipped), with a hook on its first frame
put on the app's class when ckviz imports it, not before: importing it here first would load
Textual before ckviz's own start (its embedded server starts while the app loads), and
ckviz's own start order is what is measured. The frame counts once the refresh that draws it
is done.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
import time
from importlib.machinery import ModuleSpec
from types import ModuleType
from typing import Any

APP_MODULE = "ckviz.tui.app"


def on_first_frame() -> None:
    """What the probe was asked to note, now that the first frame is drawn."""
    if "FIRST_FRAME_T0" in os.environ:
        ms = (time.time() - float(os.environ["FIRST_FRAME_T0"])) * 1000
        print(f"first-paint-ms {ms:.0f}", file=sys.stderr, flush=True)
    if "FIRST_FRAME_MODULES" in os.environ:
        with open(os.environ["FIRST_FRAME_MODULES"], "w") as out:
            json.dump(sorted(sys.modules), out)


def patched(app_class: Any) -> None:
    """The app runs headless and quits once its first frame is on screen."""
    run, show = app_class.run, app_class._show

    def headless_run(self: Any, *args: Any, **kwargs: Any) -> Any:
        return run(self, headless=True, size=(120, 40))

    def first_show(self: Any, frame: Any) -> None:
        show(self, frame)
        if not getattr(self, "_first_frame", False):
            self._first_frame = True

            def drawn() -> None:
                on_first_frame()
                self.exit(0)

            self.call_after_refresh(drawn)

    app_class.run, app_class._show = headless_run, first_show


class WhenTheAppLoads:
    """An import hook: patches the app's class right after ckviz itself imports it."""

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> ModuleSpec | None:
        if name != APP_MODULE:
            return None
        sys.meta_path.remove(self)  # type: ignore[arg-type]
        spec = importlib.util.find_spec(name)
        assert spec is not None and spec.loader is not None
        execute = spec.loader.exec_module

        def exec_module(module: ModuleType) -> None:
            execute(module)
            patched(module.CkvizApp)

        spec.loader.exec_module = exec_module  # type: ignore[method-assign]
        return spec


def main() -> None:
    sys.meta_path.insert(0, WhenTheAppLoads())  # type: ignore[arg-type]
    import ckviz.commands.app as app_command

    app_command.need_terminal = lambda: None  # headless: no terminal to draw on
    sys.argv = ["ckviz", *sys.argv[1:]]
    from ckviz.cli import run

    run()


if __name__ == "__main__":
    main()
