"""What a daemon listening on 0.0.0.0 advertises (``pool/addresses.py``), on this machine's real interfaces:
never what the host name resolves to, never loopback unless every peer is on loopback (or there is nothing else,
said by ``loopback_only``). The same rule inside network namespaces: tests/pool/test_daemons_netns.py."""

from __future__ import annotations

import ipaddress

import pytest

from sentinel_pool.addresses import ipv4_addresses, reach


def test_a_given_listen_address_is_advertised_as_it_is() -> None:
    assert reach("10.1.2.3", []).advertise == "10.1.2.3" and reach("10.1.2.3", []).interfaces == ["10.1.2.3"]


def test_loopback_is_advertised_only_when_every_peer_is_on_loopback() -> None:
    local = reach("0.0.0.0", ["http://127.0.0.1:50053", "http://localhost:50054"])
    assert local.advertise == "127.0.0.1" and not local.loopback_only
    outside = [a for a in ipv4_addresses() if not ipaddress.ip_address(a).is_loopback]
    if not outside:
        pytest.skip("this machine has no address but loopback")
    mixed = reach("0.0.0.0", ["http://127.0.0.1:50053", "http://192.0.2.77:50053"])
    assert mixed.advertise in outside and not mixed.loopback_only
    alone = reach("0.0.0.0", [])  # mDNS only: the LAN's interface
    assert alone.advertise in outside and alone.interfaces[0] == alone.advertise
    assert not any(ipaddress.ip_address(a).is_loopback for a in alone.interfaces)
