"""Free VRAM from each kind of machine, parsed from what its tools print (``fixtures/``: the output formats of
rocm-smi 6 and macOS's vm_stat; the amdgpu driver's sysfs files as a directory tree), and the probe's order: a
stand-in ``rocm-smi`` on PATH is found when there is no nvidia-smi, and a machine with none is "unknown"."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from sentinel_pool.registry import BackendRecord, NodeRecord, Snapshot
from sentinel_pool.routing import rank
from sentinel_pool.vram import (
    UNKNOWN,
    Vram,
    parse_apple,
    parse_nvidia_smi,
    parse_rocm_smi,
    probe_vram,
    read_amdgpu_sysfs,
)

FIXTURES = Path(__file__).parent / "fixtures"
MIB = 1024 * 1024


def _sysfs(root: Path, cards: dict[str, tuple[int, int]]) -> Path:
    for card, (total, used) in cards.items():
        device = root / card / "device"
        device.mkdir(parents=True)
        (device / "mem_info_vram_total").write_text(f"{total}\n")
        (device / "mem_info_vram_used").write_text(f"{used}\n")
    (root / "card0-DP-1").mkdir()  # a connector, not a card: no device counters
    return root


def test_each_format_is_read_as_the_tool_prints_it(tmp_path: Path) -> None:
    assert parse_nvidia_smi("81000, 81559\n1000, 24564\n") == Vram(82000, 106123, "nvidia-smi")
    rocm = parse_rocm_smi((FIXTURES / "rocm-smi-showmeminfo-vram.json").read_text())
    assert rocm == Vram((25753026560 - 1372106752 + 17163091968 - 15032385536) // MIB, 40928, "rocm-smi")
    assert parse_rocm_smi("WARNING: No AMD GPUs specified") is None
    sysfs = read_amdgpu_sysfs(_sysfs(tmp_path, {"card0": (17163091968, 1073741824), "card1": (536870912, 268435456)}))
    assert sysfs == Vram(16880 - 1280, 16880, "amdgpu-sysfs")  # 16 GiB + 512 MiB, 1.25 GiB used
    assert read_amdgpu_sysfs(tmp_path / "nothing") is None
    vm_stat = (FIXTURES / "vm_stat.txt").read_text()
    apple = parse_apple("34359738368\n", vm_stat)  # a 32 GiB Mac: the GPU may wire about 24 GiB
    assert apple == Vram((6093 + 343312 + 4123 + 11233) * 16384 // MIB, 24576, "apple-unified")
    assert parse_apple("34359738368", vm_stat, "30000\n") == Vram(5699, 30000, "apple-unified")  # the limit raised
    assert parse_apple("not a number", vm_stat) is None


def test_the_probe_takes_the_first_source_the_machine_has(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # rocm-smi cannot run here: a script printing its recorded output stands in, found on PATH like the real one
    fake = tmp_path / "rocm-smi"
    fake.write_text(f"#!/bin/sh\ncat {FIXTURES / 'rocm-smi-showmeminfo-vram.json'}\n")
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    none = tmp_path / "no-drm"
    assert probe_vram(nvidia="no-such-nvidia-smi", sysfs=none).source == "rocm-smi"
    sysfs = _sysfs(tmp_path / "drm", {"card0": (8 * 1024 * MIB, 1024 * MIB)})
    assert probe_vram(nvidia="no-such-nvidia-smi", rocm="no-such-rocm-smi", sysfs=sysfs).free_mb == 7 * 1024
    assert probe_vram(nvidia="no-such-nvidia-smi", rocm="no-such-rocm-smi", sysfs=none) == UNKNOWN


def test_unknown_vram_neither_helps_nor_hurts_a_node() -> None:
    backend = BackendRecord(url="http://x/v1", kind="openai", models=["m"], loaded=["m"])
    pool = Snapshot(
        [NodeRecord(node="known", vram_free_mb=0, backends=[backend]), NodeRecord(node="mystery", backends=[backend])]
    )
    ranked = {c.node: c for c in rank(pool, "m")}
    assert ranked["known"].score == ranked["mystery"].score
    assert "free VRAM unknown (+0)" in ranked["mystery"].reasons
