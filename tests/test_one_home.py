"""One home per decision, read from the code (an ast walk over src/, services/, tool/ and bench/):

- a Redis client is made only in ``sentinel.redis_client`` (one place names its timeouts and its pool), never by
  ``Redis(...)``, ``Redis.from_url``, ``redis.asyncio.from_url`` or a connection pool of a module's own;
- a model server's root is worked out of its URL only by ``sentinel.serving.root_url``: nothing else strips
  ``/v1`` (``removesuffix("/v1")``, ``rstrip``, ``replace``, ``split``, ``re.sub``, or ``endswith`` before a cut);
- a note's record line is recognised only by ``sentinel.vault.record_line`` (every language's label, the
  setting's too): nothing else matches text against the ``record_label`` setting (a ``re`` function, a string
  method such as ``startswith``, or ``in``), as ``maintain/trace.py`` once did with the setting's label alone.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
ROOTS = ("src", "services", "tool", "bench")

REDIS_HOME = Path("src/sentinel/redis_client.py")
URL_HOME = Path("src/sentinel/serving.py")
RECORD_HOME = Path("src/sentinel/vault/record_line.py")

# what makes a client or its connections, however it was imported
_REDIS_MAKERS = {"Redis", "StrictRedis", "ConnectionPool", "BlockingConnectionPool", "from_url", "from_pool"}
# the string methods (and re's) a /v1 is cut off a URL with
_CUTS = {"removesuffix", "rstrip", "strip", "replace", "split", "rsplit", "partition", "rpartition", "endswith"}
_CUTS |= {"sub", "subn", "rfind", "find", "rindex", "index"}
_V1 = re.compile(r"^/?v1/?[?*$]*$")  # "/v1", "v1", "/v1/", r"/v1/?$": the segment alone, not a longer path
# what text is matched against a label with (re's functions, str's methods)
_MATCHERS = {"match", "fullmatch", "search", "escape", "compile", "findall", "finditer", "startswith", "endswith"}
_MATCHERS |= {"find", "index", "count", "split", "partition", "removeprefix", "replace"}


def _dotted(node: ast.expr) -> list[str]:
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.insert(0, node.attr)
        node = node.value
    return [node.id, *parts] if isinstance(node, ast.Name) else []


def _redis_names(tree: ast.AST) -> dict[str, str]:
    """Local names bound to the redis package or a name imported from it, with what they stand for."""
    names = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "redis":
                    names[alias.asname or alias.name.split(".")[0]] = alias.name
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "redis" and not node.level:
            for alias in node.names:
                names[alias.asname or alias.name] = alias.name
    return names


def redis_clients_made(source: str) -> list[int]:
    """Lines that make a Redis client or connection pool."""
    tree = ast.parse(source)
    redis = _redis_names(tree)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and (dotted := _dotted(node.func)) and dotted[0] in redis:
            last = dotted[-1] if len(dotted) > 1 else redis[dotted[0]].split(".")[-1]
            if last in _REDIS_MAKERS:
                found.append(node.lineno)
    return found


def v1_cuts(source: str) -> list[int]:
    """Lines that cut ``/v1`` off a string: a cutting method called with the segment alone."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _CUTS:
            texts = [a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
            if any(_V1.match(text) for text in texts):
                found.append(node.lineno)
    return found


def _reads_record_label(node: ast.AST) -> bool:
    return any(isinstance(n, ast.Attribute) and n.attr == "record_label" for n in ast.walk(node))


def record_label_matches(source: str) -> list[int]:
    """Lines that match text against the ``record_label`` setting: a matching call or an ``in`` given it."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _MATCHERS:
            if any(_reads_record_label(a) for a in [*node.args, *(k.value for k in node.keywords)]):
                found.append(node.lineno)
        elif isinstance(node, ast.Compare) and any(isinstance(op, (ast.In, ast.NotIn)) for op in node.ops):
            found += [node.lineno] if _reads_record_label(node) else []
    return found


def _violations(home: Path, finder: object) -> list[str]:
    found = []
    for root in ROOTS:
        for path in sorted((REPO / root).rglob("*.py")):
            relative = path.relative_to(REPO)
            if relative != home:
                lines = finder(path.read_text(encoding="utf-8"))  # type: ignore[operator]
                found += [f"{relative}:{line}" for line in lines]
    return found


def test_redis_clients_are_made_only_in_redis_client() -> None:
    found = _violations(REDIS_HOME, redis_clients_made)
    assert not found, f"make these clients with sentinel.redis_client: {', '.join(found)}"


def test_only_root_url_strips_v1() -> None:
    found = _violations(URL_HOME, v1_cuts)
    assert not found, f"take these roots with sentinel.serving.root_url: {', '.join(found)}"


def test_only_record_line_recognises_a_record_line() -> None:
    found = _violations(RECORD_HOME, record_label_matches)
    assert not found, f"recognise these with sentinel.vault.record_line: {', '.join(found)}"


@pytest.mark.parametrize(
    "source",
    [
        "label = re.escape(settings.record_label)",  # maintain/trace.py before stop 47
        "re.match(rf'\\s*{ctx.settings.record_label}', line)",
        "line.strip().startswith(settings.record_label)",
        "settings.record_label in text",
    ],
)
def test_each_way_of_matching_the_record_label_is_seen(source: str) -> None:
    assert record_label_matches(source)


def test_the_homes_themselves_are_seen() -> None:
    """The walk is not blind: each home does what the rule forbids elsewhere."""
    assert redis_clients_made((REPO / REDIS_HOME).read_text(encoding="utf-8"))
    assert v1_cuts((REPO / URL_HOME).read_text(encoding="utf-8"))


@pytest.mark.parametrize(
    "source",
    [
        "from redis import Redis\nRedis.from_url(u)",
        "from redis import Redis\nRedis(host='h')",
        "import redis\nredis.Redis.from_url(u)",
        "import redis.asyncio\nredis.asyncio.from_url(u)",
        "from redis import asyncio as aioredis\naioredis.from_url(u)",
        "from redis.asyncio import Redis as AsyncRedis\nAsyncRedis(connection_pool=p)",
        "def f():\n    from redis.asyncio import BlockingConnectionPool\n    BlockingConnectionPool.from_url(u)",
        "import redis\nredis.StrictRedis()",
    ],
)
def test_each_way_of_making_a_redis_client_is_seen(source: str) -> None:
    assert redis_clients_made(source)


@pytest.mark.parametrize(
    "source",
    [
        "url.removesuffix('/v1')",
        "url.rstrip('/').removesuffix('/v1/')",
        "url.replace('/v1', '')",
        "url.rsplit('/v1', 1)[0]",
        "re.sub(r'/v1/?$', '', url)",
        "url[:-3] if url.endswith('/v1') else url",
    ],
)
def test_each_way_of_stripping_v1_is_seen(source: str) -> None:
    assert v1_cuts(source)


def test_what_is_not_a_home_is_not_flagged() -> None:
    """Building a URL with /v1, reaching a /v1 route and catching redis's errors are not what the rules are about."""
    source = (
        "from redis.exceptions import RedisError\n"
        "from redis import Redis\n"
        "def f(client: Redis, base: str) -> None:\n"
        "    client.get(f'{base}/v1')\n"
        "    http.post('/v1/tools/read')\n"
        "    raise RedisError('x')\n"
    )
    assert redis_clients_made(source) == [] and v1_cuts(source) == []
    handing_on = "is_record_line(ctx.settings.record_label, span.text)\nrecord_label(settings, 'tr')\n"
    assert record_label_matches(handing_on) == []  # handing the setting to the home is not matching it
