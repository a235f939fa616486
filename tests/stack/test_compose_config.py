"""What `make up` would run, rendered by `docker compose config` from make's own command line (`make
stack-settings`): on the official path every image reference and build argument, on the local path the offline
images; the chat connection in one place; settings read from .env; `down` covering every profile and orphans.
And what a plain `docker compose up` runs with nothing set: no variable required, every service after init,
secrets from files. Needs only the compose binary, no engine and no registry.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tomllib
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
OFFICIAL = {"ollama": "ollama/ollama:latest", "ollama-pull": "ollama/ollama:latest"}
# Official images under a local name: built FROM the official image where a registry answers; `make images` tags
# the offline builds with the same name where none does.
RENAMED = {
    "redis": ("sentinel-redis:local", "redis:7-alpine"),
    "open-webui": ("sentinel-open-webui:local", "ghcr.io/open-webui/open-webui:main"),
}
SERVICES_DOCKERFILE = "services/Dockerfile"
OWN = {  # service: (image, Dockerfile and target, or None where the service reuses another's image)
    "embedder": ("sentinel-embedder:local", (SERVICES_DOCKERFILE, "embedder")),
    "api": ("sentinel-api:local", (SERVICES_DOCKERFILE, "api")),
    "worker": ("sentinel-worker:local", (SERVICES_DOCKERFILE, "worker")),
    "llm": ("sentinel-llamacpp:local", ("Dockerfile", None)),
    "beat": ("sentinel-worker:local", None),
    "openwebui-setup": ("sentinel-api:local", None),
    "llm-warm": ("sentinel-api:local", None),
    "init": ("sentinel-api:local", None),
}

pytestmark = pytest.mark.skipif(
    subprocess.run(["docker", "compose", "version"], capture_output=True, check=False).returncode != 0,
    reason="no `docker compose`: make docker-tools installs it",
)


def _make(tmp_path: Path, *args: str, dotenv: str = "") -> list[str]:
    (tmp_path / "dotenv").write_text(dotenv)
    files = [f"STACK_DOTENV={tmp_path / 'dotenv'}", f"STACK_SECRETS_FILE={tmp_path / 'none'}"]
    files.append(f"STACK_MODELS_FILE={tmp_path / 'none'}")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("STACK_", "APP_", "SENTINEL_", "GPU"))}
    done = subprocess.run(
        ["make", "-s", "-C", str(REPO), *files, "GPU=0", *args],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    return done.stdout.splitlines()


def _config(tmp_path: Path, images: str, dotenv: str = "", profiles: tuple[str, ...] = ()) -> dict[str, Any]:
    _, command = _make(tmp_path, "stack-settings", f"STACK_IMAGES={images}", dotenv=dotenv)
    chosen = " ".join(f"--profile {p}" for p in ("ollama", *profiles))
    rendered = subprocess.run(
        ["bash", "-c", f"{command} {chosen} config --format json"],
        capture_output=True,
        text=True,
        check=True,
    )
    return dict(json.loads(rendered.stdout)["services"])


def test_official_path_pulls_official_images_and_builds_only_sentinels_own(tmp_path: Path) -> None:
    services = _config(tmp_path, "official")
    assert set(services) == set(OFFICIAL) | set(RENAMED) | set(OWN)
    for name, image in OFFICIAL.items():
        assert services[name]["image"] == image, name
        assert "build" not in services[name], f"{name} must be pulled, not built"
    for name, (image, official) in RENAMED.items():
        assert services[name]["image"] == image, name
        # a file, not dockerfile_inline, which the classic builder ignores (it built the offline Dockerfile)
        build = services[name]["build"]
        assert (build["dockerfile"], build["args"]["IMAGE"]) == ("official.Dockerfile", official), name
        assert (REPO / "deploy" / "images" / Path(build["context"]).name / build["dockerfile"]).is_file(), name
    for name, (image, built) in OWN.items():
        service = services[name]
        assert service["image"] == image, name
        if built is None:
            assert "build" not in service, name
        else:
            assert (service["build"]["dockerfile"], service["build"].get("target")) == built, name
            assert service["build"]["args"]["BASE_IMAGE"] == "python:3.11-slim", name
    # no registry has the images this file builds: a missing one is built, never first pulled
    for name in (*RENAMED, *OWN):
        assert services[name]["pull_policy"] == "never", name


def test_each_service_image_is_a_target_of_the_one_dockerfile_with_known_extras(tmp_path: Path) -> None:
    """The steps the images share live once (the `base` stage): compose names a target of it that exists, and
    extras pyproject defines (services/requirements.py would refuse an unknown one only at build time)."""
    dockerfile = (REPO / SERVICES_DOCKERFILE).read_text()
    stages = {stage: parent for parent, stage in re.findall(r"^FROM (\S+) AS (\S+)$", dockerfile, re.MULTILINE)}
    extras = set(tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["optional-dependencies"])
    services = _config(tmp_path, "official", profiles=("research",))
    built = {
        name: s["build"] for name, s in services.items() if s.get("build", {}).get("dockerfile") == SERVICES_DOCKERFILE
    }
    assert sorted(built) == ["api", "embedder", "searcher", "worker"]
    for name, build in built.items():
        assert build["target"] == name and stages.get(name) == "base", f"{name}: no stage {name} FROM base"
        wanted = build["args"]["EXTRAS"].split()
        assert wanted and set(wanted) <= extras, f"{name}: extras {wanted}, pyproject defines {sorted(extras)}"
    assert built["embedder"]["args"]["IMPORTS"] == "onnxruntime tokenizers"


def test_local_path_builds_on_the_offline_images(tmp_path: Path) -> None:
    services = _config(tmp_path, "local")
    for name, (image, _) in RENAMED.items():  # the offline builds, tagged with these names by `make images`
        assert services[name]["image"] == image, name
    for name in ("embedder", "api", "worker", "llm"):
        assert services[name]["build"]["args"]["BASE_IMAGE"] == "local/pybase:bookworm", name


def test_chat_goes_through_the_api_s_gateway_which_serves_the_model_server(tmp_path: Path) -> None:
    services = _config(tmp_path, "official")
    owui, api = services["open-webui"]["environment"], services["api"]["environment"]
    assert (owui["OPENAI_API_BASE_URL"], owui["OPENAI_API_KEY"]) == ("http://api:8000/v1", "")
    assert "OPENAI_API_KEY={STACK_API_KEY}" in owui["SENTINEL_SECRET_ENV"].split()  # from the file, at start
    assert owui["ENABLE_OLLAMA_API"] == "false" and owui["DEFAULT_MODELS"] == "sentinel"
    assert json.loads(api["SENTINEL_POOL__BACKENDS"]) == ["openai=http://llm:8080/v1"]
    # the worker's roles talk to the model server itself, not through the chat connection
    assert services["worker"]["environment"]["SENTINEL_SUMMARY__BASE_URL"] == "http://llm:8080/v1"


def test_the_model_server_and_the_chat_connection_are_one_setting_each(tmp_path: Path) -> None:
    host = "STACK_MODEL_URL=http://host.docker.internal:11434/v1\n"
    api = _config(tmp_path, "official", dotenv=host)["api"]["environment"]
    assert json.loads(api["SENTINEL_POOL__BACKENDS"]) == ["openai=http://host.docker.internal:11434/v1"]
    upstream = "SENTINEL_CHAT_UPSTREAM=http://llm:8080/v1\nSENTINEL_CHAT_UPSTREAM_KEY=none\n"
    owui = _config(tmp_path, "official", dotenv=upstream)["open-webui"]["environment"]
    assert (owui["OPENAI_API_BASE_URL"], owui["OPENAI_API_KEY"]) == ("http://llm:8080/v1", "none")


def test_one_setting_moves_every_role_and_open_webui_onto_the_pool(tmp_path: Path) -> None:
    dotenv = "STACK_POOL_URL=http://gpu-1.local:50053/v1\nSTACK_POOL_KEY=pool-key\n"
    services = _config(tmp_path, "official", dotenv=dotenv)
    for service in ("api", "worker"):
        environment = services[service]["environment"]
        for role in ("CONVERSATION", "EXTRACTION", "SUMMARY"):
            assert environment[f"SENTINEL_{role}__BASE_URL"] == "http://gpu-1.local:50053/v1"
            assert environment[f"SENTINEL_{role}__API_KEY_ENV"] == "STACK_POOL_KEY"
        assert environment["STACK_POOL_KEY"] == "pool-key"
    owui = services["open-webui"]["environment"]
    assert (owui["OPENAI_API_BASE_URL"], owui["OPENAI_API_KEY"]) == ("http://gpu-1.local:50053/v1", "pool-key")
    # without it, nothing changes: roles on the model server, chat through the API's gateway, no key asked
    default = _config(tmp_path, "official")
    assert default["worker"]["environment"]["SENTINEL_SUMMARY__API_KEY_ENV"] == ""
    assert default["open-webui"]["environment"]["OPENAI_API_BASE_URL"] == "http://api:8000/v1"


def test_the_warm_up_runs_once_beside_open_webui_s_start_on_its_chat_connection(tmp_path: Path) -> None:
    """llm-warm waits for the model server only, never for the API or Open WebUI (it is meant to run while they
    start), runs once, and fills the model server Open WebUI's chat ends at: the stack's own, else the one Open
    WebUI is pointed at instead, with its key."""
    services = _config(tmp_path, "official")
    warm, owui = services["llm-warm"], services["open-webui"]["environment"]
    # it stays up once done (else `up --wait` takes its exit (0) for a failure when it ends before it looks), and
    # nothing waits for it: the setup step once did, which put its prefill on the start's critical path
    assert warm["command"] == ["sh", "-c", "sentinel openwebui warm && exec sleep infinity"]
    assert warm["restart"] == "no"
    assert not any("llm-warm" in service.get("depends_on", {}) for service in services.values())
    depends = {name: (d["condition"], d["required"]) for name, d in warm["depends_on"].items()}
    assert depends == {
        "init": ("service_completed_successfully", True),
        "llm": ("service_healthy", False),
        "ollama-pull": ("service_completed_successfully", False),
    }
    environment = warm["environment"]
    assert owui["OPENAI_API_BASE_URL"] == "http://api:8000/v1"  # the gateway, which passes it to the model server
    model_server = services["api"]["environment"]["SENTINEL_CONVERSATION__BASE_URL"]  # the stack's STACK_MODEL_URL
    assert environment["SENTINEL_OPENWEBUI__WARM_URL"] == model_server == "http://llm:8080/v1"
    assert environment["SENTINEL_OPENWEBUI__WARM_KEY"] == ""  # the stack's own model server asks for none
    assert environment["SENTINEL_OPENWEBUI__WARM"] == "1" and environment["SENTINEL_INDEX_PATH"] == "/data/index.db"
    assert any(volume["target"] == "/data" for volume in warm["volumes"])  # where the gateway records the prefix
    upstream = "SENTINEL_CHAT_UPSTREAM=http://llm:8080/v1\nSENTINEL_CHAT_UPSTREAM_KEY=none\nSTACK_WARM=0\n"
    moved = _config(tmp_path, "official", dotenv=upstream)["llm-warm"]["environment"]
    assert (moved["SENTINEL_OPENWEBUI__WARM_URL"], moved["SENTINEL_OPENWEBUI__WARM_KEY"]) == (
        "http://llm:8080/v1",
        "none",
    )
    assert moved["SENTINEL_OPENWEBUI__WARM"] == "0"


def test_make_reads_its_settings_from_env(tmp_path: Path) -> None:
    dotenv = 'STACK_OVERRIDES=compose.test.yaml\nAPP_UID="1234"\nAPP_GID=4321\nSTACK_IMAGES=official\n'
    settings, command = _make(tmp_path, "stack-settings", dotenv=dotenv)
    assert "STACK_IMAGES=official STACK_OVERRIDES=compose.test.yaml APP_UID=1234 APP_GID=4321" in settings
    assert "-f compose.test.yaml" in command and "BASE_IMAGE=local" not in command
    assert f"--env-file {tmp_path / 'dotenv'}" in command


@pytest.mark.skipif(shutil.which("make") is None, reason="no make")
def test_down_stops_every_profile_and_override_service(tmp_path: Path) -> None:
    (line,) = [line for line in _make(tmp_path, "-n", "down", "STACK_IMAGES=local") if "docker compose" in line]
    assert "--profile research --profile ollama down --remove-orphans" in line


def _plain_config(tmp_path: Path) -> dict[str, Any]:
    """`docker compose config` in a folder holding compose.yaml, with no .env and no setting in the environment."""
    shutil.copy(REPO / "compose.yaml", tmp_path / "compose.yaml")
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "DOCKER_HOST")}
    rendered = subprocess.run(
        ["docker", "compose", "config", "--format", "json"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert rendered.returncode == 0, rendered.stderr
    return dict(json.loads(rendered.stdout))


def test_plain_compose_needs_no_variable_and_everything_waits_for_init(tmp_path: Path) -> None:
    config = _plain_config(tmp_path)
    services = config["services"]
    assert set(services) == {"init", "redis", "embedder", "api", "worker", "beat", "open-webui", "openwebui-setup"} | {
        "llm",
        "llm-warm",
    }
    assert services["llm"]["deploy"]["replicas"] == 1  # the offline model server, unless make up chose another
    init = services["init"]
    assert init["command"] == ["init"] and init["restart"] == "no"
    assert {v["target"] for v in init["volumes"]} >= {"/vault", "/data", "/models", "/run/sentinel", "/sentinel"}
    for name, service in services.items():
        if name in ("init", "redis", "llm"):
            continue
        assert service["depends_on"]["init"]["condition"] == "service_completed_successfully", name
        assert service["entrypoint"] == ["/bin/sh", "/sentinel/entrypoint.sh"], name
        assert "user" not in service, f"{name}: the entrypoint drops to the vault owner; a fixed user would win"
    for name in ("redis", "llm"):  # write nothing: nobody
        assert services[name]["user"] == "65534:65534"
    assert config["volumes"]["secrets"]


def test_no_secret_is_a_compose_value_every_one_is_read_from_its_file(tmp_path: Path) -> None:
    services = _plain_config(tmp_path)["services"]
    from_files = {
        name: dict(word.split("=", 1) for word in s.get("environment", {}).get("SENTINEL_SECRET_ENV", "").split())
        for name, s in services.items()
    }
    assert from_files["api"] == {"SENTINEL_API_KEYS": "write:{STACK_API_KEY}"}
    assert from_files["open-webui"] == {
        "WEBUI_SECRET_KEY": "{WEBUI_SECRET_KEY}",
        "WEBUI_ADMIN_PASSWORD": "{WEBUI_ADMIN_PASSWORD}",
        "OPENAI_API_KEY": "{STACK_API_KEY}",
    }
    assert set(from_files["openwebui-setup"]) == {
        "SENTINEL_OPENWEBUI__ADMIN_PASSWORD",
        "SENTINEL_OPENWEBUI__TOOL_API_KEY",
    }
    owui = services["open-webui"]["environment"]
    assert owui["DEFAULT_INTERFACE_SETTINGS"] == '{"showChangelog": false}'  # no "What's New" on first login
    for name, service in services.items():
        for key in ("WEBUI_SECRET_KEY", "WEBUI_ADMIN_PASSWORD", "STACK_API_KEY", "SENTINEL_API_KEYS"):
            assert not service.get("environment", {}).get(key), f"{name}: {key} is set by compose, not read from a file"


def test_the_start_path_is_checked_every_few_seconds(tmp_path: Path) -> None:
    """Engines before Docker 25 (Debian's 20.10) ignore start_interval: a service's first health check comes one
    interval after it starts, and every `service_healthy` link of the start waits for it. Intervals of 15-30 s
    made a warm start wait for them; the worker's costly ping is asked once a minute by its own script."""
    services = _config(tmp_path, "local")
    for name in ("redis", "embedder", "api", "worker", "beat", "open-webui", "llm"):
        interval = services[name]["healthcheck"]["interval"]
        assert interval == "5s", f"{name}: a health check every {interval}"
    assert services["worker"]["healthcheck"]["test"] == ["CMD", "/bin/sh", "/sentinel/worker-health.sh"]
