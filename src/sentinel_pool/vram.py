"""Free and total GPU memory of this machine, for the election and routing, from whatever the machine has:

- NVIDIA: ``nvidia-smi --query-gpu=memory.free,memory.total --format=csv,noheader,nounits`` (MiB per GPU);
- AMD: ``rocm-smi --showmeminfo vram --json`` (bytes per card), else the amdgpu driver's sysfs files
  ``/sys/class/drm/card*/device/mem_info_vram_total`` and ``mem_info_vram_used`` (bytes), which need no ROCm;
- Apple silicon: unified memory. The GPU may wire at most ``iogpu.wired_limit_mb`` when set, else about 75% of
  ``hw.memsize`` (Metal's recommended working set on these machines), and what is free now is what ``vm_stat``
  counts free, inactive, speculative or purgeable: the smaller of the two;
- otherwise **unknown** (None, None): routing then neither rewards nor punishes the node for its memory.

Every parser takes the tool's real output as text, so each format is tested on what the tool prints.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

MIB = 1024 * 1024
APPLE_GPU_SHARE = 0.75
SYSFS_DRM = Path("/sys/class/drm")


@dataclass(frozen=True)
class Vram:
    free_mb: int | None
    total_mb: int | None
    source: str  # nvidia-smi, rocm-smi, amdgpu-sysfs, apple-unified, unknown


UNKNOWN = Vram(None, None, "unknown")


def parse_nvidia_smi(text: str) -> Vram | None:
    rows = [line.split(",") for line in text.splitlines() if line.strip()]
    if not rows:
        return None
    try:
        return Vram(sum(int(r[0]) for r in rows), sum(int(r[1]) for r in rows), "nvidia-smi")
    except (ValueError, IndexError):
        return None


def parse_rocm_smi(text: str) -> Vram | None:
    """``rocm-smi --showmeminfo vram --json``: ``{"card0": {"VRAM Total Memory (B)": "...", "VRAM Total Used
    Memory (B)": "..."}, ...}``, summed over the cards."""
    try:
        cards = json.loads(text)
        pairs = [
            (int(card["VRAM Total Memory (B)"]), int(card["VRAM Total Used Memory (B)"]))
            for name, card in cards.items()
            if name.startswith("card")
        ]
    except (json.JSONDecodeError, AttributeError, KeyError, TypeError, ValueError):
        return None
    if not pairs:
        return None
    total, used = sum(t for t, _ in pairs), sum(u for _, u in pairs)
    return Vram((total - used) // MIB, total // MIB, "rocm-smi")


def read_amdgpu_sysfs(root: Path = SYSFS_DRM) -> Vram | None:
    """The amdgpu driver's counters (bytes), summed over the cards that have them (integrated GPUs included)."""
    total = used = 0
    for device in sorted(root.glob("card[0-9]*/device")):
        try:
            card_total = int((device / "mem_info_vram_total").read_text().strip())
            card_used = int((device / "mem_info_vram_used").read_text().strip())
        except (OSError, ValueError):
            continue
        total, used = total + card_total, used + card_used
    return Vram((total - used) // MIB, total // MIB, "amdgpu-sysfs") if total else None


def parse_apple(memsize: str, vm_stat: str, wired_limit_mb: str = "0") -> Vram | None:
    """``sysctl -n hw.memsize``, ``vm_stat`` and ``sysctl -n iogpu.wired_limit_mb`` (0 or absent: the default)."""
    try:
        total_bytes = int(memsize.strip())
    except ValueError:
        return None
    page = re.search(r"page size of (\d+) bytes", vm_stat)
    if page is None:
        return None
    counts = {
        key.strip().lower(): int(value)
        for key, value in re.findall(r"^([A-Za-z][A-Za-z \-]*):\s+(\d+)\.", vm_stat, flags=re.MULTILINE)
    }
    pages = sum(counts.get(k, 0) for k in ("pages free", "pages inactive", "pages speculative", "pages purgeable"))
    limit = int(wired_limit_mb.strip()) if wired_limit_mb.strip().isdigit() else 0
    gpu_total_mb = limit or int(total_bytes * APPLE_GPU_SHARE) // MIB
    return Vram(min(pages * int(page.group(1)) // MIB, gpu_total_mb), gpu_total_mb, "apple-unified")


def _run(*argv: str) -> str | None:
    executable = shutil.which(argv[0])
    if executable is None:
        return None
    try:
        done = subprocess.run([executable, *argv[1:]], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout if done.returncode == 0 else None


def probe_vram(nvidia: str = "nvidia-smi", rocm: str = "rocm-smi", sysfs: Path = SYSFS_DRM) -> Vram:
    """The first source this machine has, in the order of the module's docstring."""
    query = ("--query-gpu=memory.free,memory.total", "--format=csv,noheader,nounits")
    if (text := _run(nvidia, *query)) is not None and (found := parse_nvidia_smi(text)):
        return found
    if (text := _run(rocm, "--showmeminfo", "vram", "--json")) is not None and (found := parse_rocm_smi(text)):
        return found
    if found := read_amdgpu_sysfs(sysfs):
        return found
    if sys.platform == "darwin":
        memsize, vm_stat = _run("sysctl", "-n", "hw.memsize"), _run("vm_stat")
        if (
            memsize
            and vm_stat
            and (found := parse_apple(memsize, vm_stat, _run("sysctl", "-n", "iogpu.wired_limit_mb") or "0"))
        ):
            return found
    return UNKNOWN
