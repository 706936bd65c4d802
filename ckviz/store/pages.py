"""Reads in pages: a read-only script asked about many keys goes out as several calls of at
most READ_PAGE keys each, one after the other in the same trip, and their replies are joined
into the one reply the caller asked for.

A script call blocks the whole server while it runs, so every cell sharing it waits. A check
reads what its trip touched, and a trip can touch every key (100,000 light keys enqueue their
first run in the same instant): as one call that read would hold the server for seconds under
load, long enough for another cell's client to time out. As pages, it is four hundred calls of
about a millisecond each (a page of 1,000 keys took 4-5 ms of the server's own time at 100,000
keys), and the other cells' commands run between them. Nothing else writes to a
cell's namespace in between, so the pages read the state one call would have.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ckviz.model.arithmetic import HELD_SUFFIX
from ckviz.store.keys import MASTER_MEMBER

READ_PAGE = 250  # keys per read call: about a millisecond of server time each

Join = Callable[[Sequence[Any]], Any]  # the raw replies of a read's pages -> one raw reply


def pages(members: Sequence[str]) -> list[Sequence[str]]:
    """`members` in pages of READ_PAGE (one empty page when there are none: the read still
    reports what it reports of its own)."""
    return [members[i : i + READ_PAGE] for i in range(0, len(members), READ_PAGE)] or [()]


def inspect_argvs(prefix: str, listing_limit: int, members: Sequence[str]) -> list[tuple[Any, ...]]:
    """inspect.lua's ARGV for each page of `members`: the first page lists ckIndex (while it
    has at most `listing_limit` members); the others count their keys."""
    if len(members) <= READ_PAGE:  # one page: nearly every trip's
        return [(prefix, MASTER_MEMBER, listing_limit, HELD_SUFFIX, *members)]
    return [
        (prefix, MASTER_MEMBER, listing_limit if i == 0 else 0, HELD_SUFFIX, *page)
        for i, page in enumerate(pages(members))
    ]


def join_digests(replies: Sequence[Any]) -> list[Any]:
    """inspect.lua's digest pages as one: the first page's env counts and listing, then every
    page's (member, queued, held) rows (a member counted twice has the same counts in both)."""
    rows = [value for page in replies[1:] for value in page[6:]]
    return [*replies[0], *rows]
