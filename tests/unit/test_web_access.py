"""Who may open `ckviz serve`'s page and sessions (issue 35 item 1), address by address: the
Host the browser asked for, the page's origin, the token."""

from __future__ import annotations

import pytest

from ckviz.tui.web_access import Access, split_host


@pytest.mark.parametrize(
    ("host", "split"),
    [
        ("127.0.0.1:8000", ("127.0.0.1", 8000)),
        ("LOCALHOST:8000", ("localhost", 8000)),
        ("[::1]:8000", ("::1", 8000)),
        ("::1", ("::1", None)),
        ("example.org", ("example.org", None)),
        ("a:b", ("a", None)),
    ],
)
def test_host_headers_are_split(host: str, split: tuple[str, int | None]) -> None:
    assert split_host(host) == split


def test_the_loopback_address_and_localhost_on_the_port_served_only() -> None:
    access = Access("127.0.0.1", 8000)
    assert access.url() == f"http://127.0.0.1:8000/?token={access.token}"
    assert access.host_ok("127.0.0.1:8000") and access.host_ok("localhost:8000")
    for host in (
        "evil.example:8000",
        "127.0.0.1:8001",
        "127.0.0.2:8000",
        "",
        None,
        "10.0.0.1:8000",
    ):
        assert not access.host_ok(host), host


def test_ipv6_and_every_address() -> None:
    v6 = Access("::1", 8000)
    assert v6.url().startswith("http://[::1]:8000/?token=")
    assert v6.host_ok("[::1]:8000") and v6.host_ok("localhost:8000")
    assert v6.origin_ok("http://[::1]:8000", "[::1]:8000")
    every = Access("0.0.0.0", 8000)
    assert every.everywhere and every.url().startswith("http://127.0.0.1:8000/")
    assert every.host_ok("192.0.2.7:8000") and every.host_ok("[2001:db8::1]:8000")
    assert not every.host_ok("rebound.example:8000")


def test_the_origin_is_the_page_and_the_token_is_the_runs_own() -> None:
    access = Access("127.0.0.1", 8000)
    assert access.origin_ok("http://127.0.0.1:8000", "127.0.0.1:8000")
    assert not access.origin_ok("http://evil.example", "127.0.0.1:8000")
    assert not access.origin_ok(None, "127.0.0.1:8000")
    assert not access.origin_ok("https://127.0.0.1:8000", "127.0.0.1:8000")
    assert access.token_ok(access.token) and not access.token_ok(access.token + "x")
    assert not access.token_ok(None) and Access("127.0.0.1", 8000).token != access.token
