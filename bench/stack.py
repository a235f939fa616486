"""How long `make up` takes and what the stack costs: a table, never an assertion.

    python -m bench.stack            # first up (images as they are), warm restart, image sizes, idle memory
    python -m bench.stack --cold     # the same from an empty image store: REMOVES the stack's images (and any
                                     # untagged image) first

Runs `make up` / `make down` on a project of its own (sentinel-bench) with a throwaway vault and data folder,
so a stack you run yourself is left alone (nor its .env, secrets or model choice read or written), plus
compose.test.yaml: the embedded llama.cpp server (one thread) stands in for Ollama. It times `make up` to healthy,
without the self-check (bench/first_run.py measures that).
Needs `make models` and `make llm` (the models) and, with --cold, the network for apt and PyPI.
Targets from the brief: cold <= 10 min including builds, warm restart <= 60 s.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PROJECT = "sentinel-bench"
# Images `make up` builds in STACK_IMAGES=local mode (mk/docker.mk), removed by --cold.
BUILT_IMAGES = [
    "local/pybase:bookworm",
    "local/open-webui:0.12.4",
    "local/redis:bookworm",
    "sentinel-api:local",
    "sentinel-worker:local",
    "sentinel-embedder:local",
    "sentinel-llamacpp:local",
]
IDLE_SETTLE_S = 30


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _environment(root: Path) -> dict[str, str]:
    uid = os.getuid() or 4242  # as root, a non-root host user, as the stack test does
    for folder in ("vault/notes", "data"):
        (root / folder).mkdir(parents=True)
    for path in [root / "vault", root / "vault/notes", root / "data"]:
        os.chown(path, uid, uid)
    (root / "empty.env").write_text("")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SENTINEL_", "COMPOSE_"))}
    env.update(
        COMPOSE_PROJECT_NAME=PROJECT,
        APP_UID=str(uid),
        APP_GID=str(uid),
        SENTINEL_VAULT=str(root / "vault"),
        STACK_DATA_DIR=str(root / "data"),
        STACK_ENV_FILE=str(root / "empty.env"),
        STACK_API_KEY=secrets.token_hex(16),
        WEBUI_SECRET_KEY=secrets.token_hex(16),
        WEBUI_ADMIN_PASSWORD=secrets.token_hex(8),
        API_PORT=str(_free_port()),
        OPENWEBUI_PORT=str(_free_port()),
        EMBEDDER_PORT=str(_free_port()),
        # A real local model stands in for the user's Ollama: Open WebUI lists it, the setup step wraps it.
        STACK_OVERRIDES="compose.test.yaml",
        STACK_MODEL_SERVER="llamacpp",
        STACK_DOTENV=str(root / "empty.env"),
        STACK_SECRETS_FILE=str(root / "secrets.env"),
        STACK_MODELS_FILE=str(root / "models.env"),
        SELF_CHECK="0",
    )
    return env


def _timed(command: list[str], env: dict[str, str]) -> float:
    started = time.monotonic()
    done = subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True, check=False)
    elapsed = time.monotonic() - started
    if done.returncode != 0:
        sys.exit(f"{' '.join(command)} failed ({done.returncode}):\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    return elapsed


def _containers(env: dict[str, str]) -> list[dict[str, str]]:
    out = subprocess.run(
        ["docker", "compose", "--project-directory", str(REPO), "-p", PROJECT, "ps", "--format", "json"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return [json.loads(line) for line in out.splitlines() if line.startswith("{")]


def _image_size_mb(image: str) -> float:
    out = subprocess.run(
        ["docker", "image", "inspect", "--format", "{{.Size}}", image], capture_output=True, text=True, check=False
    ).stdout.strip()
    return int(out) / 1e6 if out else float("nan")


def _memory_mb(container: str) -> float:
    out = subprocess.run(
        ["docker", "stats", "--no-stream", "--format", "{{.MemUsage}}", container],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    used = out.split("/")[0].strip()
    number, unit = float(used.rstrip("KMGiB")), used.lstrip("0123456789.")
    return number * {"KiB": 1 / 1024, "MiB": 1.0, "GiB": 1024.0, "B": 1 / 1024**2}.get(unit, float("nan"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cold", action="store_true", help="remove the stack's images first (rebuilds everything)")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="sentinel-bench-") as tmp:
        env = _environment(Path(tmp))
        if args.cold:
            subprocess.run(["docker", "image", "rm", "-f", *BUILT_IMAGES], capture_output=True, check=False)
            # Untagged leftovers of earlier builds would still serve as layer cache.
            subprocess.run(["docker", "image", "prune", "-f"], capture_output=True, check=False)
        rows: list[tuple[str, str]] = []
        try:
            first = _timed(["make", "up"], env)
            rows.append(
                ("cold make up (builds + healthy)" if args.cold else "first make up (cached images)", f"{first:.0f} s")
            )
            _timed(["make", "down"], env)
            rows.append(("warm restart: make up after make down", f"{_timed(['make', 'up'], env):.0f} s"))
            time.sleep(IDLE_SETTLE_S)
            for row in sorted(_containers(env), key=lambda r: r["Service"]):
                rows.append((f"idle memory {row['Service']}", f"{_memory_mb(row['Name']):.0f} MiB"))
            for image in sorted({row["Image"] for row in _containers(env)}):
                rows.append((f"image {image}", f"{_image_size_mb(image):.0f} MB"))
        finally:
            subprocess.run(["make", "down"], cwd=REPO, env=env, capture_output=True, check=False)

    width = max(len(name) for name, _ in rows)
    print(f"| {'measure'.ljust(width)} | value |\n|{'-' * (width + 2)}|-------|")
    for name, value in rows:
        print(f"| {name.ljust(width)} | {value} |")


if __name__ == "__main__":
    main()
