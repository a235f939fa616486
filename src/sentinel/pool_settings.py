"""The model pool's knobs (``Settings.pool``, ``SENTINEL_POOL__*``): routing, failover, the breaker, capacity,
the daemons' heartbeat and election, wake-on-LAN. Its own model because the pool's daemon runs with these alone
(``sentinel_pool.daemon_config``), without the rest of ``Settings``. Imported as ``sentinel.settings.PoolSettings``
(the pool's door into the core's settings)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field


class PoolSettings(BaseModel):
    """The model pool: the router's knobs (the API's gateway and the daemon leader share them), the node agents
    that register backends in Redis for the API's gateway, and the daemons (``sentinel pool daemon``)."""

    node: str = Field("", description="Agent: this machine's name in the pool. Empty: the host name.")
    backends: list[str] = Field(
        default_factory=list,
        description="Agent: the backends it registers, as kind=url: 'ollama=http://localhost:11434' (server root) "
        "or 'openai=http://localhost:8080/v1' (up to /v1).",
    )
    mac: str = Field("", description="Agent: wake-on-LAN MAC address of this machine (aa:bb:cc:dd:ee:ff). Empty: none.")
    registry: Literal["auto", "memory", "redis"] = Field(
        "auto",
        description="API gateway: where it keeps the pool's nodes and jobs. 'memory': only its own backends "
        "(``backends``), routed without Redis (one process); 'redis': every agent's, shared by gateway processes; "
        "'auto': memory when it has backends of its own, else redis.",
    )
    heartbeat_s: float = Field(5.0, gt=0, description="Agent: seconds between two registrations (heartbeats).")
    ttl_s: float = Field(
        15.0, gt=0, description="A node that has not heartbeated for this long leaves the pool by itself."
    )
    attempts: int = Field(3, ge=1, le=3, description="Nodes tried per inference request before the first token.")
    connect_timeout_s: float = Field(3.0, gt=0, description="Gateway: seconds to reach a backend before failing over.")
    first_token_timeout_s: float = Field(
        300.0, gt=0, description="Gateway: seconds a backend may take to the first token (CPU prefill is slow)."
    )
    read_timeout_s: float = Field(120.0, gt=0, description="Gateway: seconds between two tokens of a stream.")
    constrain_first_call: bool = Field(
        True,
        description="Gateway: the first answer of a chat turn to a request offering tools is sampled under a JSON "
        "schema of the offered calls (the server's grammar), so a small model answers with a valid call; a request "
        "with its own tool_choice or response_format is sent as it came.",
    )
    request_timeout_s: float = Field(
        300.0,
        gt=0,
        description="Gateway: seconds one request may spend before its first token across all its attempts: a "
        "hung node costs at most this once (then its breaker is open), never this per node.",
    )
    breaker_failures: int = Field(2, ge=1, description="Gateway: consecutive failures that cool a backend down.")
    breaker_cooldown_s: float = Field(
        5.0, gt=0, description="Gateway: first cooldown of a failing backend; doubles per failed probe."
    )
    breaker_max_cooldown_s: float = Field(60.0, gt=0, description="Gateway: the longest cooldown.")
    registry_refresh_s: float = Field(
        0.5, ge=0, description="Gateway: how old its view of the registry may get before it reads it again (0: always)."
    )
    job_ttl_s: int = Field(
        3600,
        gt=0,
        description="How long a job's epoch record is kept after its last change; on a daemon, how long a finished "
        "job's result is kept for its client when the client never acknowledges it (the submit response says so).",
    )
    wake_address: str = Field(
        "",
        description="Where wake-on-LAN magic packets go: the broadcast address of the network the node is on. "
        "Empty: the gateway sends to 255.255.255.255; a daemon announces its own network's broadcast address.",
    )
    wake_port: int = Field(9, description="UDP port of wake-on-LAN magic packets (9 or 7).")
    secret: str = Field(
        "", description="Daemon: the pool secret every daemon signs its messages with (the same on every machine)."
    )
    listen: str = Field("0.0.0.0:50053", description="Daemon: host:port it listens on (daemons and clients).")
    advertise: str = Field(
        "", description="Daemon: the URL other daemons reach it at. Empty: http://<listen host or host IP>:<port>."
    )
    peers: list[str] = Field(
        default_factory=list,
        description="Daemon: other daemons' URLs, for networks that drop mDNS multicast (Docker bridges, VPNs).",
    )
    mdns: bool = Field(True, description="Daemon: announce and discover daemons over mDNS.")
    gpu: str = Field("", description="Daemon: this machine's GPU, for the election. Empty: nvidia-smi's, if any.")
    vram_free_mb: int | None = Field(
        None, description="Daemon: free VRAM for the election and routing. Empty: measured (nvidia-smi)."
    )
    allow: list[str] = Field(default_factory=list, description="Daemon: commands shell jobs may run (first word).")
    daemon_heartbeat_s: float = Field(0.3, gt=0, description="Daemon: seconds between two hellos.")
    daemon_ttl_s: float = Field(
        1.2,
        gt=0,
        description="Daemon: a daemon not heard from for this long is gone (one whose port refuses a hello: at "
        "once). With the heartbeat, it sets failover: about ttl + 2 heartbeats for a machine that vanishes.",
    )
    node_max_jobs: int = Field(
        4, ge=1, description="Router: requests at once on a backend that does not say its slot count (llama.cpp does)."
    )
    queue_max: int = Field(
        64, ge=0, description="Router: requests that may wait for a free node when every node is full; more are 503."
    )
    queue_wait_s: float = Field(
        120.0,
        gt=0,
        description="Router: how long a request may wait for a free node (then 503 pool_busy): long enough for one "
        "answer of a CPU model on a one-slot server.",
    )
    sticky_slack: int = Field(
        2, ge=0, description="How much busier than the least busy node a conversation's own node may be (sticky)."
    )
    wake_wait_s: float = Field(
        60.0, gt=0, description="Daemon: how long a request for a sleeping node's model waits for it to wake."
    )
