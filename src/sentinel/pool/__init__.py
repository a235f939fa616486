"""The model pool: the models on several machines behind one OpenAI- and Ollama-compatible endpoint.

One router decides where a request runs (``dispatch``, ``scheduler``, ``routing``, ``admission``, ``breaker``;
its client face in ``face``), with its job ledger fenced by epochs (``jobs`` in Redis, ``ledger_memory`` in
memory). It runs in two homes: the daemon pool's elected leader (``daemon``, ``election``, ``discovery``,
``leader_jobs``, ``node_jobs``: seed 002, no Redis), and the API's gateway (FastAPI in ``services/api/pool.py``),
over its own model servers in memory or over node agents' signed records in Redis (``agent``, ``registry``).
Celery lives in ``services/worker``.
"""

# The header a caller marks work nobody waits on with (a pass's own calls, the start's warm-up): the gateway does
# not count it as a chat that a maintenance pass yields to.
BACKGROUND_HEADER = "x-sentinel-background"
