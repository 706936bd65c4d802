"""The subcommands, in the order `ckviz --help` lists them. Each is a module of this package
with `build_parser()` and `main(argv)`, imported only when its name is the first word.

The root command (`ckviz [SCENARIO]`, the app, and `ckviz --headless`) is not here: it takes
a scenario where these take a name, so the first word decides which parser reads the rest.
A new subcommand is one module and one line below."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Subcommand:
    name: str
    usage: str  # what follows the name, as --help's list shows it
    summary: str

    @property
    def module(self) -> str:
        return f"ckviz.commands.{self.name}"


SUBCOMMANDS = {
    c.name: c
    for c in (
        Subcommand("validate", "FILE...", "check scenario, trace and matrix files"),
        Subcommand("report", "RESULTS.json...", "figures and findings as HTML or Markdown"),
        Subcommand("check", "RESULTS.json...", "a results file's [[expect]] rules, after the fact"),
        Subcommand("merge", "PART.json... --out ALL.json", "join the shards of a matrix"),
        Subcommand("hunt", "--discipline NAME", "search for the workload that starves a key"),
        Subcommand("stress", "[SCENARIO]", "real concurrency against one server"),
        Subcommand("serve", "[SCENARIO] [--port N]", "the app in a browser, for a room to watch"),
        Subcommand("replay", "SESSION.cast [--speed X]", "play back a session saved with --record"),
        Subcommand("watch", "--redis-url URL [--queue TEXT]", "a live run queue, read-only"),
        Subcommand(
            "capture",
            "--redis-url URL --queue Q --seconds N --out T",
            "record a live queue as a trace",
        ),
        Subcommand(
            "whatif",
            "--redis-url URL --queue Q [--headless]",
            "a live queue's state forked: every discipline runs on from it",
        ),
    )
}
