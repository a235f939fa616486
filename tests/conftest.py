"""The fixtures more than one area uses, as plugins (tests/support/); an area's own fixtures stay in its conftest.
Tests import helpers and types from tests/support/, never from a conftest."""

pytest_plugins = [
    "tests.support.vault",
    "tests.support.e5",
    "tests.support.llama_fixtures",
    "tests.support.redis_prefix",
    "tests.support.tool_context",
    "tests.support.maintain_pass",
    "tests.support.worker_stack",
]
