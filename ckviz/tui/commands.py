"""ckviz's commands in the command palette (ctrl+p), made from the bindings table: each runs
its key's action, so the palette does the same thing as the key (and knows no app class)."""

from __future__ import annotations

from functools import partial

from textual.command import DiscoveryHit, Hit, Hits, Provider

from ckviz.tui.bindings import palette_commands


class CkvizCommands(Provider):
    """Every ckviz command by name, so nothing needs its key remembered."""

    async def discover(self) -> Hits:
        for key in palette_commands():
            assert key.title is not None
            run = partial(self.app.run_action, key.bound_action)
            yield DiscoveryHit(key.title, run, help=key.palette_help)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for key in palette_commands():
            assert key.title is not None
            if (score := matcher.match(key.title)) > 0:
                run = partial(self.app.run_action, key.bound_action)
                yield Hit(score, matcher.highlight(key.title), run, help=key.palette_help)
