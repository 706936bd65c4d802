"""The watch's status line: the queue, its discipline, the read's server time and what the
refresh cost the server (with the backoff when over budget), and what the watch is doing (live,
paused, replaying a kept refresh), with a mark when the picture may be torn."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from rich.text import Text
from textual.widgets import Static

from ckviz.player.frames import Frame
from ckviz.player.live_source import Reading
from ckviz.tui.text import BOLD, DIM, Part, fitted

TORN = "⚠ may be torn"


@dataclass(frozen=True, slots=True)
class WatchControls:
    """What the watch is doing, for the status line."""

    live: bool = True  # refreshing (else paused)
    replay: tuple[int, int] | None = None  # (shown, kept) refreshes while stepping back
    error: str | None = None
    reading: bool = False  # a refresh is in flight


def clock(ms: float) -> str:
    """A server time (ms since the epoch) as `17:02:03.456 UTC`."""
    moment = dt.datetime.fromtimestamp(ms / 1000, dt.UTC)
    return moment.strftime("%H:%M:%S.") + f"{moment.microsecond // 1000:03d} UTC"


def where(reading: Reading) -> list[Part]:
    """The queue, its discipline, the read's time, its size and its held slots."""
    picture = reading.picture
    limits = picture.limits
    queue_limit = "" if limits.queue_limit is None else f"/{limits.queue_limit}"
    parts = [
        Part(0, Text(f" {reading.title}", BOLD)),
        Part(0, Text.assemble((" · ", DIM), (picture.discipline, BOLD))),
        Part(0, Text.assemble((" · read ", DIM), clock(picture.read_at_ms))),
        Part(2, Text(f" · refresh {reading.number}", DIM)),
        Part(1, Text.assemble((" · ", DIM), str(picture.index_total), (" keys", DIM))),
        Part(3, Text.assemble((" · env ", DIM), f"{picture.env_held}/{limits.env_capacity}")),
        Part(4, Text.assemble((" · queue ", DIM), f"{picture.queue_held}{queue_limit}")),
    ]
    if picture.empty:
        parts.append(Part(0, Text(" · nothing queued (drained, or its keys are gone)", BOLD)))
    return parts


def doing(reading: Reading, controls: WatchControls) -> list[Part]:
    """Live or paused, the refresh's cost and backoff, and whether the picture may be torn."""
    if controls.error is not None:
        return [Part(0, Text(f" ✖ {controls.error}", BOLD)), Part(1, Text("  (r retries)", DIM))]
    watched, picture = reading.watched, reading.picture
    now = Text(f" ▶ live, every {reading.next_wait_s:g}s", BOLD)
    if not controls.live:
        now = Text(" paused (space resumes)", DIM)
    if controls.replay is not None:
        shown, kept = controls.replay
        now.append(f" │ refresh {shown} of {kept} kept", BOLD)
    if controls.reading:
        now.append(" │ ⋯ reading", DIM)
    cost = picture.cost
    spent = Text.assemble(
        ("  │ cost ", DIM),
        f"{cost.server_us / 1000:.2f} ms",
        (" server" + ("" if cost.exact else " (est.)"), DIM),
        (f", {cost.round_trips} trips", DIM),
    )
    parts = [Part(0, now), Part(2, spent)]
    if reading.backed_off:
        wait = f" · backed off to {reading.next_wait_s:g}s (over {watched.budget_ms:g} ms)"
        parts.append(Part(1, Text(wait, BOLD)))
    if picture.torn:
        parts.append(Part(0, Text(f"  {TORN}", BOLD)))
        parts.append(Part(3, Text(f": {picture.torn[0]}", DIM)))
    return parts


class WatchStatus(Static):
    """Two lines at the top of the watch, each fitted to the width by priority."""

    _shown: tuple[Frame, WatchControls] | None = None

    def show(self, frame: Frame, controls: WatchControls) -> None:
        self._shown = (frame, controls)
        self.set_class(controls.error is not None, "-error")
        self.text = self.render_frame(frame, controls, self.size.width or None)
        self.update(self.text, layout=False)

    def show_error(self, error: str) -> None:
        self._shown = None
        self.set_class(True, "-error")
        self.text = Text.assemble((f" ✖ {error}", BOLD), ("  (r retries, q quits)", DIM))
        self.update(self.text, layout=False)

    def on_resize(self) -> None:
        if self._shown is not None:
            self.show(*self._shown)

    @staticmethod
    def render_frame(frame: Frame, controls: WatchControls, width: int | None = None) -> Text:
        reading = frame.setup
        out = Text(no_wrap=True, overflow="ellipsis", end="")
        if not isinstance(reading, Reading):  # a frame no live source made: its title only
            return out.append(f" {reading.title}", BOLD)
        top, bottom = where(reading), doing(reading, controls)
        return out.append_text(fitted(top, width)).append("\n").append_text(fitted(bottom, width))
