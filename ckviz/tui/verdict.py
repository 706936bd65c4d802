"""Compare mode's verdict banner: which lane leads and by how much, in one line, from the
demand-aware fairness (ckviz.fairness: each lane's most under-served key's fair-share
attainment, the dequeues it got over those it was owed). Textual-free.

The two lanes are one run each, one sample, with no interval while they run: the banner names
a lead of at least the minimum effect the report uses (ckviz.fairness_intervals), never a
claim that one lane is fairer (docs/fairness.md, What a claim means)."""

from __future__ import annotations

from rich.text import Text

from ckviz.fairness_intervals import MIN_EFFECT
from ckviz.player.frames import Frame
from ckviz.tui.palette import KeyPalette
from ckviz.tui.text import BOLD, DIM


def verdict_line(frame: Frame, palette: KeyPalette, width: int = 200) -> Text:
    """`▶ sfq leads (one sample): its most under-served key gets 92% of its fair share,
    baseline's light-3 19% (4.8x)`; `too early` until both lanes have judged a key. Longer
    than `width` cells, the short words (80 columns hold them)."""
    line = _verdict(frame, palette, short=False).append_text(_tenants(frame, palette, False))
    if line.cell_len <= width:
        return line
    return _verdict(frame, palette, short=True).append_text(_tenants(frame, palette, True))


def leader(a: float, b: float) -> int | None:
    """The lane that leads by at least the report's minimum effect (0 or 1), or None."""
    return None if abs(a - b) < MIN_EFFECT else (0 if a > b else 1)


def _tenants(frame: Frame, palette: KeyPalette, short: bool) -> Text:
    """Where keys belong to tenants, the same words at the tenant grain by the same rule (as
    the report's verdict adds them): `; at the tenant grain, sfq leads (one sample): its most
    under-served tenant gets 95% of its fair share, baseline's honest 12%`."""
    out = Text(no_wrap=True, overflow="ellipsis", end="")
    got = [t for f in frame.fairness[:2] if (t := f.tenant) is not None]
    if len(got) < 2 or len(frame.snapshots) < 2:
        return out
    names = [s.discipline for s in frame.snapshots[:2]]
    pair = (got[0][1], got[1][1])
    out.append("; tenants: " if short else "; at the tenant grain, ", DIM)
    best = leader(*pair)
    if best is None:
        return out.append(f"no difference shown ({percent(min(pair))}+)", BOLD)
    worse = 1 - best
    out.append(names[best], palette.lane(best))
    out.append(" leads" if short else " leads (one sample)", BOLD)
    out.append(" " if short else ": its most under-served tenant gets ", DIM)
    out.append(percent(pair[best]), palette.verdict(pair[best]))
    out.append(" vs " if short else " of its fair share, ", DIM)
    out.append(f"{names[worse]}'s {got[worse][0]} ", palette.lane(worse))
    return out.append(percent(pair[worse]), palette.verdict(pair[worse]))


def _verdict(frame: Frame, palette: KeyPalette, short: bool) -> Text:
    out = Text(no_wrap=True, overflow="ellipsis", end="").append("" if short else "verdict: ", DIM)
    snaps, fairness = frame.snapshots, frame.fairness
    if len(snaps) < 2:
        return out.append("one lane: nothing to compare", DIM)
    names = [s.discipline for s in snaps[:2]]
    got = [f.attainment for f in fairness[:2]]
    if got[0] is None or got[1] is None:
        return out.append("too early, no key owed 3 dequeues yet in both lanes", DIM)
    a, b = got[0], got[1]
    pair = (a, b)
    best = leader(a, b)
    if best is None:
        out.append(f"{names[0]} and {names[1]}: no difference shown", BOLD)
        each = "worst keys get" if short else "each lane's most under-served key gets"
        return out.append(f": {each} {percent(min(a, b))}+ of their fair share", DIM)
    worse = 1 - best
    out.append("▶ ", palette.lane(best)).append(names[best], palette.lane(best))
    out.append(" leads" if short else " leads (one sample)", BOLD)
    out.append(": worst key " if short else ": its most under-served key gets ", DIM)
    out.append(percent(pair[best]), palette.verdict(pair[best]))
    out.append(" of its share vs " if short else " of its fair share, ", DIM)
    out.append(f"{names[worse]}'s ", palette.lane(worse))
    worst_key = fairness[worse].underserved
    if worst_key is not None:
        out.append(worst_key, palette.style(worst_key)).append(" ")
    out.append(percent(pair[worse]), palette.verdict(pair[worse]))
    times = pair[best] / pair[worse] if pair[worse] > 0 else None
    return out.append(f" ({times:.1f}x)" if times is not None else " (got none)", BOLD)


def percent(attainment: float) -> str:
    return f"{attainment:.0%}"
