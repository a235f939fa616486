"""``sentinel pool agent``: register this machine's model servers in the pool and keep them registered.

Run one on each model machine (a systemd unit, or next to the worker). It heartbeats every ``heartbeat_s``
with a TTL of ``ttl_s``: if it stops, the node leaves the pool by itself; SIGTERM or Ctrl-C withdraws it at once.
"""

from __future__ import annotations

import signal
import threading
from typing import Annotated, Any

import typer

from sentinel.cli.common import ExtraMissing, console, settings_of
from sentinel.errors import Unavailable
from sentinel.keys import LiveKeyRing
from sentinel.logs import configure_logging
from sentinel.paths import keys_path
from sentinel.redis_client import redis_client

app = typer.Typer(no_args_is_help=True, help="The model pool: many machines' models behind one endpoint.")


@app.command("agent")
def agent(
    ctx: typer.Context,
    node: Annotated[str | None, typer.Option(help="This machine's name in the pool (default: host name).")] = None,
    backend: Annotated[
        list[str] | None,
        typer.Option(
            help="A model server as kind=url, repeatable: ollama=http://localhost:11434 or "
            "openai=http://localhost:8080/v1 (default: SENTINEL_POOL__BACKENDS)."
        ),
    ] = None,
    mac: Annotated[str | None, typer.Option(help="Wake-on-LAN MAC address of this machine.")] = None,
    heartbeat: Annotated[float | None, typer.Option(help="Seconds between heartbeats.")] = None,
    ttl: Annotated[float | None, typer.Option(help="Seconds without a heartbeat after which the node is out.")] = None,
    redis_url: Annotated[str | None, typer.Option(help="The pool's Redis (default: SENTINEL_REDIS_URL).")] = None,
    once: Annotated[
        bool, typer.Option("--once", help="Register once, print the record, and exit (it lapses after the TTL).")
    ] = False,
) -> None:
    """Register this machine's model servers in the pool, with a heartbeat, until stopped."""
    try:  # the pool's parts come with an extra: the rest of the CLI runs without them
        from redis.exceptions import RedisError

        from sentinel_pool.agent import Agent
    except ImportError as missing:
        raise ExtraMissing("the pool agent", missing, "api") from missing
    settings = settings_of(ctx)
    flags: dict[str, Any] = {"node": node, "backends": backend, "mac": mac, "heartbeat_s": heartbeat, "ttl_s": ttl}
    pool = settings.pool.model_copy(update={key: value for key, value in flags.items() if value})
    settings = settings.model_copy(update={"pool": pool, "redis_url": redis_url or settings.redis_url})
    worker = Agent(settings, redis_client(settings.redis_url, timeout_s=None, connect_timeout_s=None))
    try:
        record = worker.beat()
    except RedisError as error:
        raise Unavailable(
            f"cannot register in Redis at {settings.redis_url}: {error}. Start Redis or set SENTINEL_REDIS_URL."
        ) from error
    if once:
        console.print_json(record.model_dump_json())
        return
    configure_logging("pool-agent")
    stop = threading.Event()
    for number in (signal.SIGTERM, signal.SIGINT):
        signal.signal(number, lambda *_: stop.set())
    worker.run(stop)


@app.command("daemon")
def daemon(
    ctx: typer.Context,
    node: Annotated[str | None, typer.Option(help="This machine's name in the pool (default: host name).")] = None,
    backend: Annotated[
        list[str] | None, typer.Option(help="A model server as kind=url, repeatable (as for the agent).")
    ] = None,
    listen: Annotated[str | None, typer.Option(help="host:port to listen on (default 0.0.0.0:50053).")] = None,
    advertise: Annotated[str | None, typer.Option(help="The URL other daemons reach this one at.")] = None,
    secret: Annotated[str | None, typer.Option(help="The pool secret (default: SENTINEL_POOL__SECRET).")] = None,
    peer: Annotated[list[str] | None, typer.Option(help="Another daemon's URL, repeatable (mDNS fallback).")] = None,
    mdns: Annotated[bool, typer.Option("--mdns/--no-mdns", help="Announce and discover over mDNS.")] = True,
    vram_free_mb: Annotated[int | None, typer.Option(help="Free VRAM to report (default: measured).")] = None,
    gpu: Annotated[str | None, typer.Option(help="This machine's GPU (default: nvidia-smi's).")] = None,
    allow: Annotated[list[str] | None, typer.Option(help="A command shell jobs may run, repeatable.")] = None,
    heartbeat: Annotated[float | None, typer.Option(help="Seconds between two hellos.")] = None,
    ttl: Annotated[float | None, typer.Option(help="Seconds after which a silent daemon is gone.")] = None,
    mac: Annotated[str | None, typer.Option(help="This machine's MAC address, so the pool can wake it.")] = None,
    wake_address: Annotated[
        str | None, typer.Option(help="Broadcast address of this machine's network (default: computed).")
    ] = None,
) -> None:
    """Front this machine's model servers in the pool; the elected daemon also leads it (see docs/pool.md)."""
    try:
        from sentinel.tools.first_call import opening
        from sentinel_pool.daemon import serve
        from sentinel_pool.daemon_config import daemon_config
    except ImportError as missing:
        raise ExtraMissing("the pool daemon", missing, "api") from missing
    settings = settings_of(ctx)
    flags: dict[str, Any] = {
        "node": node,
        "backends": backend,
        "listen": listen,
        "advertise": advertise,
        "secret": secret,
        "peers": peer,
        "vram_free_mb": vram_free_mb,
        "gpu": gpu,
        "allow": allow,
        "daemon_heartbeat_s": heartbeat,
        "daemon_ttl_s": ttl,
        "mac": mac,
        "wake_address": wake_address,
    }
    # None is "not given"; 0 (``--vram-free-mb 0``: a machine that must never lead) is a value
    given = {key: value for key, value in flags.items() if value is not None and value != []}
    pool = settings.pool.model_copy(update=given | {"mdns": mdns})
    ring = LiveKeyRing(keys_path(settings), settings.api_keys)
    config = daemon_config(pool, ring if ring.ring.hashes else None)
    configure_logging("pool-daemon")
    serve(config, first_call=opening)
