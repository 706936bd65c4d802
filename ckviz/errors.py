"""Exit codes and the errors that map to them: one line for the user, never a traceback."""

from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    """What `ckviz` returns to the shell."""

    OK = 0
    CHECK_FAILED = 1
    USAGE = 2
    REDIS = 3
    KEYS_LEFT = 4
    INTERRUPTED = 130


MAX_ECHO = 400  # characters of an error line; a 100 KB key name must not make a 100 KB line


def one_line(text: str, limit: int = MAX_ECHO) -> str:
    """A message as one printable line, whatever a file, key or seed put into it: control
    characters escaped, and cut to `limit` characters."""
    shown = "".join(c if c.isprintable() or c == " " else repr(c)[1:-1] for c in text)
    if len(shown) > limit:
        shown = f"{shown[:limit]}... ({len(shown) - limit} more characters)"
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
