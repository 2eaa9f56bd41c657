"""The address a request comes from, for the per-address limits (class rooms, long work): the TCP peer, or behind
trusted proxies the address they appended to X-Forwarded-For (docs/deploy.md)."""

from __future__ import annotations

import ipaddress
import os

TRUSTED_PROXY_ENV = "ATTENTION_EXPLORER_TRUSTED_PROXY"  # how many proxies in front append to X-Forwarded-For


def trusted_proxies() -> int:
    """``ATTENTION_EXPLORER_TRUSTED_PROXY``: the number of proxies in front of the server (0: none trusted). Unset,
    1 on a Hugging Face Space (it sets ``SPACE_ID``; every visitor comes through its one proxy, which appends the
    address it saw), else 0."""
    default = "1" if os.environ.get("SPACE_ID") else "0"
    try:
        return max(0, int(os.environ.get(TRUSTED_PROXY_ENV, default) or 0))
    except ValueError:
        return 0


def address(scope, trusted: int | None = None) -> str:
    """The client's address, for the per-address limits. With ``trusted`` proxies in front (each appends the
    address it saw to X-Forwarded-For), the ``trusted``-th entry from the right; with none, the TCP peer, except that
    a request carrying X-Forwarded-For counts as the one address "forwarded" (uvicorn rewrites the peer from that
    header for a loopback peer, so the peer cannot be told from a forged header)."""
    trusted = trusted_proxies() if trusted is None else trusted
    forwarded = [h.strip() for k, v in scope.get("headers", []) if k.lower() == b"x-forwarded-for"
                 for h in v.decode("latin-1").split(",") if h.strip()]
    if trusted and forwarded:
        return person(forwarded[-min(trusted, len(forwarded))][:64])
    if forwarded:
        return "forwarded"
    client = scope.get("client") or ("", 0)
    return person(str(client[0]))


V6_PREFIX = 56  # bits of an IPv6 address that name one visitor


def person(addr: str) -> str:
    """An IPv6 address counts as its /56 network: a phone or a rented server is given a whole /64 and a home as many
    as 256 (a /56; helper 80 took a fresh share of the streams, the rooms and the model's turns from each of 16-99
    /64s), so one visitor could otherwise take fresh per-address limits for every request. The limits are sized for
    a whole class behind one address, so strangers on one /56 (a carrier's phones) share them unharmed. IPv4 (and an
    IPv4 address written as IPv6) and anything that is no address count as they are."""
    try:
        ip = ipaddress.ip_address(addr.strip("[]"))
    except ValueError:
        return addr
    if ip.version == 4:
        return str(ip)
    if ip.ipv4_mapped is not None:
        return str(ip.ipv4_mapped)
    return str(ipaddress.ip_network(f"{ip}/{V6_PREFIX}", strict=False))


SITE_PREFIX = 48  # bits of an IPv6 address that name one site: a business or a tunnel broker's customer holds a /48


def site(person_address: str) -> str:
    """The /48 an IPv6 visitor's /56 lies in (helper 82 opened 198 rooms from 24 /56s of one free /48); anything
    else as it is."""
    try:
        net = ipaddress.ip_network(person_address, strict=False)
    except ValueError:
        return person_address
    if net.version != 6 or net.prefixlen <= SITE_PREFIX:
        return person_address
    return str(net.supernet(new_prefix=SITE_PREFIX))
