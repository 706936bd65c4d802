"""Exit codes and the errors that map to them: one line for the user, never a traceback."""

from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    """What `ckviz` returns to the shell."""

    OK = 0
    CHECK_FAILED = 1
    USAGE = 2
    REDIS = 3
    INTERRUPTED = 130


class CkvizError(Exception):
    """A failure the user can act on; its message is one line."""

    exit_code: ExitCode = ExitCode.USAGE


class UsageError(CkvizError):
    """Bad flag, unknown scenario/discipline/seed, or an invalid scenario file."""

    exit_code = ExitCode.USAGE


class RedisUnavailable(CkvizError):
    """No server to talk to: unreachable URL, missing binary, Docker absent, server gone."""

    exit_code = ExitCode.REDIS


class InvariantViolation(CkvizError):
    """The queue broke a rule every step must keep (a run lost, a limit exceeded...)."""

    exit_code = ExitCode.CHECK_FAILED


class IncompleteRun(CkvizError):
    """A run ended with runs still undequeued."""

    exit_code = ExitCode.CHECK_FAILED
