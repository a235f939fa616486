"""The model pool: the models on several machines behind one OpenAI- and Ollama-compatible endpoint.

One router decides where a request runs (``dispatch``, ``scheduler``, ``routing``, ``admission``, ``breaker``;
its client face in ``face``), with its job ledger fenced by epochs (``jobs`` in Redis, ``ledger_memory`` in
memory). It runs in two homes: the daemon pool's elected leader (``daemon``, ``election``, ``discovery``,
``leader_jobs``, ``node_jobs``: seed 002, no Redis), and the API's gateway (FastAPI in ``services/api/pool.py``),
over its own model servers in memory or over node agents' signed records in Redis (``agent``, ``registry``).
Celery lives in ``services/worker``. It is a package of its own: it imports only the core's small public
interfaces (settings, keys, the providers' wire types, ``sentinel.serving``), and implements what the core asks of
it there (``chat_first.RedisServingRecord``); ``tests/test_import_rules.py`` keeps it so.
"""

from sentinel.serving import BACKGROUND_HEADER

__all__ = ["BACKGROUND_HEADER"]
