"""A production run queue's key names (SPEC-live 1), built from its ids or parsed back from
a key: `P{org:O}:proj:J:env:E:queue:T` and every key around it.

ckviz's own engine spells one fixed layout (`store/keys.py`, a hot path); a live queue's ids
are whatever the server holds, so they are spelled here, once per queue.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ckviz.model.arithmetic import HELD_SUFFIX

DEFAULT_PREFIX = "engine:runqueue:"  # the webapp's run engine ("engine:") + the run queue's
INDEX_SUFFIX = ":ckIndex"
DEQUEUED_SUFFIX = ":currentDequeued"
VARIANT_INFIX = ":ck:"
# the base queue after the prefix: the org id holds no `}`, project and env ids no `:`; the
# queue name is the rest (it may hold `/` and `:`)
_BASE = re.compile(r"\{org:([^}]*)\}:proj:([^:]*):env:([^:]*):queue:(.+)", re.DOTALL)


@dataclass(frozen=True, slots=True)
class LiveQueue:
    """One CK'd base queue of a run queue: its prefix and ids, and the names of its keys."""

    prefix: str
    org: str
    project: str
    env: str
    name: str  # the queue's name, e.g. `task/my-task`

    @property
    def env_path(self) -> str:
        """`{org:O}:proj:J:env:E`, without the prefix."""
        return f"{{org:{self.org}}}:proj:{self.project}:env:{self.env}"

    @property
    def base(self) -> str:
        """`Q` without the prefix: what ckIndex and master queue members start with."""
        return f"{self.env_path}:queue:{self.name}"

    def key(self, suffix: str) -> str:
        """A key of the base queue's own: `P Q <suffix>` (`:ckIndex`, `:concurrency`...)."""
        return f"{self.prefix}{self.base}{suffix}"

    def env_key(self, suffix: str) -> str:
        return f"{self.prefix}{self.env_path}{suffix}"

    @property
    def ck_index(self) -> str:
        return self.key(INDEX_SUFFIX)

    @property
    def env_queue(self) -> str:
        """The env's zset of every queued run: `{org:O}:env:E` (no project)."""
        return f"{self.prefix}{{org:{self.org}}}:env:{self.env}"

    @property
    def env_held(self) -> str:
        return self.env_key(HELD_SUFFIX)

    @property
    def queue_held(self) -> str:
        return self.key(HELD_SUFFIX)

    @property
    def master_member(self) -> str:
        """The master queue's member for a CK'd queue."""
        return f"{self.base}{VARIANT_INFIX}*"

    @property
    def message_prefix(self) -> str:
        """What a message key holds after the prefix, before the run id."""
        return f"{{org:{self.org}}}:message:"

    def message(self, run_id: str) -> str:
        return f"{self.prefix}{self.message_prefix}{run_id}"

    def member(self, concurrency_key: str) -> str:
        """A variant's ckIndex member (`Q:ck:C`, no prefix)."""
        return f"{self.base}{VARIANT_INFIX}{concurrency_key}"

    def variant(self, concurrency_key: str) -> str:
        """A variant's own zset, `P Q:ck:C`."""
        return self.prefix + self.member(concurrency_key)

    def concurrency_key_of(self, member: str) -> str:
        """The concurrency key of a ckIndex member: all after `Q:ck:`, colons included."""
        return member[len(self.base) + len(VARIANT_INFIX) :]

    def is_member(self, member: str) -> bool:
        return member.startswith(f"{self.base}{VARIANT_INFIX}")

    @property
    def shown(self) -> str:
        """How a person names the queue: `org/project/env: name`."""
        return f"{self.org}/{self.project}/{self.env}: {self.name}"


def queue_of_index(key: str, prefix: str) -> LiveQueue | None:
    """The queue whose ckIndex `key` is (a key SCAN found under `prefix`); None: not one. The
    queue's own prefix runs to its first `{org:` (a deeper one than `prefix`, a test's or a
    tenant's, is found too)."""
    if not key.startswith(prefix) or not key.endswith(INDEX_SUFFIX):
        return None
    at = key.find("{org:", len(prefix))
    if at < 0:
        return None
    match = _BASE.fullmatch(key[at : -len(INDEX_SUFFIX)])
    if match is None:
        return None
    org, project, env, name = match.groups()
    return LiveQueue(key[:at], org, project, env, name)


def jump_hash(key: int, buckets: int) -> int:
    """Lamping and Veach's jump consistent hash of a 64-bit `key` over `buckets`."""
    b, j = -1, 0
    while j < buckets:
        b = j
        key = (key * 2862933555777941757 + 1) & 0xFFFFFFFFFFFFFFFF
        j = int((b + 1) * (float(1 << 31) / float((key >> 33) + 1)))
    return b
