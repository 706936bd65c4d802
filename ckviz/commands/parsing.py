"""argparse as ckviz's commands use it: a mistake is one line naming the command, a flag is
never abbreviated (`--headles` is a typo, not `--headless`), and a mistyped flag is told the
flag it was probably meant to be."""

from __future__ import annotations

import argparse
from collections.abc import Iterable
from typing import Any, NoReturn

from ckviz.errors import UsageError, echo

UNRECOGNIZED = "unrecognized arguments: "


class CommandParser(argparse.ArgumentParser):
    """A parser whose errors are one UsageError line, prefixed with the subcommand its `prog`
    names (`ckviz hunt` -> `hunt: ...`), and which takes only whole flags."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs["allow_abbrev"] = False
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        sub = self.prog.removeprefix("ckviz").strip()
        message = message + self._did_you_mean(message)
        raise UsageError(f"{sub}: {message}" if sub else message)

    def _did_you_mean(self, message: str) -> str:
        if not message.startswith(UNRECOGNIZED):
            return ""
        for word in message.removeprefix(UNRECOGNIZED).split():
            if word.startswith("-"):
                near = closest(word.split("=", 1)[0], self._option_string_actions)
                if near:
                    return f" (did you mean {near}?)"
        return ""


def closest(word: str, choices: Iterable[str]) -> str | None:
    """The choice `word` most likely misspells, if any is close enough."""
    import difflib  # only a mistake needs it

    found = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.75)
    return found[0] if found else None


def did_you_mean(word: str, choices: Iterable[str], what: str) -> str:
    """`unknown <what> 'word'`, with the closest choice when there is one."""
    near = closest(word, choices)
    return f"unknown {what} '{echo(word)}'" + (f" (did you mean '{near}'?)" if near else "")


def add_quiet(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("-q", "--quiet", action="store_true", help="print only errors and warnings")
