"""The model pool: the models on several machines behind one OpenAI-compatible endpoint.

Built on what the stack already runs instead of home-made consensus: the registry is Redis keys with a TTL
(``registry``), written by a node agent on each model machine (``agent``, ``probe``); any number of gateway
replicas read it, score the nodes (``routing``) and dispatch with failover (``dispatch``), each assignment
fenced by an epoch in Redis (``jobs``). No election, no replicated log. FastAPI lives in ``services/api/pool.py``;
Celery in ``services/worker``.
"""

# The header a caller marks work nobody waits on with (a pass's own calls, the start's warm-up): the gateway does
# not count it as a chat that a maintenance pass yields to.
BACKGROUND_HEADER = "x-sentinel-background"
