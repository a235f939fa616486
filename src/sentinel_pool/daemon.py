"""``sentinel pool daemon``: one per machine, fronting its model servers; the elected one also leads the pool.

Every ``heartbeat_s`` the daemon probes its backends and sends a signed hello to every daemon it knows of (mDNS
hints, static peers, and every peer's peers): the hello carries its hardware, its backends, who it believes
leads, and the jobs it holds. That one message is discovery, liveness, registration with the leader and the
election's gossip (``election``). The daemon that wins leads: it keeps the job table (``leader_jobs``), assigns
and polls jobs, and routes inference with the pool's one router (``dispatch.Gateway``, its job ledger in memory)
to the daemon of the best node. Every other daemon forwards
clients to the leader, so any daemon's address is a client's one URL. Work reaches a node only through its
daemon, which fences assignments by term and epoch and keeps results until the client acknowledges them
(``node_jobs``). Messages between daemons are signed with the pool secret; an unsigned one is refused (401).
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Coroutine
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import aiohttp
import httpx
from aiohttp import web

from sentinel.serving import root_url
from sentinel_pool import daemon_routes, node_routes, resume
from sentinel_pool.daemon_config import DaemonConfig
from sentinel_pool.daemon_metrics import DaemonMetrics
from sentinel_pool.discovery import Discovery
from sentinel_pool.dispatch import Gateway
from sentinel_pool.election import Claim, Election, Hardware
from sentinel_pool.errors import DaemonRefused
from sentinel_pool.leader_jobs import LeaderJobs, PoolJob
from sentinel_pool.ledger_memory import MemoryLedger, memory_snapshot
from sentinel_pool.node_jobs import NodeJobs
from sentinel_pool.node_routes import TERM_HEADER
from sentinel_pool.peer_http import PeerClient, check_client
from sentinel_pool.probe import probe_backend
from sentinel_pool.registry import BackendRecord, NodeRecord, Snapshot
from sentinel_pool.repair import Opening
from sentinel_pool.routing import Candidate, rank
from sentinel_pool.signing import HEADER, Unauthenticated, Verifier
from sentinel_pool.streaming import NodeFailed
from sentinel_pool.wake import Waker

log = logging.getLogger("sentinel.pool.daemon")
BACKEND_HEADER = daemon_routes.BACKEND_HEADER
REQUEST_HEADER = resume.REQUEST_HEADER
PROBE_TIMEOUT_S, PROBE_EVERY_S = 3.0, 2.0


@dataclass
class Peer:
    url: str
    hardware: Hardware
    record: NodeRecord
    seen: float  # monotonic
    answers: set[str] = field(default_factory=set)  # request ids whose answers it keeps (``resume``)


class Daemon:
    def __init__(self, config: DaemonConfig, first_call: Opening | None = None) -> None:
        self.config, self.first_call = config, first_call
        self.hardware = Hardware(config.node, config.vram_free_mb, config.gpu)
        self.election = Election(self.hardware, config.advertise)
        self.peers: dict[str, Peer] = {}
        self.hints: set[str] = set(config.peers)
        self.verifier = Verifier(config.secret)
        self.backends: list[BackendRecord] = []
        self.local = NodeJobs(self._infer, config.allow, config.routing.job_ttl_s)
        self.answers = resume.KeptAnswers(config.routing.job_ttl_s)
        self.leader: LeaderJobs | None = None
        self._beats = 0
        self._last_beat = time.monotonic()
        self.ledger = MemoryLedger(config.routing.job_ttl_s)
        self.metrics = DaemonMetrics()
        self.waker = Waker(self)
        self._tasks: set[asyncio.Task[Any]] = set()
        self._saying_hello: dict[str, asyncio.Task[None]] = {}
        self._round: asyncio.Task[None] | None = None

    # -- state -------------------------------------------------------------------------------------------------
    def record(self) -> NodeRecord:
        return NodeRecord(node=self.config.node, vram_free_mb=self.config.vram_free_mb, backends=self.backends)

    def live(self) -> dict[str, Peer]:
        now = time.monotonic()
        return {name: peer for name, peer in self.peers.items() if now - peer.seen <= self.config.ttl_s}

    def hello(self) -> dict[str, Any]:
        claim = self.election.claim
        return {
            "node": self.config.node,
            "url": self.config.advertise,
            "hardware": {"vram_free_mb": self.hardware.vram_free_mb, "gpu": self.hardware.gpu},
            "record": self.record().model_dump(),
            "claim": claim.as_dict() if claim else None,
            "jobs": self.local.reports(),
            "answers": self.answers.ids(),
            "peers": sorted({p.url for p in self.peers.values()}),
            "wake": {"mac": c.mac, "address": c.wake_address, "port": c.wake_port} if (c := self.config).mac else None,
        }

    def _heard(self, hello: dict[str, Any]) -> None:
        """A signed hello (or its signed answer): a peer is alive, with its hardware, backends, leader and jobs."""
        node = hello["node"]
        if node == self.config.node:
            return
        hardware = Hardware(node, hello["hardware"].get("vram_free_mb"), hello["hardware"].get("gpu") or "")
        record = NodeRecord.model_validate(hello["record"])
        self.peers[node] = Peer(hello["url"], hardware, record, time.monotonic(), set(hello.get("answers") or []))
        self.waker.heard(node, hello.get("wake"), {m for b in record.backends for m in b.models})
        self.hints.update(hello.get("peers") or [])
        claim = Claim(**hello["claim"]) if hello.get("claim") else None
        if self.election.heard(claim, {name: peer.hardware for name, peer in self.peers.items()}):
            self._leader_changed()
        if self.leader is not None:
            self.leader.absorb(node, hello.get("jobs") or [])

    def _leader_changed(self) -> None:
        claim = self.election.claim
        assert claim is not None
        log.info("leader", extra=claim.as_dict() | {"me": self.config.node})
        self._say_hello()  # the news goes out now, not a heartbeat later: followers forward to it sooner
        if claim.leader == self.config.node:
            self.leader = LeaderJobs(claim.term, self.peer.call, self._choose)
            self.leader.absorb(self.config.node, self.local.reports())
        else:
            self.leader = None

    # -- the heartbeat -----------------------------------------------------------------------------------------
    async def beat(self) -> None:
        """Hellos go out without waiting for one another (a peer that stopped answering delays nobody's), the
        election rule is applied to what has been heard, and the leader's job round runs beside, one at a time."""
        self._say_hello()
        now = time.monotonic()
        if now - self._last_beat > self.config.ttl_s:
            # this process was frozen or starved (SIGSTOP, swap, a suspended VM): every peer looks dead only
            # because nobody was listening, and the others may have elected a new leader meanwhile. Stop leading
            # and hear them again before judging who leads, as at start
            self._beats = 0
            if self.leader is not None:
                log.warning("this daemon was frozen longer than daemon_ttl_s: it stops leading until it hears peers")
                self.election.claim, self.leader = None, None
        self._last_beat = now
        self._beats += 1
        if self._beats >= 2 and self.election.step({n: p.hardware for n, p in self.live().items()}):
            self._leader_changed()
        if self.leader is not None and (self._round is None or self._round.done()):
            self._round = self._spawn(self.leader.tick(self.urls()))
        if self.gateway.scheduler.queued:  # a node may have joined since a slot last freed
            self.gateway.scheduler.wake()

    def _say_hello(self) -> None:
        """A hello to every daemon known of, except those still waiting for the previous one's answer."""
        targets = {url for url in self.hints | {p.url for p in self.peers.values()} if url != self.config.advertise}
        for url in targets:
            if url not in self._saying_hello:
                self._saying_hello[url] = self._spawn(self._hello(url))

    async def _hello(self, url: str) -> None:
        try:
            status, answer = await self.peer.call(url, "/pool/v1/hello", self.hello())
            if status == 200:
                self._heard(answer)
            elif answer.get("refused"):  # its process is gone (kill -9, crash): no need to wait out the TTL
                for peer in self.peers.values():
                    if peer.url == url:
                        peer.seen = float("-inf")
        finally:
            del self._saying_hello[url]

    def _spawn(self, work: Coroutine[Any, Any, None]) -> asyncio.Task[None]:
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    def _probe(self) -> list[BackendRecord]:
        with httpx.Client(timeout=PROBE_TIMEOUT_S) as http:
            return [probe_backend(http, spec) for spec in self.config.backends]

    async def _probes(self) -> None:
        """The backends probed on a loop of their own: a slow model server never delays a hello."""
        while True:
            self.backends = await asyncio.to_thread(self._probe)
            await asyncio.sleep(max(self.config.heartbeat_s, PROBE_EVERY_S))

    def urls(self) -> dict[str, str]:
        return {name: peer.url for name, peer in self.live().items()} | {self.config.node: self.config.advertise}

    def snapshot(self) -> Snapshot:
        """The live pool as this daemon knows it, with the requests it has in flight counted per backend."""
        records = [self.record()] + [peer.record for peer in self.live().values()]
        return memory_snapshot(records, self.ledger)

    async def _read(self) -> Snapshot:
        return self.snapshot()

    def _via(self, candidate: Candidate, url: str, body: bytes) -> tuple[str, dict[str, str]]:
        """The router's request for a backend of ``candidate``'s node goes to that node's daemon, signed: the
        path after the backend's base (OpenAI's) or root (Ollama's own ``api/...``) becomes the serve path."""
        daemon_url = self.urls().get(candidate.node)
        if daemon_url is None:
            raise NodeFailed(f"the daemon of {candidate.node} is no longer heard from", reached=False)
        base, root = candidate.url.rstrip("/"), root_url(candidate.url)
        tail = url.removeprefix(base + "/") if url.startswith(base + "/") else url.removeprefix(root + "/")
        path = f"/pool/v1/serve/{tail}"
        term = self.election.claim.term if self.election.claim else 0
        extra = {BACKEND_HEADER: candidate.url, TERM_HEADER: str(term)}
        rid = resume.REQUEST_ID.get()
        return daemon_url + path, self.peer.headers("POST", path, body) | extra | ({REQUEST_HEADER: rid} if rid else {})

    def _choose(self, job: PoolJob, tried: Any) -> str | None:
        urls = self.urls()
        if job.kind == "shell":
            wanted = (job.payload or {}).get("node")
            names = [wanted] if wanted else sorted(urls)
            return next((n for n in names if n in urls and n not in tried), None)
        model = str((job.payload or {}).get("body", {}).get("model", ""))
        return next((c.node for c in rank(self.snapshot(), model) if c.node not in tried and c.node in urls), None)

    async def _infer(self, payload: dict[str, Any]) -> dict[str, Any]:
        body = payload["body"]
        for candidate in rank(Snapshot([self.record()], {}), str(body.get("model"))):
            async with self.session.post(
                f"{candidate.url}/chat/completions", json=body | {"model": candidate.model, "stream": False}
            ) as response:
                answer: dict[str, Any] = await response.json(content_type=None)
                if response.status != 200:
                    raise RuntimeError(f"backend answered HTTP {response.status}: {json.dumps(answer)[:300]}")
                return answer
        raise RuntimeError(f"no backend of {self.config.node} serves model {body.get('model')!r}")

    # -- HTTP ----------------------------------------------------------------------------------------------------
    async def signed(self, request: web.Request) -> bytes:
        """A peer's request body, once its signature is checked (401 otherwise)."""
        body = await request.read()
        try:
            self.verifier.check(request.headers.get(HEADER), request.method, request.path, body)
        except Unauthenticated as refused:
            raise DaemonRefused(str(refused), status=401) from refused
        return body

    async def on_hello(self, request: web.Request) -> web.Response:
        self._heard(json.loads(await self.signed(request)))
        return web.json_response(self.hello())

    async def on_answer(self, request: web.Request) -> web.Response:
        await self.signed(request)
        return await resume.on_answer(self, request)

    async def on_health(self, request: web.Request) -> web.Response:
        return web.json_response({"status": "ok", "node": self.config.node})

    async def on_leader(self, request: web.Request) -> web.Response:
        claim = self.election.claim
        return web.json_response(
            (claim.as_dict() | {"for_s": round(time.time() - claim.since, 1)} if claim else {"leader": None})
            | {"term": claim.term if claim else self.election.highest_term, "highest_term": self.election.highest_term}
            | {"me": self.config.node, "leading": self.election.leading, "peers_live": sorted(self.live())}
        )

    async def on_metrics(self, request: web.Request) -> web.Response:
        check_client(self.config.keys, request)
        text = daemon_routes.metrics_text(self)
        return web.Response(body=text, content_type="text/plain", charset="utf-8")

    async def on_client(self, request: web.Request) -> web.StreamResponse:
        """Any client route: served here when this daemon leads, else forwarded to the leader unchanged."""
        check_client(self.config.keys, request)
        body = await request.read()
        if self.leader is None:
            return await resume.forward(self, request, body)
        resume.REQUEST_ID.set(request.headers.get(REQUEST_HEADER))  # this request's own context: its id, if any
        return await daemon_routes.lead(self, request, body, self.leader)

    # -- life ----------------------------------------------------------------------------------------------------
    def app(self) -> web.Application:
        app = web.Application(client_max_size=64 * 1024 * 1024, middlewares=[daemon_routes.pool_errors])
        app.router.add_post("/pool/v1/hello", self.on_hello)
        app.router.add_post("/pool/v1/run", partial(node_routes.run, self))
        app.router.add_get("/pool/v1/jobs/{job}/{epoch:[0-9]+}", partial(node_routes.poll, self))
        app.router.add_post("/pool/v1/jobs/{job}/ack", partial(node_routes.acknowledged, self))
        app.router.add_post("/pool/v1/serve/{tail:.*}", partial(node_routes.serve, self))
        app.router.add_get("/pool/v1/answers/{rid}", self.on_answer)
        app.router.add_get("/api/leader", self.on_leader)
        app.router.add_get("/health", self.on_health)
        app.router.add_get("/metrics", self.on_metrics)
        app.router.add_route("*", "/{tail:.*}", self.on_client)
        app.cleanup_ctx.append(self._running)
        return app

    async def _running(self, _: web.Application) -> Any:
        self.session = aiohttp.ClientSession()
        self.peer = PeerClient(self.session, self.config.secret, max(1.0, self.config.heartbeat_s))
        self.client_timeout = aiohttp.ClientTimeout(total=self.config.routing.request_timeout_s, sock_connect=3)
        # the snapshot is this process's memory: read afresh for every request
        routing = self.config.routing.model_copy(update={"registry_refresh_s": 0.0})
        self.gateway = Gateway(
            routing,
            self.session,
            read=self._read,
            ledger=self.ledger,
            via=self._via,
            observer=self.metrics,
            first_call=self.first_call,
        )
        if self.config.keys is None:
            log.warning("clients are not asked for an API key: set SENTINEL_API_KEYS (the same on every daemon)")
        if self.config.loopback_only:
            log.warning(
                "this machine has no address but loopback: no other machine can reach this daemon, and it "
                "advertises %s. Connect it to the network, or set --advertise (SENTINEL_POOL__ADVERTISE) to the URL "
                "other machines reach it at",
                self.config.advertise,
            )
        log.info("advertising", extra={"url": self.config.advertise, "mdns_interfaces": self.config.mdns_interfaces})
        discovery = None
        if self.config.mdns:
            c = self.config
            discovery = Discovery(c.node, c.announce or c.host, c.mdns_interfaces or [c.host], c.port, self.hints.add)
            await discovery.start()
        self.backends = await asyncio.to_thread(self._probe)
        loops = [asyncio.get_running_loop().create_task(work()) for work in (self._heartbeats, self._probes)]
        yield
        for loop in loops:
            loop.cancel()
        if discovery is not None:
            await discovery.stop()
        await self.session.close()

    async def _heartbeats(self) -> None:
        while True:
            try:
                await self.beat()
            except Exception:  # one bad beat must not stop the daemon: logged, and the next one runs
                log.exception("heartbeat failed")
            await asyncio.sleep(self.config.heartbeat_s)


def serve(config: DaemonConfig, first_call: Opening | None = None) -> None:
    """Run the daemon until SIGTERM/SIGINT; ``first_call``: which calls may open a turn (the app's policy)."""
    web.run_app(Daemon(config, first_call).app(), host=config.host, port=config.port, print=None, access_log=None)
