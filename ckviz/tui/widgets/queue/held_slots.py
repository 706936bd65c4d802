"""The held slots pane: the env's slots, who holds each and until when; held counts per key."""

from __future__ import annotations

from collections import Counter

from rich.text import Text

from ckviz.model.names import natural_key
from ckviz.model.snapshot import Snapshot
from ckviz.tui.palette import KeyPalette
from ckviz.tui.text import BAR, DIM, fit, key_cell, key_width, ms
from ckviz.tui.widgets.pane import Rows, SnapshotPane, new_text


def run_label(key: str, run_id: str) -> str:
    """A run id without its key (the key column already says it): `heavy~0#12` -> `~0#12`."""
    return run_id[len(key) :] if run_id.startswith(key) and len(run_id) > len(key) else run_id


class HeldSlotsPane(SnapshotPane):
    """env_limit slots, soonest release first."""

    TITLE = "Held slots"

    def layout_rows(self, snapshot: Snapshot, palette: KeyPalette, width: int) -> Rows:
        counts = self._counts(snapshot, palette, width)
        if self.compact:
            return Rows([self._slot_strip(snapshot, palette, width), counts[0]])
        title = f"{len(snapshot.held)}/{snapshot.env_limit} held"
        if any(run.release_ms is not None for run in snapshot.held):  # a column's heading
            title += f" · release in {'ms' if snapshot.time_unit == 'ms' else 'steps'}"
        keys = key_width(snapshot, width - 11)
        taken = {event.run_id for event in snapshot.taken}
        # `/`: only the slots held by matching keys (free slots are nobody's), numbered as before
        slots = self._matching_slots(snapshot)
        if slots is not None:
            title = f"/{self.key_filter.query}: {len(slots)} of " + title

        def draw(row: int) -> Text:
            slot = row if slots is None else slots[row]
            if slot >= len(snapshot.held):
                return new_text().append(f"{slot + 1:>3} ").append("· free", DIM)
            run = snapshot.held[slot]
            # ▶: taken this step (the same runs the event log and "this step" name)
            out = new_text().append(
                f"{'▶' if run.run_id in taken else ''}{slot + 1}".rjust(3) + " "
            )
            key_cell(out, run.key, palette, keys)
            release = None if run.release_ms is None else run.release_ms - snapshot.t
            out.append(f" {ms(release, snapshot.time_unit):>6} ")
            return out.append(run_label(run.key, run.run_id), DIM)  # cut at the edge if narrow

        count = snapshot.env_limit if slots is None else len(slots)
        return Rows([new_text().append(fit(title, width), DIM)], count, draw, counts)

    def _matching_slots(self, snapshot: Snapshot) -> list[int] | None:
        """The held slots whose key matches the filter (None: no filter, every slot)."""
        if not self.key_filter:
            return None
        return [n for n, run in enumerate(snapshot.held) if self.key_filter.matches(run.key)]

    def _slot_strip(self, snapshot: Snapshot, palette: KeyPalette, width: int) -> Text:
        out = new_text().append("held ", DIM)
        if snapshot.env_limit > max(4, width - 5):
            return out.append(f"{len(snapshot.held)}/{snapshot.env_limit}")
        for run in snapshot.held:  # a key the filter hides: a dim cell, so the count still reads
            shown = self.key_filter.matches(run.key)
            out.append(BAR if shown else "▪", palette.style(run.key) if shown else DIM)
        return out.append("·" * snapshot.free_slots, DIM)

    def _counts(self, snapshot: Snapshot, palette: KeyPalette, width: int) -> list[Text]:
        """Held runs per key, most first, then the free slots; wrapped (one line if compact)."""
        counts = Counter(run.key for run in snapshot.held if self.key_filter.matches(run.key))
        lines = [new_text()]
        for key, count in sorted(counts.items(), key=lambda kv: (-kv[1], natural_key(kv[0]))):
            item = f"{key} {count}  "
            if lines[-1].cell_len + len(item) > width and lines[-1].plain and not self.compact:
                lines.append(new_text())
            lines[-1].append(key, palette.style(key)).append(f" {count}  ")
        lines[-1].append(f"free {snapshot.free_slots}", DIM)
        return lines
