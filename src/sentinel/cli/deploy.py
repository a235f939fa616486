"""``sentinel deploy install``: run Sentinel without Docker, as systemd user units with a persistent timer.

The unit templates live in ``deploy/systemd/`` of the checkout (the services run from there: ``services/`` is not
part of the installed package). Each unit starts ``sys.executable``, so it points at the Python this command ran
under: run it from inside the project's venv.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path
from typing import Annotated
from urllib.parse import urlsplit

import typer

import sentinel
from sentinel.cli.common import settings_of
from sentinel.errors import BadInput
from sentinel.maintain.schedule import BadScheduleTime, parse_at
from sentinel.settings import Settings

app = typer.Typer(no_args_is_help=True, help="Run Sentinel as systemd user services.")

SERVICES = ("sentinel-embedder.service", "sentinel-api.service", "sentinel-worker.service")
TIMER = "sentinel-maintenance.timer"
UNITS = (*SERVICES, "sentinel-maintenance.service", TIMER)
DEFAULT_EMBEDDER_PORT = 8001
_PLACEHOLDER = re.compile(r"@[A-Z_]+@")


class DeployError(BadInput, ValueError):
    """The units cannot be written as asked; the message says what to change."""


def default_repo() -> Path:
    """The checkout this package was installed from (an editable install: <repo>/src/sentinel)."""
    return Path(sentinel.__file__).resolve().parents[2]


def default_unit_dir() -> Path:
    config = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(config) / "systemd" / "user"


def embedder_port(settings: Settings) -> int:
    """The embedder's port: the one SENTINEL_EMBEDDER_URL names, else the stack's default."""
    if not settings.embedder_url:
        return DEFAULT_EMBEDDER_PORT
    try:
        port = urlsplit(settings.embedder_url).port
    except ValueError as err:
        raise DeployError(f"SENTINEL_EMBEDDER_URL={settings.embedder_url!r} has a bad port: {err}") from err
    return port or DEFAULT_EMBEDDER_PORT


def render_units(settings: Settings, repo: Path, python: Path) -> dict[str, str]:
    """The unit files' text by name, every placeholder filled."""
    templates = repo / "deploy" / "systemd"
    if not (repo / "services").is_dir() or not templates.is_dir():
        raise DeployError(
            f"{repo} is not a Sentinel checkout (no services/ or deploy/systemd/): pass --repo <the cloned folder>"
        )
    try:
        at = parse_at(settings.maintain_at)
    except BadScheduleTime as err:
        raise DeployError(str(err)) from err
    values = {
        "@REPO@": str(repo),
        "@PYTHON@": str(python),
        "@EMBEDDER_PORT@": str(embedder_port(settings)),
        "@AT@": f"{at.hour:02d}:{at.minute:02d}",
    }
    units = {}
    for name in UNITS:
        template = templates / f"{name}.in"
        if not template.is_file():
            raise DeployError(f"{template} is missing: the checkout at {repo} is incomplete")
        text = template.read_text()
        for placeholder, value in values.items():
            text = text.replace(placeholder, value)
        leftover = _PLACEHOLDER.search(text)
        if leftover:
            raise DeployError(f"{template} has a placeholder this version does not fill: {leftover.group(0)}")
        units[name] = text
    return units


def next_steps(unit_dir: Path) -> list[str]:
    """What to run after the files are written (printed, never run: enabling services is the user's call)."""
    return [
        "systemctl --user daemon-reload",
        f"systemctl --user enable --now {' '.join(SERVICES)} {TIMER}",
        "loginctl enable-linger $USER   # keep services and timer running after logout (sudo without polkit)",
        f"systemctl --user list-timers {TIMER}   # check that the timer took",
        f"# units written to {unit_dir}; Redis must be running at SENTINEL_REDIS_URL for the worker",
    ]


@app.command("install")
def install(
    ctx: typer.Context,
    unit_dir: Annotated[
        Path | None, typer.Option(help="Where to write the units (default: ~/.config/systemd/user).")
    ] = None,
    repo: Annotated[
        Path | None, typer.Option(help="The Sentinel checkout the services run from (default: this package's).")
    ] = None,
) -> None:
    """Write the systemd user units (embedder, API, worker, the one nightly timer) and say how to start them."""
    settings = settings_of(ctx)
    target = unit_dir or default_unit_dir()
    units = render_units(settings, (repo or default_repo()).resolve(), Path(sys.executable))
    target.mkdir(parents=True, exist_ok=True)
    for name, text in units.items():
        (target / name).write_text(text)
        typer.echo(f"wrote {target / name}")
    typer.echo("next:")  # plain echo: rich would wrap the commands, which are meant to be copied
    for line in next_steps(target):
        typer.echo(f"  {line}")
