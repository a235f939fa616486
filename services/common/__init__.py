"""What two services share, in one place both import: no service imports another (``tests/test_import_rules.py``).

- ``auth``: API keys, scopes and the loopback rule (the API and the searcher).
- ``tasks``: the Celery task names and the producer's side (queue a pass, queue page analyses) that the API sends
  and the worker runs.
"""
