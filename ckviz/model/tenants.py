"""Tenants: a scenario's `[tenants]` table (tenant -> key names or glob patterns) or a trace's
`tenant` column groups keys into the customers they belong to. A key no tenant claims is a
tenant of its own; a key two tenants claim is an error. Fairness is then judged at both
grains (docs/fairness.md, "Tenants")."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from fnmatch import fnmatchcase

TenantTable = Mapping[str, Sequence[str]]  # tenant -> key names or glob patterns


def table_problem(table: TenantTable) -> str | None:
    """Why a [tenants] table is unusable before its keys are known, or None."""
    for tenant, patterns in table.items():
        if not tenant:
            return "a tenant name may not be empty"
        if not patterns:
            return f"tenant '{tenant}' names no keys"
        if any(not p for p in patterns):
            return f"tenant '{tenant}': an empty key pattern"
    return None


def tenant_of(keys: Iterable[str], table: TenantTable) -> dict[str, str]:
    """Each key's tenant: the one whose names or patterns match it, else the key itself.
    Raises ValueError naming a key two tenants match, a tenant matching no key, or a key left
    on its own whose name is a tenant's."""
    owner: dict[str, str] = {}
    matched: set[str] = set()
    for key in keys:
        claims = [t for t, pats in table.items() if any(fnmatchcase(key, p) for p in pats)]
        if len(claims) > 1:
            raise ValueError(f"key '{key}' is matched by tenants '{claims[0]}' and '{claims[1]}'")
        if not claims and key in table:
            raise ValueError(f"key '{key}' is not among tenant '{key}''s keys but has its name")
        owner[key] = claims[0] if claims else key
        matched.update(claims)
    empty = [t for t in table if t not in matched]
    if empty:
        raise ValueError(f"tenant '{empty[0]}' matches none of the keys")
    return owner


def is_one_grain(owner: Mapping[str, str]) -> bool:
    """Every tenant one key: the tenant grain says what the key grain says."""
    return all(key == tenant for key, tenant in owner.items())
