"""A key's own story: each of its runs (arrival, dequeue, by whom, wait, what ended it) in each
lane on show; `x` writes it as CSV here, `c` copies that CSV to the clipboard (OSC 52, where
the terminal allows it). The story itself is ckviz.player.story's."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from ckviz.errors import CkvizError
from ckviz.player.story import KeyStory, RunStory, story_csv, story_stem, write_story
from ckviz.tui.palette import KeyPalette
from ckviz.tui.text import BOLD, DIM, fit, ms

SHOWN_RUNS = 500  # runs drawn per lane (the newest); the CSV has every one


class StoryScreen(ModalScreen[None]):
    """One key's runs, lane by lane; esc (or enter) closes."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,enter,q", "close", "Close", id="story.close"),
        Binding("x", "export", "CSV here", id="story.export"),
        Binding("c", "copy", "Copy CSV", id="story.copy"),
    ]

    def __init__(self, title: str, stories: Sequence[KeyStory], palette: KeyPalette) -> None:
        super().__init__()
        self.title_of_run = title  # the scenario (or the queue watched), for the file's name
        self.stories = tuple(stories)
        self.palette = palette

    def compose(self) -> ComposeResult:
        key = self.stories[0].key
        with VerticalScroll(id="story") as box:
            box.border_title = f"{key}'s story · x CSV · c copy · esc closes"
            text = Text()
            for n, story in enumerate(self.stories):
                if n:
                    text.append("\n\n")
                text.append_text(Text("\n").join(story_lines(story, self.palette)))
            yield Static(text, id="story-text")

    def action_close(self) -> None:
        self.dismiss(None)

    def action_export(self) -> None:
        stem = story_stem(self.title_of_run, self.stories)
        try:
            path = write_story(self.stories, Path.cwd(), stem)
        except CkvizError as exc:  # the writer's line names the path and the reason
            self.notify(f"export failed: {exc}", severity="error", markup=False)
            return
        self.notify(f"wrote {path.name} in {path.parent}", title="story", markup=False)

    def action_copy(self) -> None:
        text = story_csv(self.stories)
        self.app.copy_to_clipboard(text)
        rows = sum(len(story.runs) for story in self.stories)
        self.notify(
            f"copied {rows} runs as CSV (OSC 52: where the terminal allows it)",
            title="story",
            markup=False,
        )


COLUMNS = (("run", 14), ("try", 4), ("arrived", 9), ("dequeued", 9), ("wait", 8))
ENDING = (("by", 12), ("end", 12), ("at", 9), ("by", 12))


def story_lines(story: KeyStory, palette: KeyPalette) -> list[Text]:
    """A lane's story: what it is, a header, then a line per run (the newest SHOWN_RUNS)."""
    unit = story.unit
    when = f"step {story.t}" if unit == "step" else f"t={story.t}ms"
    waits = [run.wait for run in story.runs if run.wait is not None]
    mean = sum(waits) / len(waits) if waits else None
    head = Text()
    head.append(story.key, palette.style(story.key, bold=True))
    head.append(f" · {story.discipline} · at {when}: ", BOLD)
    head.append(
        f"{len(story.runs)} runs, {story.served} served, mean wait {ms(mean, unit)}, "
        f"{story.queued_now} queued and {story.held_now} held now"
    )
    lines = [head]
    if story.unknown:
        lines.append(Text(story.unknown, DIM))
    header = Text("".join(fit(label, w) for label, w in COLUMNS + ENDING), DIM)
    lines.append(header)
    runs = story.runs[-SHOWN_RUNS:]
    if len(story.runs) > len(runs):
        lines.append(Text(f"… {len(story.runs) - len(runs)} earlier runs (x writes all)", DIM))
    lines += [run_line(run, unit, palette, story.key) for run in runs]
    if not story.runs:
        lines.append(Text("(no run of this key yet)", DIM))
    return lines


def run_line(run: RunStory, unit: str, palette: KeyPalette, key: str) -> Text:
    out = Text()
    out.append(fit(run.run_id, 14), palette.style(key))
    cells = (str(run.attempt), time(run.arrived, unit), time(run.dequeued, unit))
    for (_, w), cell in zip(COLUMNS[1:4], cells, strict=True):
        out.append(fit(cell, w))
    out.append(fit(ms(run.wait, unit), 8))
    out.append(fit(run.by or "", 12), DIM)
    out.append(fit(run.end, 12), BOLD if run.end in ("dead letter", "expired") else None)
    out.append(fit(time(run.ended, unit), 9))
    out.append(fit(run.ended_by or "", 12), DIM)
    return out


def time(value: int | None, unit: str) -> str:
    """A moment of the run: `840` (ms) or a step, `-` when unknown."""
    return "-" if value is None else str(value)
