"""Start a maintenance pass on demand (the API's endpoint calls this): "accepted" means queued.

The task is sent by name through the worker's Celery app (same broker, same key prefix, same settings from
the environment). If a pass is running already, nothing is queued and the answer says who runs it since when.
"""

from __future__ import annotations

from sentinel.maintain.cluster_lock import lock_holder
from services.worker.celery_app import TASK_NAME, app, settings


def trigger_maintenance(minutes: float | None = None) -> dict[str, object]:
    """Queue one pass now. Returns ``{"queued": True, "task_id": ...}`` or, when one runs,
    ``{"queued": False, "running": {"holder", "since", "task_id"}}``."""
    running = lock_holder(settings)
    if running is not None:
        return {"queued": False, "running": running.as_dict()}
    result = app.send_task(TASK_NAME, kwargs={"trigger": "on-demand", "minutes": minutes})
    return {"queued": True, "task_id": result.id}
