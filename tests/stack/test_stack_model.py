"""The stack's default chat model by hardware (sentinel.stack_model): the choice table, row by row."""

from __future__ import annotations

from pathlib import Path

import pytest

from sentinel.stack_model import QWEN_3B, QWEN_7B, choose, needed_mib, ram_mib

GIB = 1024


@pytest.mark.parametrize(
    ("vram_gib", "ram_gib", "cores", "model"),
    [
        (24, 64, 16, "qwen2.5:7b"),  # a desktop GPU: the 7B tool-calling model with its whole window
        (8, 16, 8, "qwen2.5:7b"),
        (6, 16, 8, "qwen2.5:7b"),  # 4.7 GB weights + 8k-token cache + overhead: ~5.8 GiB
        (4, 16, 4, "qwen2.5:3b"),  # too small for 7B with its context: the 3B on the GPU
        (2, 8, 4, "qwen2.5:1.5b"),  # a GPU too small for either: the CPU row decides
        (None, 32, 16, "qwen2.5:3b"),  # CPU only, a large machine
        (None, 24, 2, "qwen2.5:1.5b"),  # CPU only, the 2-core machines here
        (None, 8, 16, "qwen2.5:1.5b"),  # many cores, little memory
    ],
)
def test_the_choice_table(vram_gib: int | None, ram_gib: int, cores: int, model: str) -> None:
    choice = choose(None if vram_gib is None else vram_gib * GIB, ram_gib * GIB, cores)
    assert choice.model == model, choice.reason


def test_the_reason_names_what_was_measured() -> None:
    gpu = choose(8 * GIB, 16 * GIB, 8)
    assert "GPU with 8.0 GiB" in gpu.reason and "8192-token context" in gpu.reason
    cpu = choose(None, 24 * GIB, 2)
    assert cpu.reason.startswith("no GPU the stack can use") and "2 cores" in cpu.reason


def test_a_longer_context_needs_more_memory_and_can_tip_the_choice() -> None:
    assert needed_mib(QWEN_7B, 32768) > needed_mib(QWEN_7B, 8192) > needed_mib(QWEN_3B, 8192)
    vram = needed_mib(QWEN_7B, 8192)
    assert choose(vram, 16 * GIB, 8, ctx=8192).model == "qwen2.5:7b"
    assert choose(vram, 16 * GIB, 8, ctx=32768).model == "qwen2.5:3b"


def test_ram_is_read_from_meminfo_and_a_file_without_it_names_the_fix(tmp_path: Path) -> None:
    meminfo = tmp_path / "meminfo"
    meminfo.write_text("MemTotal:       25165824 kB\nMemFree: 1 kB\n")
    assert ram_mib(meminfo) == 24 * GIB
    meminfo.write_text("nothing\n")
    with pytest.raises(SystemExit, match="STACK_OLLAMA_MODEL"):
        ram_mib(meminfo)
