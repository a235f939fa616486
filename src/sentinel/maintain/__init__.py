"""The maintenance pass: sync, analysis, concept pages, name resolution, embedding, in that order.

``run_pass`` (``sentinel.maintain.run``) is the one entry; the CLI (``sentinel maintain``) and the Celery
worker (``services/worker``) both call it. Its decisions are made by the gates in ``sentinel.gates``.
"""
