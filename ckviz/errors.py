"""Exit codes and the errors that map to them: one line for the user, never a traceback."""

from __future__ import annotations

import re
from enum import IntEnum


class ExitCode(IntEnum):
    """What `ckviz` returns to the shell."""

    OK = 0
    CHECK_FAILED = 1
    USAGE = 2
    REDIS = 3
    KEYS_LEFT = 4
    INTERRUPTED = 130
    OUTPUT_CLOSED = 141  # stdout or stderr's reader went away (128 + SIGPIPE, as shells say)


MAX_LINE = 1000  # characters of an error line; a 100 KB key name must not make a 100 KB line
MAX_ECHO = 80  # characters of a user's value quoted inside a message
# a file's path quoted in full up to this (temp folders alone run past 80 characters)
MAX_PATH_ECHO = 400


def has_control_characters(text: str) -> bool:
    """C0, DEL or C1 characters: they would move the cursor or recolour the terminal."""
    return any(ord(c) < 32 or 127 <= ord(c) < 160 for c in text)


def echo_path(value: str) -> str:
    """A path as it may be quoted: whole unless it is past MAX_PATH_ECHO characters."""
    return echo(value, MAX_PATH_ECHO)


def echo(value: str, limit: int = MAX_ECHO) -> str:
    """A user's value as it may be quoted: control characters escaped, cut to `limit`."""
    shown = "".join(c if c.isprintable() or c == " " else repr(c)[1:-1] for c in value)
    if len(shown) > limit:
        shown = f"{shown[:limit]}... (+{len(shown) - limit} characters)"
    return shown


# Passwords of the URLs this process was given: never printed, whatever message carries them
# (a server's or a library's words included). Filled by the commands as they read a URL.
_SECRETS: set[str] = set()


def keep_secret(*secrets: str) -> None:
    _SECRETS.update(s for s in secrets if s)


def hide_secrets(text: str) -> str:
    for secret in sorted(_SECRETS, key=len, reverse=True):
        text = text.replace(secret, "***")
    return text


_LONG = f"{{{MAX_ECHO + 1},}}"  # a regex repeat: more than MAX_ECHO characters
_QUOTED = re.compile(f"'([^']{_LONG})'|\"([^\"]{_LONG})\"")


def cut_quoted(text: str, limit: int = MAX_ECHO) -> str:
    """Every quoted value in `text` ('...' or "...") cut to `limit` characters, as echo()
    cuts one: a message built from reprs of long keys or run ids stays readable."""

    def cut(match: re.Match[str]) -> str:
        quote = match.group(0)[0]
        value = match.group(1) if match.group(1) is not None else match.group(2)
        return f"{quote}{value[:limit]}{quote}... (+{len(value) - limit} characters)"

    return _QUOTED.sub(cut, text)


def one_line(text: str, limit: int = MAX_LINE) -> str:
    """A message as one printable line: passwords hidden, escaped, and past `limit` its middle
    cut out (the end usually holds the reason)."""
    text = hide_secrets(text)
    shown = echo(text, limit=len(text) * 10 + 1)  # escaped, not cut
    if len(shown) > limit:
        cut = len(shown) - limit
        shown = f"{shown[: limit * 2 // 3]} ...({cut} characters cut)... {shown[-limit // 3 :]}"
    return shown


class CkvizError(Exception):
    """A failure the user can act on; its message is one line."""

    exit_code: ExitCode = ExitCode.USAGE


class UsageError(CkvizError):
    """Bad flag, unknown scenario/discipline/seed, or an invalid scenario file."""

    exit_code = ExitCode.USAGE


class RedisUnavailable(CkvizError):
    """No server to talk to: unreachable URL, missing binary, Docker absent, server gone."""

    exit_code = ExitCode.REDIS


class ServerRefused(RedisUnavailable):
    """The server answers but will not let ckviz work: ACL, OOM, a replica, a cluster,
    eviction risk. Its own policy, not a broken rule: exit 3 with the cause."""


class KeysLeft(CkvizError):
    """ckviz could not delete every key it wrote (the server refused or went away)."""

    exit_code = ExitCode.KEYS_LEFT


class InvariantViolation(CkvizError):
    """The queue broke a rule every step must keep (a run lost, a limit exceeded...)."""

    exit_code = ExitCode.CHECK_FAILED


class IncompleteRun(CkvizError):
    """A run ended with runs still undequeued."""

    exit_code = ExitCode.CHECK_FAILED


def first_line(exc: BaseException) -> str:
    """The reason an exception gives, as one line: its first line, or its type's name."""
    lines = str(exc).strip().splitlines()
    return lines[0] if lines else type(exc).__name__
