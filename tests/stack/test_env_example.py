""".env.example documents every setting and every variable the Compose files read."""

from __future__ import annotations

import re
from pathlib import Path

from pydantic import BaseModel

from sentinel.settings import Settings

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = (REPO / ".env.example").read_text()
# Set by make or by the test harness, never by a user's .env.
NOT_USER_SETTINGS = {"COMPOSE_PROJECT_NAME", "STACK_ENV_FILE"}
COMPOSE_FILES = ("compose.yaml", "compose.gpu.yaml", "compose.test.yaml", "compose.embed-lan.yaml")


def _documented(name: str) -> bool:
    return re.search(rf"^(# )?{re.escape(name)}=", EXAMPLE, re.MULTILINE) is not None


def _env_names(model: type[BaseModel], prefix: str) -> list[str]:
    names = []
    for field_name, info in model.model_fields.items():
        kind = info.annotation
        if isinstance(kind, type) and issubclass(kind, BaseModel):
            names += _env_names(kind, f"{prefix}{field_name.upper()}__")
        else:
            names.append(f"{prefix}{field_name.upper()}")
    return names


def test_every_setting_is_documented() -> None:
    missing = [name for name in _env_names(Settings, "SENTINEL_") if not _documented(name)]
    assert not missing, f"add these settings to .env.example (commented, with their default): {missing}"


def test_every_compose_variable_is_documented() -> None:
    text = "".join((REPO / name).read_text() for name in COMPOSE_FILES)
    variables = set(re.findall(r"\$\{([A-Z_][A-Z0-9_]*)", text)) - NOT_USER_SETTINGS
    missing = sorted(name for name in variables if not _documented(name))
    assert not missing, f"add these Compose variables to .env.example: {missing}"
