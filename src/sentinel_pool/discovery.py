"""Finding the other daemons: mDNS (python-zeroconf) on the LAN, a static peer list where multicast is dropped.

Each daemon announces ``<node>._sentinel-pool._tcp.local.`` with its port and browses for the others. What mDNS
says is only a hint of where a daemon might listen: it becomes a peer once it has answered a hello signed with
the pool secret (``signing``), so a record anyone can multicast carries no weight. Static peers (``--peer``,
``SENTINEL_POOL__PEERS``) are hinted the same way, at start, for Docker bridges and VPNs that drop multicast.
"""

from __future__ import annotations

import asyncio
import logging
import socket
from collections.abc import Callable

from zeroconf import IPVersion, ServiceInfo, ServiceStateChange, Zeroconf
from zeroconf.asyncio import AsyncServiceBrowser, AsyncServiceInfo, AsyncZeroconf

SERVICE = "_sentinel-pool._tcp.local."
log = logging.getLogger("sentinel.pool.discovery")


class Discovery:
    """Announces this daemon and calls ``found(url)`` for every daemon address mDNS reports."""

    def __init__(
        self, node: str, announce: str, interfaces: list[str], port: int, found: Callable[[str], None]
    ) -> None:
        """``announce``: the address peers are told (``addresses.reach``); ``interfaces``: the IPv4 addresses of
        the interfaces to multicast on (never python-zeroconf's None)."""
        self._node, self._announce, self._interfaces, self._port, self._found = node, announce, interfaces, port, found
        self._zeroconf: AsyncZeroconf | None = None
        self._browser: AsyncServiceBrowser | None = None
        self._info: AsyncServiceInfo | None = None
        self._resolving: set[asyncio.Task[None]] = set()

    async def start(self) -> None:
        self._zeroconf = AsyncZeroconf(interfaces=list(self._interfaces), ip_version=IPVersion.V4Only)
        self._info = AsyncServiceInfo(
            SERVICE,
            f"{self._node}.{SERVICE}",
            addresses=[socket.inet_aton(self._announce)],
            port=self._port,
            properties={"node": self._node},
        )
        await self._zeroconf.async_register_service(self._info)
        self._browser = AsyncServiceBrowser(self._zeroconf.zeroconf, SERVICE, handlers=[self._changed])

    def _changed(self, zeroconf: Zeroconf, service_type: str, name: str, state_change: ServiceStateChange) -> None:
        """Called in the event loop by the browser: resolve the address in a task of that loop."""
        if state_change is ServiceStateChange.Removed or name == f"{self._node}.{SERVICE}":
            return
        task = asyncio.get_running_loop().create_task(self._resolve(name))
        self._resolving.add(task)
        task.add_done_callback(self._resolving.discard)

    async def _resolve(self, name: str) -> None:
        if self._zeroconf is None:
            return
        info = AsyncServiceInfo(SERVICE, name)
        if await info.async_request(self._zeroconf.zeroconf, 3000):
            self._report(info)

    def _report(self, info: ServiceInfo) -> None:
        port = info.port
        for address in info.parsed_addresses(IPVersion.V4Only):
            log.debug("mdns hint", extra={"address": address, "port": port})
            self._found(f"http://{address}:{port}")

    async def stop(self) -> None:
        if self._zeroconf is None:
            return
        if self._browser is not None:
            await self._browser.async_cancel()
        if self._info is not None:
            await self._zeroconf.async_unregister_service(self._info)
        await self._zeroconf.async_close()
