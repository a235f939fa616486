"""Who may call what: API keys with scopes, checked before anything runs."""

from __future__ import annotations

import ipaddress
import logging

from fastapi import Request

from sentinel.keys import KeyFileError, KeyUnknown, LiveKeyRing, NotPermitted, Scope
from sentinel.paths import keys_path
from sentinel.settings import Settings

log = logging.getLogger("sentinel.api")


class StartupRefused(SystemExit):
    """The service will not start in an unsafe configuration; the message says how to fix it."""


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def key_ring(settings: Settings) -> LiveKeyRing | None:
    """The accepted keys, or None for local-only mode. Local-only is the setting's word, whatever the key file
    holds (keys made earlier are then not asked for, and the log says so); it refuses a server reachable from
    outside. Without it, a server with no key at all does not start."""
    try:
        ring = LiveKeyRing(keys_path(settings), settings.api_keys)
    except KeyFileError as err:
        raise StartupRefused(str(err)) from err
    if settings.local_only:
        if not is_loopback(settings.api_host):
            raise StartupRefused(
                f"SENTINEL_LOCAL_ONLY serves without keys, which is only allowed on loopback, but SENTINEL_API_HOST "
                f"is {settings.api_host}: bind to 127.0.0.1, or unset SENTINEL_LOCAL_ONLY and use keys "
                "(`sentinel keys create`)"
            )
        unasked = f"; the {len(ring.ring.hashes)} configured key(s) are not asked for" if ring.ring.hashes else ""
        log.warning(
            "local-only: serving without keys, only to requests addressed to a loopback name%s "
            "(unset SENTINEL_LOCAL_ONLY to require them)",
            unasked,
        )
        return None
    if ring.ring.hashes:
        return ring
    raise StartupRefused(
        f"no API key is configured ({keys_path(settings)} has none and SENTINEL_API_KEYS is empty): create one "
        "with `sentinel keys create --scope write`, or set SENTINEL_LOCAL_ONLY=true to serve without keys on "
        "loopback only"
    )


def host_name(host_header: str) -> str:
    """The name in a ``Host`` header, without its port (``[::1]:8000`` -> ``::1``)."""
    if host_header.startswith("["):
        return host_header[1:].partition("]")[0]
    return host_header.rpartition(":")[0] if host_header.count(":") == 1 else host_header


def scope_of(request: Request) -> Scope:
    """The caller's scope from ``Authorization: Bearer <key>``; ``KeyUnknown`` (401) when missing or unknown.
    Local-only mode (no keys) answers only requests addressed to a loopback name: a web page the user visits could
    otherwise rebind its own DNS name to 127.0.0.1 and read the vault through the user's browser."""
    ring: LiveKeyRing | None = request.app.state.keys
    if ring is None:
        host = request.headers.get("host", "")
        if not is_loopback(host_name(host)):
            raise NotPermitted(
                f"this API runs local-only (no keys) and answers only requests addressed to 127.0.0.1, ::1 or "
                f"localhost, not Host {host!r}: open it by one of those names, or create a key with "
                "`sentinel keys create`",
            )
        return Scope.WRITE
    header = request.headers.get("authorization", "")
    scheme, _, key = header.partition(" ")
    scope = ring.scope_of(key.strip()) if scheme.lower() == "bearer" else None
    if scope is None:
        raise KeyUnknown("missing or unknown API key: send 'Authorization: Bearer <key>'")
    return scope


def limits_of(request: Request) -> tuple[str, ...]:
    """The scopes the caller's key never reaches (``KeyRecord.kept_out``); none without keys."""
    ring: LiveKeyRing | None = request.app.state.keys if "app" in request.scope else None
    if ring is None:
        return ()
    scheme, _, key = request.headers.get("authorization", "").partition(" ")
    return ring.limits_of(key.strip()) if scheme.lower() == "bearer" else ()


def require_write(scope: Scope, verb: str) -> None:
    """The scope gate: a read-only key calling a write verb is refused before anything runs."""
    if scope is not Scope.WRITE:
        raise NotPermitted(f"{verb} needs a write-scoped key; this key is read-only")
