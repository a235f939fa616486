"""API keys with scopes, stored hashed. ``read`` reaches read/search/listing/graph; ``write`` everything."""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path

from sentinel.errors import BadInput, Refused
from sentinel.vault.write import atomic_write


class Scope(StrEnum):
    READ = "read"
    WRITE = "write"


@dataclass
class KeyRecord:
    id: str
    scope: Scope
    hash: str
    label: str
    created: str
    revoked: bool = False
    # Scopes this key never reaches, whatever its queries ask (sentinel.search.scope): e.g. a key for an agent
    # that must not see scope: personal pages even with scope:personal in the query, nor read them by path.
    kept_out: list[str] = field(default_factory=list)


class KeyFileError(BadInput, ValueError):
    """The key file cannot be read, with what to do about it."""


class KeyUnknown(Refused):
    """No key was sent, or one no ring holds: the caller must say who it is (HTTP's 401, with its challenge)."""


class NotPermitted(Refused):
    """The caller is known, or needs no key, and may not do this: a read key on a write verb, a local-only server
    addressed by a name that is not loopback (HTTP's 403)."""


def _digest(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def load_keys(path: Path) -> list[KeyRecord]:
    if not path.exists():
        return []
    try:
        rows = json.loads(path.read_text())["keys"]
        return [KeyRecord(**{**row, "scope": Scope(row["scope"])}) for row in rows]
    except (ValueError, KeyError, TypeError) as err:
        raise KeyFileError(
            f"the key file {path} is not a Sentinel key file ({err}); move it away and create keys "
            "again with `sentinel keys create`"
        ) from err


def _save(path: Path, records: list[KeyRecord]) -> None:
    atomic_write(path, json.dumps({"keys": [asdict(r) for r in records]}, indent=2) + "\n")
    os.chmod(path, 0o600)


def create_key(path: Path, scope: Scope, label: str = "", kept_out: tuple[str, ...] = ()) -> tuple[KeyRecord, str]:
    """Make a new key; the plain key is returned once and only its hash is stored. ``kept_out``: scopes the key
    never reaches."""
    plain = f"snt_{secrets.token_urlsafe(32)}"
    record = KeyRecord(
        id=f"k_{secrets.token_hex(4)}",
        scope=scope,
        hash=_digest(plain),
        label=label,
        created=datetime.now(UTC).isoformat(timespec="seconds"),
        kept_out=sorted({s.strip().casefold() for s in kept_out if s.strip()}),
    )
    _save(path, [*load_keys(path), record])
    return record, plain


def revoke_key(path: Path, key_id: str) -> bool:
    records = load_keys(path)
    found = False
    for record in records:
        if record.id == key_id and not record.revoked:
            record.revoked = found = True
    if found:
        _save(path, records)
    return found


@dataclass(frozen=True)
class KeyRing:
    """The keys a server accepts: those in the key file plus any given in the environment."""

    hashes: dict[str, Scope]
    limits: dict[str, tuple[str, ...]] = field(default_factory=dict)  # hash -> scopes the key never reaches

    @classmethod
    def from_sources(cls, path: Path, env_keys: str = "") -> KeyRing:
        records = [r for r in load_keys(path) if not r.revoked]
        hashes = {r.hash: r.scope for r in records}
        limits = {r.hash: tuple(r.kept_out) for r in records if r.kept_out}
        for item in filter(None, (part.strip() for part in env_keys.split(","))):
            scope, _, key = item.partition(":")
            if scope not in Scope.__members__.values() or not key:
                raise KeyFileError(
                    f"SENTINEL_API_KEYS entries look like 'write:<key>' or 'read:<key>', got '{item[:12]}…'"
                )
            hashes[_digest(key)] = Scope(scope)
        return cls(hashes, limits)

    def _known(self, key: str) -> str | None:
        digest = _digest(key)
        return next((known for known in self.hashes if hmac.compare_digest(known, digest)), None)

    def scope_of(self, key: str) -> Scope | None:
        known = self._known(key)
        return self.hashes[known] if known is not None else None

    def limits_of(self, key: str) -> tuple[str, ...]:
        """The scopes ``key`` never reaches (none for an unknown key: it is refused anyway)."""
        known = self._known(key)
        return self.limits.get(known, ()) if known is not None else ()


class LiveKeyRing:
    """The accepted keys, re-read whenever the key file changes: a key created or revoked with `sentinel keys`
    takes effect without restarting the server."""

    def __init__(self, path: Path, env_keys: str = "") -> None:
        self.path, self.env_keys = path, env_keys
        self._stamp: tuple[int, int] | None = None
        self.ring = KeyRing({})
        self.refresh()

    def refresh(self) -> None:
        try:
            st = self.path.stat()
            stamp = (st.st_mtime_ns, st.st_size)
        except FileNotFoundError:
            stamp = (0, 0)
        if stamp != self._stamp:
            try:
                self.ring = KeyRing.from_sources(self.path, self.env_keys)
            except KeyFileError:
                if self._stamp is None:
                    raise  # at start: refuse to serve on a key file nobody can read
                # mid-run (a half-written or hand-broken file): keep the last good keys; no request fails on it
            self._stamp = stamp

    def scope_of(self, key: str) -> Scope | None:
        self.refresh()
        return self.ring.scope_of(key)

    def limits_of(self, key: str) -> tuple[str, ...]:
        self.refresh()
        return self.ring.limits_of(key)
