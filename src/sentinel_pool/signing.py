"""The pool secret: every message between daemons is signed with it, and nothing unsigned is believed.

A request carries ``x-sentinel-pool-auth: <unix time>.<nonce>.<hex HMAC-SHA256>`` over the time, the nonce, the
method, the path and the body. A daemon refuses (401) a message whose signature does not match, whose time is
more than ``MAX_SKEW_S`` away from its own clock, or whose nonce it has already seen in that window (a replay).
mDNS only tells a daemon where another one might be: it becomes a peer once it has answered a signed hello
with a signed answer, so a record anyone can multicast (or write) carries no weight.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time

HEADER = "x-sentinel-pool-auth"
MAX_SKEW_S = 30.0


class Unauthenticated(Exception):
    """A message not signed with the pool secret; the reason says which check failed."""


def _mac(secret: str, stamp: str, nonce: str, method: str, path: str, body: bytes) -> str:
    message = f"{stamp}.{nonce}.{method.upper()}.{path}.".encode() + body
    return hmac.new(secret.encode(), message, hashlib.sha256).hexdigest()


def sign(secret: str, method: str, path: str, body: bytes) -> str:
    """The header value for one message."""
    stamp, nonce = f"{time.time():.3f}", secrets.token_hex(8)
    return f"{stamp}.{nonce}.{_mac(secret, stamp, nonce, method, path, body)}"


class Verifier:
    def __init__(self, secret: str) -> None:
        self._secret = secret
        self._seen: dict[str, float] = {}

    def check(self, header: str | None, method: str, path: str, body: bytes) -> None:
        """Raises ``Unauthenticated`` unless ``header`` signs this message and was not seen before."""
        if not header:
            raise Unauthenticated(f"no {HEADER} header: daemons sign every message with the pool secret")
        stamp, _, rest = header.partition(".")
        nonce, _, given = rest.rpartition(".")
        # the time stamp itself holds a dot: "<seconds>.<millis>.<nonce>.<mac>"
        millis, _, nonce = nonce.partition(".")
        stamp = f"{stamp}.{millis}"
        try:
            skew = abs(time.time() - float(stamp))
        except ValueError as error:
            raise Unauthenticated("malformed signature") from error
        if skew > MAX_SKEW_S:
            raise Unauthenticated(f"signature time is {skew:.0f} s off this daemon's clock (limit {MAX_SKEW_S:.0f} s)")
        if not hmac.compare_digest(given, _mac(self._secret, stamp, nonce, method, path, body)):
            raise Unauthenticated("signature does not match: not signed with this pool's secret")
        now = time.monotonic()
        if nonce in self._seen:
            raise Unauthenticated("replayed message (nonce seen before)")
        self._seen = {n: t for n, t in self._seen.items() if now - t < 2 * MAX_SKEW_S}
        self._seen[nonce] = now
