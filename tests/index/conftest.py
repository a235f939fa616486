"""The real e5 model, shared with the search tests."""

from tests.search.conftest import e5  # noqa: F401
