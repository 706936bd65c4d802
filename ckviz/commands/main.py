"""`ckviz`: the first word picks the parser (a subcommand's, else the root's: the app or
--headless); every failure the user can act on ends here as one line and an exit code."""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from ckviz.commands.catalog import SUBCOMMANDS
from ckviz.commands.loading import loading
from ckviz.commands.parsing import closest
from ckviz.errors import CkvizError, ExitCode, UsageError, echo, one_line
from ckviz.outputs.interrupts import INTERRUPTS
from ckviz.outputs.streams import gone, guarded_streams


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    INTERRUPTS.reset()
    INTERRUPTS.install()  # SIGINT, SIGTERM, SIGHUP: one stop request, however delivered
    unusable = unwritable_streams()
    if unusable:
        return unusable
    with guarded_streams():  # a closed terminal or pipe never costs the results
        code = _command(args)
    return closed_output_code(code)


def closed_output_code(code: int) -> int:
    """A run that went well but whose stdout or stderr reader went away says so: 141, what a
    shell reports for a writer stopped by a closed pipe. A failing run keeps its own code."""
    if code == ExitCode.OK and gone():
        return int(ExitCode.OUTPUT_CLOSED)
    return code


def _command(args: list[str]) -> int:
    try:
        return dispatch(args)
    except CkvizError as exc:
        print(f"ckviz: error: {one_line(str(exc))}", file=sys.stderr)
        return int(exc.exit_code)
    except KeyboardInterrupt:
        print("ckviz: interrupted", file=sys.stderr)
        return int(ExitCode.INTERRUPTED)


def dispatch(args: list[str]) -> int:
    first = args[0] if args else ""
    with loading():
        from ckviz.inputs.scenario_files import TRACE_PATHS

        TRACE_PATHS.outside = False  # until a command's flag says otherwise
        if first in SUBCOMMANDS:
            module = importlib.import_module(SUBCOMMANDS[first].module)
        else:
            refuse_mistyped_subcommand(first)
            from ckviz.commands.root import build_parser, run

            parser = build_parser()
            ns = parser.parse_args(args)
    if first in SUBCOMMANDS:
        code: int = module.main(args[1:])
        return code
    return run(ns, parser)


def refuse_mistyped_subcommand(word: str) -> None:
    """`ckviz reprot r.json` is a typo of `report`, not a scenario named 'reprot'."""
    if not word or word.startswith("-") or Path(word).exists():
        return
    near = closest(word, SUBCOMMANDS)
    if near is None:
        return
    from ckviz.inputs.scenario_files import bundled_names

    if word not in bundled_names():
        raise UsageError(
            f"unknown command '{echo(word)}' (did you mean 'ckviz {near}'?); commands: "
            f"{', '.join(SUBCOMMANDS)}, or a scenario for the app"
        )


def unwritable_streams() -> int:
    """Exit 2 with one line if stdout or stderr cannot be written (e.g. /dev/full), before
    any work whose report would be lost; 0 if both are fine. A zero-byte write surfaces it."""
    broken = []
    for name, fd in (("stdout", 1), ("stderr", 2)):
        try:
            os.write(fd, b"")
        except OSError as exc:
            broken.append(f"{name} ({exc.strerror})")
            _silence(fd)
    if not broken:
        return 0
    print(f"ckviz: error: cannot write to {' or '.join(broken)}", file=sys.stderr)
    return int(ExitCode.USAGE)


def _silence(fd: int) -> None:
    """Point a broken stream at /dev/null, so the interpreter's last flush cannot fail."""
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, fd)
    os.close(null)
