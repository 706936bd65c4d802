"""The held slots pane: the env's slots, who holds each and until when; held counts per key."""

from __future__ import annotations

from collections import Counter

from rich.text import Text

from ckviz.model.snapshot import Snapshot
from ckviz.tui.palette import KeyPalette
from ckviz.tui.text import BAR, DIM, fit, key_cell, ms
from ckviz.tui.widgets.pane import SnapshotPane, new_text

MAX_SLOT_ROWS = 200


def run_label(key: str, run_id: str) -> str:
    """A run id without its key (the key column already says it): `heavy~0#12` -> `~0#12`."""
    return run_id[len(key) :] if run_id.startswith(key) and len(run_id) > len(key) else run_id


class HeldSlotsPane(SnapshotPane):
    """env_limit slots, soonest release first."""

    TITLE = "Held slots"

    def render_shown(self, snapshot: Snapshot, palette: KeyPalette, width: int) -> Text:
        out = new_text()
        if self.compact:
            self._slot_strip(out, snapshot, palette, width)
        else:
            self._slot_rows(out, snapshot, palette, width)
        out.append("\n")
        self._counts(out, snapshot, palette)
        return out

    @staticmethod
    def _slot_rows(out: Text, snapshot: Snapshot, palette: KeyPalette, width: int) -> None:
        out.append(fit(f"{len(snapshot.held)}/{snapshot.env_limit} held · release in", width), DIM)
        key_width = max(5, min(12, width - 22))
        shown = min(snapshot.env_limit, MAX_SLOT_ROWS)
        for slot in range(shown):
            out.append(f"\n{slot + 1:>3} ")
            if slot < len(snapshot.held):
                run = snapshot.held[slot]
                key_cell(out, run.key, palette, key_width)
                out.append(f" {ms(run.release_ms - snapshot.t):>6} ")
                out.append(fit(run_label(run.key, run.run_id), width - key_width - 12), DIM)
            else:
                out.append("· free", DIM)
        if snapshot.env_limit > shown:
            out.append(f"\n    … {snapshot.env_limit - shown} more slots", DIM)

    @staticmethod
    def _slot_strip(out: Text, snapshot: Snapshot, palette: KeyPalette, width: int) -> None:
        out.append("held ", DIM)
        room = max(4, width - 5)
        if snapshot.env_limit > room:
            out.append(f"{len(snapshot.held)}/{snapshot.env_limit}")
            return
        for run in snapshot.held:
            out.append(BAR, palette.style(run.key))
        out.append("·" * snapshot.free_slots, DIM)

    @staticmethod
    def _counts(out: Text, snapshot: Snapshot, palette: KeyPalette) -> None:
        counts = Counter(run.key for run in snapshot.held)
        for key, count in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
            out.append(key, palette.style(key))
            out.append(f" {count}  ")
        out.append(f"free {snapshot.free_slots}", DIM)
