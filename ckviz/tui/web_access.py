"""Who may open `ckviz serve`'s page and its sessions. A web page open in the same browser can
open a websocket to any address (cross-site websocket hijacking), and a name the attacker
controls can be made to resolve to 127.0.0.1 (DNS rebinding). So, as Jupyter does:

- the request's `Host` must name the address served (or `localhost` for a loopback address;
  any IP address or this machine's name when serving on every address), on the port served:
  a rebound name is refused;
- a session's `Origin` must be the page's own (`http://` + that same Host): another site's
  page is refused;
- the page and every session carry the per-run token serve prints in its URL, compared in
  constant time."""

from __future__ import annotations

import hmac
import ipaddress
import secrets
import socket
from dataclasses import dataclass, field

WILDCARDS = frozenset({"0.0.0.0", "::", ""})
TOKEN_BYTES = 32  # 43 URL-safe characters


def new_token() -> str:
    return secrets.token_urlsafe(TOKEN_BYTES)


def split_host(host: str) -> tuple[str, int | None]:
    """`name:port` (or `[v6]:port`, or a name alone) as (lower-case name, port or None)."""
    host = host.strip().lower()
    if host.startswith("["):
        name, _, rest = host[1:].partition("]")
        port_text = rest[1:] if rest.startswith(":") else ""
    else:
        name, colon, port_text = host.rpartition(":")
        if not colon or ":" in name:  # no port, or a bare IPv6 address
            name, port_text = host, ""
    return name, int(port_text) if port_text.isdigit() else None


def ip_literal(name: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(name)
    except ValueError:
        return None


def url_host(address: str) -> str:
    """The address as a URL writes it (an IPv6 address in brackets)."""
    found = ip_literal(address)
    return f"[{address}]" if found is not None and found.version == 6 else address


@dataclass(frozen=True)
class Access:
    bind: str  # the address listened on (--host)
    port: int
    token: str = field(default_factory=new_token, repr=False)

    @property
    def everywhere(self) -> bool:
        return self.bind.strip() in WILDCARDS

    def url(self) -> str:
        """The URL to print: the address served (127.0.0.1 when serving on every address)."""
        shown = "127.0.0.1" if self.everywhere else url_host(self.bind)
        return f"http://{shown}:{self.port}/?token={self.token}"

    def token_ok(self, given: str | None) -> bool:
        return given is not None and hmac.compare_digest(given.encode(), self.token.encode())

    def host_ok(self, host: str | None) -> bool:
        """The request's Host names the address served, on the port served."""
        if not host:
            return False
        name, port = split_host(host)
        if (port or 80) != self.port:
            return False
        if self.everywhere:
            return ip_literal(name) is not None or name in machine_names()
        bind = self.bind.strip().lower()
        if name == bind:
            return True
        address = ip_literal(bind)
        return name == "localhost" and (
            bind == "localhost" or bool(address and address.is_loopback)
        )

    def origin_ok(self, origin: str | None, host: str | None) -> bool:
        """Same origin as the page: the scheme and the Host the browser asked for."""
        return (
            origin is not None and host is not None and origin.lower() == f"http://{host}".lower()
        )


def machine_names() -> set[str]:
    names = {"localhost", socket.gethostname().lower(), socket.getfqdn().lower()}
    return {name for name in names if name}
