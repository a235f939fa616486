"""The default chat model of the stack's own Ollama, chosen by the machine it runs on (`make up` asks this).

With a GPU the stack can use (the engine has the NVIDIA runtime), the model must fit in its memory together with
its context window: a 7B tool-calling model where it does, a 3B one on a small GPU. On the CPU alone, the size
that answers in seconds: 3B on a large machine, 1.5B otherwise. The llama.cpp fallback (offline, no registry)
is not chosen here: it is the one small model its image carries.

    python3 -m sentinel.stack_model [--gpu] [--ctx 8192]   # prints: model<TAB>reason
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

GIB = 1024  # MiB


@dataclass(frozen=True)
class Candidate:
    model: str
    weights_mib: int  # Ollama's Q4_K_M download
    kv_kib_per_token: int  # K and V, fp16, every layer (grouped-query heads)


# Qwen2.5: tool calling in Ollama's template, the family of the offline fallback (same prompts, same parsing).
QWEN_7B = Candidate("qwen2.5:7b", 4_700, 56)
QWEN_3B = Candidate("qwen2.5:3b", 1_900, 36)
QWEN_1_5B = Candidate("qwen2.5:1.5b", 1_000, 28)
# Compute buffers and the runtime beside weights and cache, measured loosely: a margin, not a promise.
OVERHEAD_MIB = 800
# CPU only: a 3B model answers in seconds only with enough cores; memory must hold it beside the rest of the stack
# (Open WebUI ~1 GiB, the API and embedder ~1 GiB).
CPU_3B_MIN_CORES = 8
CPU_3B_MIN_RAM_MIB = 16 * GIB


@dataclass(frozen=True)
class Choice:
    model: str
    reason: str


def needed_mib(candidate: Candidate, ctx: int) -> int:
    """GPU memory the model takes with a full context window."""
    return candidate.weights_mib + candidate.kv_kib_per_token * ctx // 1024 + OVERHEAD_MIB


def choose(vram_mib: int | None, ram_mib: int, cores: int, ctx: int = 8192) -> Choice:
    """The chat model for this hardware. vram_mib: the largest GPU's memory the stack can use, None without one."""
    if vram_mib is not None:
        for candidate in (QWEN_7B, QWEN_3B):
            need = needed_mib(candidate, ctx)
            if need <= vram_mib:
                return Choice(
                    candidate.model,
                    f"GPU with {vram_mib / GIB:.1f} GiB: {candidate.model} needs ~{need / GIB:.1f} GiB "
                    f"with a {ctx}-token context",
                )
        gpu_note = f"GPU with {vram_mib / GIB:.1f} GiB is too small for qwen2.5:3b and {ctx} tokens; "
    else:
        gpu_note = "no GPU the stack can use; "
    if cores >= CPU_3B_MIN_CORES and ram_mib >= CPU_3B_MIN_RAM_MIB:
        model, why = QWEN_3B.model, f"{cores} cores and {ram_mib / GIB:.0f} GiB RAM answer in seconds with 3B"
    else:
        model, why = (
            QWEN_1_5B.model,
            f"{cores} cores and {ram_mib / GIB:.0f} GiB RAM: 1.5B answers in seconds "
            f"(3B wants >= {CPU_3B_MIN_CORES} cores and {CPU_3B_MIN_RAM_MIB // GIB} GiB)",
        )
    return Choice(model, f"{gpu_note}CPU: {why}")


def largest_gpu_mib() -> int | None:
    """The largest NVIDIA GPU's memory (nvidia-smi), None when there is none or it does not answer."""
    if shutil.which("nvidia-smi") is None:
        return None
    try:
        done = subprocess.run(
            ["nvidia-smi", "--query-gpu=memory.total", "--format=csv,noheader,nounits"],
            capture_output=True,
            text=True,
            timeout=10,
            check=True,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    sizes = [int(line) for line in done.stdout.split() if line.strip().isdigit()]
    return max(sizes) if sizes else None


def ram_mib(meminfo: Path = Path("/proc/meminfo")) -> int:
    for line in meminfo.read_text().splitlines():
        if line.startswith("MemTotal:"):
            return int(line.split()[1]) // 1024
    raise SystemExit(f"{meminfo} has no MemTotal line: pass the choice yourself with STACK_OLLAMA_MODEL")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--gpu", action="store_true", help="the stack can use the GPU (compose.gpu.yaml)")
    parser.add_argument("--ctx", type=int, default=8192, help="the context window (STACK_LLM_CTX)")
    args = parser.parse_args()
    choice = choose(largest_gpu_mib() if args.gpu else None, ram_mib(), os.cpu_count() or 1, args.ctx)
    print(f"{choice.model}\t{choice.reason}")


if __name__ == "__main__":
    main()
