"""The safety tests build on the tools' fixture (a freshly indexed throw-away vault) and the worker's (a real
Celery worker and beat on the local Redis)."""

from tests.maintain.test_worker import stack
from tests.tools.conftest import make_ctx

__all__ = ["make_ctx", "stack"]
