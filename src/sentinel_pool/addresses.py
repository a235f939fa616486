"""Where a daemon listening on every interface (``0.0.0.0``) can be reached: the one place that decides which
address it advertises to its peers and which interfaces mDNS runs on.

Resolving the host name is not an answer: stock Debian/Ubuntu map it to ``127.0.1.1``, others to ``127.0.0.1``,
and a daemon advertising a loopback address makes every follower forward clients to itself. So the address is
the one the kernel would send from towards the peers: towards the first static peer when there is one, else
towards the mDNS group (the LAN the daemons find each other on; the default route's interface). Asking costs no
packet (a UDP socket is connected, never written to). Where neither has a route, the first non-loopback IPv4
address of any interface is taken. Loopback is advertised only when every static peer is on loopback, or when
the machine has no other address: then ``loopback_only`` says so and the daemon warns at start.
"""

from __future__ import annotations

import ipaddress
import socket
from dataclasses import dataclass
from urllib.parse import urlsplit

import ifaddr

MDNS_GROUP = "224.0.0.251"


@dataclass(frozen=True)
class Reach:
    advertise: str  # the IPv4 address peers are told to use
    interfaces: list[str]  # the IPv4 addresses mDNS binds to and announces (never loopback unless nothing else)
    loopback_only: bool  # the advertised address is loopback although peers may be elsewhere


def _loopback(address: str) -> bool:
    return ipaddress.ip_address(address).is_loopback


def ipv4_addresses() -> list[str]:
    """Every IPv4 address of this machine's interfaces, non-loopback first (in the system's order)."""
    found = [ip.ip for adapter in ifaddr.get_adapters() for ip in adapter.ips if ip.is_IPv4]
    return sorted(dict.fromkeys(str(a) for a in found), key=_loopback)


def source_towards(host: str) -> str | None:
    """The address the kernel sends from to reach ``host`` (None: no route). No packet is sent."""
    try:
        target = socket.gethostbyname(host)
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.connect((target, 5353))
            return str(probe.getsockname()[0])
    except OSError:
        return None


def reach(listen_host: str, peers: list[str]) -> Reach:
    """The address to advertise and the interfaces for mDNS of a daemon listening on ``listen_host``."""
    if listen_host not in ("", "0.0.0.0"):
        return Reach(listen_host, [listen_host], False)
    addresses = ipv4_addresses()
    outside = [a for a in addresses if not _loopback(a)]
    peer_hosts = [host for url in peers if (host := urlsplit(url).hostname)]
    if peer_hosts and all(_local(host) for host in peer_hosts):
        return Reach("127.0.0.1", outside or ["127.0.0.1"], False)
    towards = [source_towards(host) for host in peer_hosts[:1]] + [source_towards(MDNS_GROUP)]
    chosen = next((a for a in towards if a and not _loopback(a)), None) or (outside[0] if outside else None)
    if chosen is None:
        return Reach("127.0.0.1", ["127.0.0.1"], True)
    return Reach(chosen, [chosen] + [a for a in outside if a != chosen], False)


def _local(host: str) -> bool:
    try:
        return _loopback(socket.gethostbyname(host))
    except OSError:
        return False
