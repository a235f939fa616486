"""A new user's first run, measured: a clean clone, no .env, `make up`, wait for the self-check; then `make down`
and `make up` again (warm); after the first, the same question a few times more (`make check`: a person's first
questions, asked once make up's own check has run). Prints a table, never asserts.

    python -m bench.first_run            # images as they are on the engine
    python -m bench.first_run --cold     # from an empty image store: REMOVES every image on the engine first
    python -m bench.first_run --cold --log /tmp/up.log   # make's output too, each line behind its second

The clone is `git clone` of this checkout's HEAD into a scratch folder, so nothing of the working tree (its .env,
its vault, its secrets) leaks in. The one thing it is given is the embedding model (`--models`, default this
checkout's models/): `make up` would build it (`make models`, ~30 s-2.5 min), which is not what is measured here.
Besides the times: how many lines `make up` printed (the quiet run: one per phase and the final block), and the
untagged images the builds left behind (none should be). It runs under its own
project name and ports so a stack you run yourself is left alone. Goals (issue 13, 2 cores, small model): cold
<= 10 min, warm <= 60 s, first answer <= 30 s after healthy.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.tables import print_value_table

REPO = Path(__file__).resolve().parents[1]
PROJECT = "sentinel-firstrun"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _clone(root: Path, models: Path) -> Path:
    clone = root / "sentinel"
    subprocess.run(["git", "clone", "-q", str(REPO), str(clone)], check=True)
    (clone / "models").symlink_to(models.resolve())
    return clone


def _environment() -> dict[str, str]:
    """No Sentinel or stack setting from the caller's shell: only a project name and free ports of its own."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SENTINEL_", "STACK_", "WEBUI_", "COMPOSE_"))}
    env.update(
        COMPOSE_PROJECT_NAME=PROJECT,
        OPENWEBUI_PORT=str(_free_port()),
        API_PORT=str(_free_port()),
        EMBEDDER_PORT=str(_free_port()),
        OLLAMA_PORT=str(_free_port()),
    )
    return env


def _make_up(clone: Path, env: dict[str, str], log: Path | None) -> dict[str, float | str]:
    """Run `make up`, timestamping the lines that say healthy and the self-check's answer; with a log, every
    line goes there behind its second (which build step a slow run spent its time in)."""
    started = time.monotonic()
    marks: dict[str, float | str] = {}
    tail: list[str] = []
    printed = 0
    with subprocess.Popen(
        ["make", "up"], cwd=clone, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    ) as proc:
        assert proc.stdout is not None
        for line in proc.stdout:
            printed += 1
            tail = [*tail[-40:], line.rstrip()]
            if log is not None:
                with log.open("a") as out:
                    out.write(f"{time.monotonic() - started:7.1f} {line}")
            if line.startswith("Sentinel is up"):
                marks["healthy_s"] = time.monotonic() - started
            elif "self-check" in line:
                marks["answer_s"] = time.monotonic() - started
                marks["self_check"] = line.strip()
    marks["total_s"] = time.monotonic() - started
    marks["lines"] = printed
    marks["last_line"] = tail[-1] if tail else ""
    if "healthy_s" not in marks:
        sys.exit("make up did not bring the stack up:\n" + "\n".join(tail))
    return marks


def _images(env: dict[str, str], clone: Path) -> list[tuple[str, str]]:
    out = subprocess.run(
        ["docker", "compose", "-p", PROJECT, "--project-directory", str(clone), "ps", "-a", "--format", "json"],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    ).stdout
    images = sorted({json.loads(line)["Image"] for line in out.splitlines() if line.startswith("{")})
    rows = []
    for image in images:
        size = subprocess.run(
            ["docker", "image", "inspect", "--format", "{{.Size}}", image], capture_output=True, text=True, check=False
        ).stdout.strip()
        rows.append((f"image {image}", f"{int(size) / 1e6:.0f} MB" if size else "?"))
    dangling = subprocess.run(
        ["docker", "image", "ls", "-q", "--filter", "dangling=true", "--filter", "label=org.sentinel.stack=1"],
        capture_output=True,
        text=True,
        check=False,
    ).stdout.split()
    rows.append(("untagged images the build left (labelled as the stack's)", str(len(dangling))))
    return rows


def _next_questions(clone: Path, env: dict[str, str], count: int) -> list[tuple[str, str]]:
    """The same question again through `make check`, as a person's first questions come after make up's own
    check: the model server has the system prompt and tool schemas in its prompt cache by then."""
    rows = []
    for index in range(1, count + 1):
        started = time.monotonic()
        done = subprocess.run(["make", "check"], cwd=clone, env=env, capture_output=True, text=True, check=False)
        said = next((line.strip() for line in done.stdout.splitlines() if "self-check" in line), done.stdout[-160:])
        rows.append((f"  question {index} after make up", f"{time.monotonic() - started:.0f} s: {said}"))
    return rows


def _rows(label: str, marks: dict[str, float | str]) -> list[tuple[str, str]]:
    rows = [(f"{label}: make up to healthy", f"{marks['healthy_s']:.0f} s")]
    rows.append((f"{label}: lines make up printed", str(marks["lines"])))
    if "answer_s" in marks:
        after = float(marks["answer_s"]) - float(marks["healthy_s"])
        rows.append((f"{label}: first answer after healthy", f"{after:.0f} s"))
        rows.append((f"{label}: self-check", str(marks["self_check"])))
    else:  # the check died before its verdict (a timeout, an error): what make said last
        rows.append((f"{label}: self-check", f"no verdict; make ended with: {marks['last_line']}"))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cold", action="store_true", help="remove every image on the engine first")
    parser.add_argument("--models", type=Path, default=REPO / "models", help="folder holding multilingual-e5-small")
    parser.add_argument("--log", type=Path, help="append make's output here, each line behind its second")
    parser.add_argument("--questions", type=int, default=3, help="questions asked again after the cold make up")
    args = parser.parse_args()
    if not (args.models / "multilingual-e5-small").is_dir():
        sys.exit(f"{args.models}/multilingual-e5-small is missing: make models (or hf download, see README)")

    with tempfile.TemporaryDirectory(prefix="sentinel-firstrun-") as tmp:
        clone, env = _clone(Path(tmp), args.models), _environment()
        if args.cold:
            ids = subprocess.run(["docker", "image", "ls", "-aq"], capture_output=True, text=True).stdout.split()
            subprocess.run(["docker", "image", "rm", "-f", *ids], capture_output=True, check=False)
            subprocess.run(["docker", "builder", "prune", "-af"], capture_output=True, check=False)
        rows: list[tuple[str, str]] = []
        try:
            first = _make_up(clone, env, args.log)
            rows += _rows("cold" if args.cold else "first (images as they were)", first)
            rows += _next_questions(clone, env, args.questions)
            rows += _images(env, clone)
            subprocess.run(["make", "down"], cwd=clone, env=env, capture_output=True, check=True)
            rows += _rows("warm", _make_up(clone, env, args.log))
        finally:
            subprocess.run(["make", "down"], cwd=clone, env=env, capture_output=True, check=False)
    cpu = subprocess.run(
        "grep -o 'avx512[a-z_0-9]*\\|avx_vnni\\|avx2' /proc/cpuinfo | sort -u | tr '\\n' ' '",
        shell=True,
        capture_output=True,
        text=True,
        check=False,
    ).stdout.strip()
    rows.append(("CPU flags", cpu or "?"))
    rows.append(("load average at the end", " ".join(f"{x:.1f}" for x in os.getloadavg())))
    print_value_table("first run", rows)


if __name__ == "__main__":
    main()
