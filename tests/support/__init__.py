"""Test support shared across areas: the fixture plugins the root conftest lists (``pytest_plugins``), and the
helpers and types tests import (servers on loopback, the llama.cpp launcher, HTTP stubs, eval data)."""
