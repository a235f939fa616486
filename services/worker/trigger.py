"""Start a maintenance pass on demand (the API's endpoint calls this): "accepted" means queued.

The task is sent by name through the one Celery app (``celery_app``), built on the caller's settings: the same
broker and key prefix as the workers. If a pass is running already, nothing is queued and the answer says who
runs it since when.
"""

from __future__ import annotations

from sentinel.maintain.cluster_lock import lock_holder
from sentinel.settings import Settings
from services.worker.celery_app import TASK_NAME, celery_app


def trigger_maintenance(settings: Settings, minutes: float | None = None) -> dict[str, object]:
    """Queue one pass now. Returns ``{"queued": True, "task_id": ...}`` or, when one runs,
    ``{"queued": False, "running": {"holder", "since", "task_id"}}``."""
    running = lock_holder(settings)
    if running is not None:
        return {"queued": False, "running": running.as_dict()}
    app = celery_app(settings)
    with app.connection_for_write() as connection:
        result = app.send_task(TASK_NAME, kwargs={"trigger": "on-demand", "minutes": minutes}, connection=connection)
    return {"queued": True, "task_id": result.id}
