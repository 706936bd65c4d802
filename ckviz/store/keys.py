"""The reference's Redis key layout (SPEC section 2), under a per-run namespace prefix."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

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


def ck_members(keys: Iterable[str]) -> list[str]:
    """The ckIndex members of many CK queues, as `ck_member` spells each (without a call per
    key: a checked trip names every key it touched)."""
    prefix = CK_MEMBER_PREFIX
    return [prefix + key for key in keys]


def key_of_member(member: str) -> str:
    """The concurrency key of a ckIndex member; everything after `B:ck:`, colons included."""
    return member[len(CK_MEMBER_PREFIX) :]


class _KeysOfMembers(dict[str, str]):
    """member -> key, filled on first sight: a rescoring discipline's trips name every key on
    every read, and a dict lookup from C (`map(KEY_OF.__getitem__, ...)`) beats a slice."""

    def __missing__(self, member: str) -> str:
        key = self[member] = key_of_member(member)
        return key


KEY_OF = _KeysOfMembers()


@dataclass(frozen=True, slots=True)
class KeyLayout:
    """Every Redis key one run uses, all starting with `prefix`.

    The fixed keys are spelled once, here, when the layout is made: every trip names them."""

    prefix: str
    ck_index: str = field(init=False)
    env_held: str = field(init=False)
    env_limit: str = field(init=False)
    env_burst: str = field(init=False)
    queue_limit: str = field(init=False)
    env_queue: str = field(init=False)
    master_queue: str = field(init=False)

    def __post_init__(self) -> None:
        p = self.prefix
        fixed = {
            "ck_index": f"{p}{BASE}:ckIndex",
            "env_held": f"{p}{_ENV_PATH}{HELD_SUFFIX}",
            "env_limit": f"{p}{_ENV_PATH}:concurrency",
            "env_burst": f"{p}{_ENV_PATH}:concurrencyBurstFactor",
            "queue_limit": f"{p}{BASE}:concurrency",
            "env_queue": f"{p}{{org:{ORG}}}:env:{ENV}",
            "master_queue": f"{p}masterQueue:shard:0",
        }
        for name, key in fixed.items():
            object.__setattr__(self, name, key)

    def base_key(self, name: str) -> str:
        """A key of the base queue's own, `B:<name>` (a discipline's state in Redis)."""
        return f"{self.prefix}{BASE}:{name}"

    def env_key(self, name: str) -> str:
        """A key of the env section's own, `{org:o}:proj:p:env:e:<name>`."""
        return f"{self.prefix}{_ENV_PATH}:{name}"

    def ck_queue(self, key: str) -> str:
        return self.prefix + ck_member(key)

    def ck_held(self, key: str) -> str:
        return self.prefix + ck_member(key) + HELD_SUFFIX

    def message(self, run_id: str) -> str:
        return self.prefix + MESSAGE_PREFIX + run_id
