"""Claiming a key namespace on a server that may be someone else's, and sweeping it after.

ckviz writes only under `<root>:<random>:` (root from `--prefix`, default `ckviz`). It will not
share a root that already holds keys unless told `--reuse-prefix`, and it only ever deletes
keys under its own `<root>:<random>:`, never under the root as a whole.
"""

from __future__ import annotations

import re

import redis

from ckviz.defaults import ROOT_PREFIX
from ckviz.errors import RedisUnavailable, ServerRefused, UsageError
from ckviz.sim.cell.session import new_namespace
from ckviz.store.cluster import Keyspace
from ckviz.store.prefix import count_prefix, delete_prefix, first_key
from ckviz.store.preflight import refusal

MAX_ROOT_LENGTH = 64
_ROOT = re.compile(r"[A-Za-z0-9_.{}\-][A-Za-z0-9_.:{}\-]*")
_ATTEMPTS = 5


class PrefixInUse(UsageError):
    """The server already holds keys under the root ckviz was asked to use."""


def check_root(root: str) -> str:
    """A usable `--prefix`: letters, digits and `_ . - { } :`, not ending in `:`."""
    if not root or len(root) > MAX_ROOT_LENGTH or not _ROOT.fullmatch(root) or root.endswith(":"):
        raise UsageError(
            f"--prefix: {root!r} is not a usable prefix (1-{MAX_ROOT_LENGTH} characters from "
            "letters, digits and _ . - { } :, not ending in ':')"
        )
    return root


def claim_namespace(client: Keyspace, root: str = ROOT_PREFIX, reuse: bool = False) -> str:
    """A fresh, empty `<root>:<random>:` namespace on this server.

    Refuses (PrefixInUse) if any key already starts with `<root>:`, unless `reuse`.
    """
    try:
        found = first_key(client, f"{root}:")
        if found is not None and not reuse:
            raise PrefixInUse(
                f"--prefix {root}: the server already holds keys under '{root}:' "
                f"(e.g. {found!r}); pass --reuse-prefix to share it, or pick another --prefix"
            )
        for _ in range(_ATTEMPTS):
            namespace = new_namespace(root)
            if first_key(client, namespace) is None:
                return namespace
    except UnicodeDecodeError:
        raise RedisUnavailable(
            f"--prefix {root}: the server holds a key under '{root}:' whose name is not UTF-8 "
            "text; pick another --prefix"
        ) from None
    except (redis.RedisError, OSError) as exc:
        cause = refusal(exc)
        if cause:
            raise ServerRefused(f"cannot check the key prefix on the server: {cause}") from None
        raise RedisUnavailable(f"cannot check the key prefix on the server: {exc}") from None
    raise PrefixInUse(f"--prefix {root}: no free namespace after {_ATTEMPTS} tries")


def sweep_namespace(client: Keyspace, namespace: str) -> str | None:
    """Delete every key under `namespace`: None when none is left, else one line saying how
    many could not be deleted and why (or that some may remain, if the server is gone)."""
    try:
        delete_prefix(client, namespace)
        return None
    except redis.ResponseError as exc:  # the server answers but refuses (e.g. ACL: no UNLINK)
        reason = refusal(exc) or " ".join(str(exc).split())
    except (redis.RedisError, OSError, UnicodeDecodeError) as exc:
        reason = " ".join(str(exc).split()) or type(exc).__name__
    try:
        left = count_prefix(client, namespace)
    except (redis.RedisError, OSError, UnicodeDecodeError):
        return f"keys under '{namespace}' may remain on the server ({reason})"
    if left == 0:
        return None
    return (
        f"{left} keys under '{namespace}' could not be deleted and remain on the server ({reason})"
    )
