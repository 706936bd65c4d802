"""Every key of the app in one table (key, action, description, context): the app's and the
screens' bindings, the command palette's commands, the footer's keys and the help's list of
keys are all made from it, so they cannot drift apart (tests/tui/test_bindings.py).
"""

from __future__ import annotations

from textual.binding import Binding

from ckviz.tui.key import Key, Where

SPEED = Binding.Group("Speed", compact=True)

STEP_COUNTS = (10, 100, 1000)  # the palette's "step N dequeue rounds"

KEYS: tuple[Key, ...] = (
    Key("step", "space", "step", "Step", "app", "one dequeue round (`right` too)"),
    Key(
        "instant",
        "n",
        "instant",
        "Next",
        "app",
        "step to the next instant (until logical time moves)",
    ),
    Key("play", "p", "play", "Play", "app", "play / pause (one instant per tick)"),
    Key(
        "faster",
        "plus,equals_sign",
        "speed(1)",
        "Faster",
        "app",
        "`+` / `-`: play faster / slower",
        key_display="+",
        group=SPEED,
    ),
    Key("slower", "minus", "speed(-1)", "Slower", "app", key_display="-", group=SPEED),
    Key(
        "back",
        "left,b",
        "step_back",
        "Back a frame",
        "app",
        "step back one recorded frame (a frame is what one key press made: a round after "
        "`space`, a whole instant after `n`); stepping forward replays them first",
        key_display="←",
    ),
    Key(
        "filter",
        "slash",
        "filter",
        "Filter",
        "app",
        "filter keys by name in every pane: fuzzy as in fzf (`lt1` finds `light-1`; several "
        "words must all match), case-insensitive; the panes follow as you type, `enter` keeps "
        "the filter (shown above the footer), `esc` clears it. Ranks (ckIndex, the "
        "discipline's order, slot numbers) stay as they are; the light key and the "
        "longest-waiting key stay pinned on top only if they match",
        title="Filter keys…",
        key_display="/",
    ),
    Key(
        "unfilter",
        "escape",
        "clear_filter",
        "Clear filter",
        "app",
        "stops a run to the end or a long move (go to, run until served) where it is; else "
        "clears the filter; else shows every event again (after a key's story or `f`); else "
        "leaves a zoomed pane",
        key_display="esc",
    ),
    Key("forward", "right", "step", "Step", "app", show=False),
    Key(
        "restart",
        "r",
        "restart",
        "Restart",
        "app",
        "restart: close the cell (its keys are deleted) and open a fresh one",
        title="Restart",
    ),
    Key(
        "discipline",
        "d",
        "pick_discipline(0)",
        "Discipline",
        "screen",
        "pick the discipline (the left lane in compare mode)",
        title="Pick discipline",
    ),
    Key(
        "discipline_b",
        "D",
        "pick_discipline(1)",
        "Right lane",
        "screen",
        "pick the right lane's discipline in compare mode",
    ),
    Key(
        "scenario",
        "s",
        "pick_scenario",
        "Scenario",
        "screen",
        "pick a scenario",
        title="Pick scenario",
    ),
    Key(
        "seed",
        "e",
        "pick_seed",
        "Seed",
        "screen",
        "pick a seed (or type any seed)",
        title="Pick seed",
    ),
    Key(
        "compare",
        "c",
        "compare",
        "Compare",
        "app",
        "compare mode on / off",
        title="Compare mode on / off",
    ),
    Key(
        "theme",
        "t",
        "toggle_dark",
        "Theme",
        "app",
        "theme: dark, light, then projector (meeting mode: black on white, every text at least "
        "4.5:1 and every graphic 3:1 against its background, as WCAG 2.1 asks)",
        title="Next theme (projector: meeting mode)",
    ),
    Key(
        "export",
        "x",
        "export",
        "Export",
        "app",
        "export: an SVG screenshot, the run so far as a results file (`….json`, the schema "
        "`ckviz --headless` writes, its figures as a headless run of the same scenario, seed "
        "and discipline would give them; at the live moment) and as CSV (`…-events.csv`, "
        "every dequeue; `…-keys.csv`, per-key figures), in the current folder, named after "
        "scenario, discipline and round (step, in step scenarios)",
        title="Export screenshot and figures",
    ),
    Key(
        "to_end",
        "greater_than_sign",
        "run_to_end",
        "To end",
        "app",
        "run to the end (the app stays live; the status line gives the time, the runs out, "
        "the rate and an ETA, and the frames kept on the way are the scrubber's): `esc` or "
        "`>` again stops it where it is",
        title="Run to the end",
        key_display=">",
    ),
    Key(
        "go_to",
        "colon",
        "go_to",
        "Go to",
        "screen",
        "go to a time (ms), or a step in step scenarios: the first frame at or after it; a "
        "time before the one shown replays the recording (or starts over if it is older than "
        "the recording)",
        title="Go to a time or step…",
        key_display=":",
    ),
    Key(
        "until",
        "u",
        "run_until_served",
        "Until served",
        "screen",
        "run until a key is served: pick or type a key (fuzzy, it must match one key); rounds "
        "run until a run of it is dequeued, or the end (a notification says which); `esc` "
        "stops a long go-to or run-until where it is",
        title="Run until a key is served…",
    ),
    Key(
        "open",
        "ctrl+o",
        "open_scenario_file",
        "Open file",
        "screen",
        "open a scenario file by path (a `.toml`; a bad one is a one-line notification and the "
        "run goes on)",
        title="Open a scenario file…",
    ),
    Key(
        "zoom",
        "z",
        "zoom",
        "Zoom",
        "screen",
        "zoom the focused pane (the per-key table if none) to the whole screen; again (or "
        "`esc`, once no filter is in force) to go back",
    ),
    Key(
        "scrub_back",
        "left_square_bracket",
        "scrub(-1)",
        "Scrub back",
        "screen",
        "`[` / `]`: the timeline scrubber: a tenth of the recording back / forward (a click or a "
        "drag on the keys over time strip jumps to the moment under the pointer; before the "
        "recording, the run is replayed to it)",
        key_display="[",
    ),
    Key("scrub_on", "right_square_bracket", "scrub(1)", "Scrub on", "screen", key_display="]"),
    Key(
        "mark",
        "m",
        "mark",
        "Mark",
        "screen",
        "mark the moment shown (a bookmark; a note says which)",
        title="Mark this moment",
    ),
    Key(
        "to_mark",
        "apostrophe",
        "back_to_mark",
        "To mark",
        "screen",
        "back to the newest mark; again, the one before (round and round)",
        title="Back to a mark",
        key_display="'",
    ),
    Key(
        "why",
        "enter",
        "why",
        "Why",
        "screen",
        "why this pick: in the order (Discipline) pane or anywhere, every candidate the last "
        "call ranked, what its discipline ranked it by and what the dequeue made of it; which "
        "key won by which rule, which came second and why it lost (both lanes in compare "
        "mode); on a key's row, that key's story (below)",
        title="Why this pick",
    ),
    Key(
        "story",
        "",
        "key_story",
        "Story",
        "screen",
        "`enter` on a key's row of the ckIndex or per-key pane (focus it with `1` or `2`, "
        "then `j`/`k` or a click pick the row), or the palette's command and a key picked: "
        "that key's own story, each of its runs, when it arrived, when it was dequeued and by"
        " which consumer, its wait, and what ended it (ack, nack, dead letter, expiry; held: "
        "when it is due); the event log shows that key's events only until `esc`; in the "
        "story, `x` writes it as CSV in the current folder and `c` copies that CSV to the "
        "clipboard (OSC 52, where the terminal allows it). A live queue (`ckviz watch`) keeps"
        " no per-run history: its story says what is queued and held now",
        title="A key's story…",
    ),
    Key(
        "event_kinds",
        "f",
        "event_kinds",
        "Event kinds",
        "screen",
        "the event log: show one kind of event only (enqueue, dequeue, ack, nack, dead letter, "
        "expiry), read from the whole run; `esc` shows every event again",
        title="Filter events by kind…",
    ),
    Key(
        "sort",
        "o",
        "sort_keys",
        "Sort",
        "screen",
        "sort the per-key table: scenario order, queued, out, age, wait (largest first); the "
        "scenario's light key and the key waiting longest stay pinned on top. With more than "
        "100 keys the table holds the first 100 in that order (its title says `100 of N "
        "keys`), and ckIndex its first 100 entries (`… N more`)",
    ),
    Key(
        "sort_by",
        "O",
        "pick_sort",
        "Sort by…",
        "screen",
        "sort the per-key table by a column picked from a list (or click the column's header: "
        "`key` for the scenario's order)",
        title="Sort the per-key table by…",
    ),
    Key(
        "shares",
        "h",
        "shares",
        "Shares",
        "screen",
        "served share over time: each lane's dequeues per slice of logical time, split by key "
        "(the five keys served most, each in its colour, the rest as one band), and each one's "
        "share of the lane's dequeues beside its weight's share (both lanes in compare mode)",
        title="Served share over time",
    ),
    Key(
        "legend",
        "l",
        "legend",
        "Legend",
        "screen",
        "legend on / off: what the colours and glyphs of the panes mean",
        title="Legend on / off",
    ),
    *(
        Key(
            f"pane_{n}",
            str(n),
            f"focus_pane({n})",
            f"Pane {n}",
            "screen",
            show=False,
            help="`Tab` / `shift+Tab`, `1`-`6`: focus a pane (`6`: the keys over time strip); "
            "then `j`/`k`, `PgUp`/`PgDn`, `g`/`G` scroll it (in the ckIndex and per-key panes "
            "they move a row cursor, the view following it: `enter` tells that key's story)"
            if n == 1
            else "",
        )
        for n in range(1, 6)
    ),
    Key("pane_6", "6", "focus_pane(6)", "Pane 6", "single", show=False),
    Key(
        "waits",
        "w",
        "swap_waits",
        "Waits/CDF",
        "compare",
        "compare mode: below ~140 columns, swap the wait table and the wait CDF",
    ),
    Key(
        "help",
        "question_mark,f1",
        "help",
        "Help",
        "app",
        "this help",
        title="Help",
        key_display="?",
    ),
    Key(
        "quit",
        "q,ctrl+c",
        "quit",
        "Quit",
        "app",
        "quit (a run to the end stops first): every key ckviz wrote is deleted",
        key_display="q",
    ),
    *(
        Key(
            f"step_{n}", "", f"step_many({n})", f"Step {n}", "app", title=f"Step {n} dequeue rounds"
        )
        for n in STEP_COUNTS
    ),
)

BY_ID = {key.binding_id: key for key in KEYS}


def bindings(context: Where) -> list[Binding]:
    """The bindings of the app (`app` and `screen` keys) or of one mode's screen."""
    wanted: set[Where] = {"app", "screen"} if context == "app" else {context}
    return [key.binding() for key in KEYS if key.keys and key.context in wanted]


def palette_commands() -> list[Key]:
    """The palette's commands, in the table's order."""
    return [key for key in KEYS if key.title is not None]


def help_lines() -> list[str]:
    """The help's list of keys, one Markdown item per key (or per keys sharing a line)."""
    lines = []
    for key in KEYS:
        if not key.help:
            continue
        if key.help.startswith("`"):  # the line names its keys itself
            lines.append(f"- {key.help}")
        else:
            lines.append(f"- {key.shown_keys}: {key.help}")
    titles = ", ".join((key.title or "").removesuffix("…").lower() for key in palette_commands())
    lines.append(f"- `ctrl+p`: the command palette, every command by name: {titles}")
    return lines
