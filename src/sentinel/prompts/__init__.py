"""The prompts Sentinel ships, as package data: found wherever ``sentinel`` runs from, not only the repository."""

from __future__ import annotations

from pathlib import Path

HOME = Path(__file__).resolve().parent
SYSTEM_PROMPT = HOME / "system_prompt.txt"
RESEARCH_PROMPT = HOME / "system_prompt_research.txt"
