"""Run `ckviz` as its entry point does, noting when its phases start and end (bench/startup.py).

    python bench/startup_probe.py ARGS...     (STARTUP_PROBE_OUT=FILE: where the notes go)

ckviz's modules are timed where they are defined: an import hook wraps a few named functions
right after their module runs, before anyone imports them, so ckviz imports what it imports in
its own order (this file imports only what the interpreter has loaded anyway). A function
a revision lacks is simply not timed. The notes (perf_counter seconds, one clock for all the
processes of the machine) are written by the process that started, not by forked workers.
"""

from __future__ import annotations

import time

STARTED = time.perf_counter()

import importlib.abc  # noqa: E402
import importlib.machinery  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import sys  # noqa: E402
from collections.abc import Callable, Sequence  # noqa: E402
from types import ModuleType  # noqa: E402
from typing import Any  # noqa: E402

# module: [(function, phase, kind)]; kind "call" times the call, "context" a context
# manager's entry (phase + " start") and exit (phase + " stop")
TIMED: dict[str, list[tuple[str, str, str]]] = {
    "ckviz.commands.main": [("main", "main", "call")],
    "ckviz.headless.plan": [("plan_from_args", "plan", "call")],
    "ckviz.store.server": [
        ("embedded_server", "server", "context"),
        ("server_started_early", "early server", "context"),
    ],
    "ckviz.sim.cell.workspace": [("open_workspace", "workspace", "context")],
    "ckviz.headless.runner": [("run_cells", "cells", "call")],
    "ckviz.headless.matrix": [("assemble", "assemble", "call")],  # until the end had a module
    "ckviz.headless.ending": [("assemble", "assemble", "call")],
    "ckviz.model.results_file": [("write_results", "results", "call")],
    "ckviz.headless.report": [("print_tables", "tables", "call")],
    "ckviz.sim.cell.namespace": [("sweep_namespace", "sweep", "call")],
}

SPANS: list[tuple[str, float, float]] = []
ME = os.getpid()


def _timed_call(fn: Callable[..., Any], phase: str) -> Callable[..., Any]:
    def timed(*args: Any, **kwargs: Any) -> Any:
        begun = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            SPANS.append((phase, begun, time.perf_counter()))

    return timed


class _TimedContext:
    def __init__(self, inner: Any, phase: str) -> None:
        self.inner = inner
        self.phase = phase

    def __enter__(self) -> Any:
        begun = time.perf_counter()
        try:
            return self.inner.__enter__()
        finally:
            SPANS.append((f"{self.phase} start", begun, time.perf_counter()))

    def __exit__(self, *exc: Any) -> Any:
        begun = time.perf_counter()
        try:
            return self.inner.__exit__(*exc)
        finally:
            SPANS.append((f"{self.phase} stop", begun, time.perf_counter()))


def _timed_context(fn: Callable[..., Any], phase: str) -> Callable[..., Any]:
    def timed(*args: Any, **kwargs: Any) -> Any:
        return _TimedContext(fn(*args, **kwargs), phase)

    return timed


def _wrap(module: ModuleType) -> None:
    for name, phase, kind in TIMED.get(module.__name__, []):
        fn = getattr(module, name, None)
        if fn is not None:
            wrap = _timed_call if kind == "call" else _timed_context
            setattr(module, name, wrap(fn, phase))


class _Loader(importlib.abc.Loader):
    def __init__(self, inner: Any) -> None:
        self.inner = inner

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        made: ModuleType | None = self.inner.create_module(spec)
        return made

    def exec_module(self, module: ModuleType) -> None:
        self.inner.exec_module(module)
        _wrap(module)


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname not in TIMED:
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is not None and spec.loader is not None:
            spec.loader = _Loader(spec.loader)
        return spec


def _save(returned: float) -> None:
    if os.getpid() != ME:
        return
    notes = {"started": STARTED, "returned": returned, "spans": SPANS}
    with open(os.environ["STARTUP_PROBE_OUT"], "w", encoding="utf-8") as out:
        json.dump(notes, out)


def main() -> None:
    sys.meta_path.insert(0, _Finder())
    sys.argv = ["ckviz", *sys.argv[1:]]
    from ckviz.cli import run

    try:
        run()
    finally:  # sys.exit's SystemExit: what follows is the interpreter's exit
        _save(time.perf_counter())


if __name__ == "__main__":
    main()
