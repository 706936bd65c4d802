"""The reference's Redis key layout (SPEC section 2), under a per-run namespace prefix."""

from __future__ import annotations

from dataclasses import dataclass

from ckviz.model.arithmetic import HELD_SUFFIX

ORG = "o-ck"
PROJECT = "p-ck"
ENV = "e-ck"
BASE_QUEUE = "task/base"

_ENV_PATH = f"{{org:{ORG}}}:proj:{PROJECT}:env:{ENV}"
BASE = f"{_ENV_PATH}:queue:{BASE_QUEUE}"
CK_MEMBER_PREFIX = f"{BASE}:ck:"
MASTER_MEMBER = f"{BASE}:ck:*"
MESSAGE_PREFIX = f"{{org:{ORG}}}:message:"


def ck_member(key: str) -> str:
    """The ckIndex member of a CK queue (stored without the namespace prefix)."""
    return CK_MEMBER_PREFIX + key


def key_of_member(member: str) -> str:
    """The concurrency key of a ckIndex member; everything after `B:ck:`, colons included."""
    return member[len(CK_MEMBER_PREFIX) :]


@dataclass(frozen=True, slots=True)
class KeyLayout:
    """Every Redis key one run uses, all starting with `prefix`."""

    prefix: str

    @property
    def ck_index(self) -> str:
        return f"{self.prefix}{BASE}:ckIndex"

    @property
    def ck_vtime(self) -> str:
        return f"{self.prefix}{BASE}:ckVtime"

    @property
    def ck_vtime_floor(self) -> str:
        return f"{self.prefix}{BASE}:ckVtimeFloor"

    @property
    def ck_vtime_idle(self) -> str:
        return f"{self.prefix}{BASE}:ckVtimeIdle"

    @property
    def env_held(self) -> str:
        return f"{self.prefix}{_ENV_PATH}{HELD_SUFFIX}"

    @property
    def env_limit(self) -> str:
        return f"{self.prefix}{_ENV_PATH}:concurrency"

    @property
    def queue_limit(self) -> str:
        return f"{self.prefix}{BASE}:concurrency"

    @property
    def env_queue(self) -> str:
        return f"{self.prefix}{{org:{ORG}}}:env:{ENV}"

    @property
    def master_queue(self) -> str:
        return f"{self.prefix}masterQueue:shard:0"

    def base_key(self, name: str) -> str:
        """A key of the base queue's own, `B:<name>` (a discipline's state in Redis)."""
        return f"{self.prefix}{BASE}:{name}"

    def ck_queue(self, key: str) -> str:
        return self.prefix + ck_member(key)

    def ck_held(self, key: str) -> str:
        return self.prefix + ck_member(key) + HELD_SUFFIX

    def message(self, run_id: str) -> str:
        return self.prefix + MESSAGE_PREFIX + run_id
