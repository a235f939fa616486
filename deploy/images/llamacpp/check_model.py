"""Refuse an assembled GGUF that is not Qwen2.5-Coder-0.5B-Instruct Q4_K_M (a part missing or out of order).

Run: ``python3 check_model.py MODEL.gguf EXPECTED_BYTES`` (the image build does; exit 1 with the reason)
"""

from __future__ import annotations

import sys
from pathlib import Path

from gguf import GGUFReader

# The name carries "AWQ" because Qwen quantised from its AWQ checkpoint; file type 15 is Q4_K_M.
EXPECTED = {"general.name": "Qwen2.5 Coder 0.5B Instruct AWQ", "general.architecture": "qwen2", "general.file_type": 15}


def main() -> None:
    path, expected_bytes = Path(sys.argv[1]), int(sys.argv[2])
    if path.stat().st_size != expected_bytes:
        sys.exit(f"{path}: {path.stat().st_size} bytes, expected {expected_bytes} (a part missing or out of order?)")
    reader = GGUFReader(path, "r")
    for key, expected in EXPECTED.items():
        field = reader.get_field(key)
        found = field.contents() if field is not None else None
        if found != expected:
            sys.exit(f"{path}: GGUF metadata {key} is {found!r}, expected {expected!r}")


if __name__ == "__main__":
    main()
