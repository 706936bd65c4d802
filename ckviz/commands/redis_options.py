"""The Redis flags every command that writes to a server shares, declared once, and the one
rule for where the server comes from: the command line before the environment.

    --redis-url URL        that server
    --redis embedded|docker  a server ckviz starts (given on the command line: it wins over
                           CKVIZ_REDIS_URL too)
    CKVIZ_REDIS_URL        that server, when neither flag is given
    (nothing)              the embedded server
"""

from __future__ import annotations

import argparse
import os

from ckviz.defaults import MAX_CONSUMERS, ROOT_PREFIX
from ckviz.disciplines.registry import MIX_EXAMPLE
from ckviz.errors import keep_secret
from ckviz.sim.cell import ServerChoice, check_root
from ckviz.store.preflight import url_secrets

ENV_REDIS_URL = "CKVIZ_REDIS_URL"
# Set by `ckviz serve` for the apps it starts when the user gave --redis-url: the URL travels
# through CKVIZ_REDIS_URL (a password stays out of `ps`), but error lines name the flag given.
URL_FROM_FLAG = "CKVIZ_SERVE_REDIS_URL_FLAG"
REDIS_MODES = ("embedded", "docker")


def add_redis_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("the server (default: an embedded one ckviz starts)")
    group.add_argument(
        "--redis-url",
        default=None,
        metavar="URL",
        help=f"use an existing Redis (else env {ENV_REDIS_URL}); redis://, rediss:// or unix://",
    )
    group.add_argument(
        "--redis",
        choices=REDIS_MODES,
        default=None,
        help=f"start a server ckviz owns (wins over {ENV_REDIS_URL}; default embedded)",
    )
    group.add_argument(
        "--prefix",
        default=ROOT_PREFIX,
        metavar="ROOT",
        help=f"root of ckviz's key namespace on the server (default '{ROOT_PREFIX}')",
    )
    group.add_argument(
        "--reuse-prefix",
        action="store_true",
        help="run even if the server already holds keys under the --prefix root",
    )
    group.add_argument(
        "--allow-eviction-risk",
        action="store_true",
        help="run on a server whose eviction policy and headroom could evict others' keys "
        "(the keys it evicts meanwhile are counted)",
    )


def add_consumers(
    parser: argparse.ArgumentParser, default: int | None, what: str, mix: bool = False
) -> None:
    """`--consumers N`; with `mix`, also a mix (which consumer runs what: model/lineup.py),
    checked with the other flags."""
    parser.add_argument(
        "--consumers",
        type=count_or_mix if mix else int,
        default=default,
        metavar="N|MIX" if mix else "N",
        help=f"{what}, each on its own connection (1..{MAX_CONSUMERS})"
        + (f"; or which runs what, e.g. {MIX_EXAMPLE} (a mixed rollout)" if mix else ""),
    )


def count_or_mix(text: str) -> int | str:
    """A whole number is a count; anything else a mix, parsed with the other flags."""
    stripped = text.strip()
    return int(stripped) if stripped.lstrip("-").isdigit() else text


def server_choice(ns: argparse.Namespace) -> ServerChoice:
    """The server and namespace the flags (and CKVIZ_REDIS_URL) name; the root checked."""
    url, source = redis_url(ns)
    return ServerChoice(
        mode=ns.redis or "embedded",
        url=url,
        source=source,
        root=check_root(ns.prefix),
        reuse_prefix=ns.reuse_prefix,
        allow_eviction_risk=ns.allow_eviction_risk,
    )


def redis_url(ns: argparse.Namespace) -> tuple[str | None, str]:
    """The URL to use and where it came from (for error lines), by the one rule above. Its
    passwords (and the environment's) are kept out of every line ckviz prints."""
    for given in (ns.redis_url, os.environ.get(ENV_REDIS_URL)):
        keep_secret(*url_secrets(given or ""))
    if ns.redis_url is not None:
        return ns.redis_url or None, "--redis-url"
    if ns.redis is not None:
        return None, "--redis"
    source = "--redis-url" if os.environ.get(URL_FROM_FLAG) else ENV_REDIS_URL
    return os.environ.get(ENV_REDIS_URL) or None, source
