"""A picture as plain text lines (`watch --once` without --json): the queue, its size and
limits, a screenful of variants, the next order with why, the read's time and cost."""

from __future__ import annotations

from datetime import UTC, datetime

from ckviz.errors import echo
from ckviz.live.order import span
from ckviz.live.picture import LivePicture
from ckviz.model.decision import shown


def picture_lines(picture: LivePicture) -> list[str]:
    p, limits = picture, picture.limits
    read_at = datetime.fromtimestamp(p.read_at_ms / 1000, UTC).isoformat(timespec="milliseconds")
    lines = [
        echo(p.queue.shown, limit=200),
        f"read at {read_at} (server time, {p.span_ms:g} ms across "
        f"{p.cost.round_trips} round trips); "
        f"cost {p.cost.server_us:g} us of server time{_how(p)}",
        f"{p.discipline}: {p.index_total} keys queued; env holds {p.env_held} of "
        f"{limits.env_capacity}, the queue {p.queue_held}; a key may hold {limits.variant_limit}",
        f"{p.discipline} because {p.discipline_from}",
    ]
    lines += [f"assumed: {a}" for a in limits.assumed]
    if p.vtime is not None:
        floor = "unset" if p.vtime.floor is None else shown(p.vtime.floor)
        lines.append(
            f"vtime: floor {floor}, {p.vtime.tags_total} tags, {p.vtime.idle_total} parked"
        )
    if p.empty:
        lines.append("the queue is empty: drained, or its keys were deleted")
    for row in p.variants:
        age = _age(row.head_age_ms)
        tag = "" if row.tag is None else f", tag {shown(row.tag)}"
        lines.append(echo(f"  {row.key}: {row.depth} queued, {row.held} held{age}{tag}", 200))
    if p.order_note:
        lines.append(f"next: {p.order_note}")
    for n, pick in enumerate(p.next_order, 1):
        run = f" {pick.run_id}" if pick.run_id else ""
        lines.append(echo(f"next {n}. {pick.key}{run}: {pick.fate}: {pick.why}", 300))
    lines += [f"torn: {note}" for note in p.torn]
    return lines


def _how(p: LivePicture) -> str:
    """How the cost was had: measured alone, measured among others' calls, or priced."""
    if not p.cost.measured:
        return f" (priced at the cost per command measured {p.cost.measured_ago} refreshes ago)"
    if p.cost.others_calls:
        return f" (estimated: {p.cost.others_calls} others' calls meanwhile)"
    return ""


def _age(ms: float | None) -> str:
    if ms is None:
        return ""
    return f", head due in {span(-ms)}" if ms < 0 else f", head waited {span(ms)}"
