"""Gate: no model-facing path may change a transcript."""

from __future__ import annotations

from sentinel.gates import Verdict
from sentinel.paths import Role, role_of
from sentinel.settings import Settings


def not_a_transcript(relpath: str, settings: Settings, verb: str) -> Verdict[str]:
    """Passed when ``verb`` may touch ``relpath``; refused, saying why, when it is a transcript.

    Protects the verbatim record: concept extraction is silenced over conversations, which would mean nothing
    if the model could rewrite the conversation first (it once planned to "reconstruct the transcript with
    additions"). Only the capture path writes transcripts. A refusal is final: no rewording succeeds.
    """
    if role_of(relpath, settings) is Role.CONVERSATION:
        return Verdict(
            False,
            f"'{relpath}' is a transcript under {settings.folders.conversations}/: transcripts are verbatim records "
            f"and no {verb} of one is possible. Keep new text in a page under {settings.folders.notes}/ instead.",
        )
    return Verdict(True)
