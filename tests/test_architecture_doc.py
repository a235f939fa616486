"""docs/architecture.md stays true: every module it names exists."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
NAMED = re.compile(r"`((?:src|services|tool|tests)/[\w/.-]+?(?:\.py|/))`")


def test_every_module_the_architecture_page_names_exists() -> None:
    text = (REPO / "docs" / "architecture.md").read_text(encoding="utf-8")
    named = set(NAMED.findall(text))
    assert len(named) >= 30, "the page names its modules as `src/...py` paths"
    missing = sorted(path for path in named if not (REPO / path).exists())
    assert missing == [], f"docs/architecture.md names modules that do not exist: {missing}"
