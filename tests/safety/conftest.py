"""The safety tests build on the tools' fixture: a freshly indexed throw-away vault."""

from tests.tools.conftest import make_ctx

__all__ = ["make_ctx"]
