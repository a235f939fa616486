"""Answers: one user turn answered from the vault, with the decisions in code (intent, ladder, support).

``answer_turn`` is the door-independent entry; ``Answer`` what it returns. See ``pipeline`` for the order.
"""

from sentinel.answer.pipeline import Turn, answer_turn
from sentinel.answer.result import Answer, Citation

__all__ = ["Answer", "Citation", "Turn", "answer_turn"]
