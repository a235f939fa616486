"""Per-page progress lines, timed as the provider allows: load, prefill and generation apart where the server
reports them (Ollama all three, llama.cpp prefill and generation), one wall-clock total where it does not
(vLLM and most OpenAI-shaped servers), said once per pass."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from sentinel.maintain.analysis import Outcome


@dataclass
class Timer:
    say: Callable[[str], None]
    told_unsplit: bool = False

    def timings(self, outcome: Outcome) -> str:
        calls = outcome.calls
        if not calls:
            return f"{outcome.wall_s:.1f}s"
        if all(call.timings.split for call in calls):
            prefill = sum(call.timings.prefill_s or 0.0 for call in calls)
            generation = sum(call.timings.generation_s or 0.0 for call in calls)
            split = f"prefill {prefill:.1f}s gen {generation:.1f}s"
            if any(call.timings.load_s is not None for call in calls):  # llama.cpp does not report loading
                split = f"load {sum(call.timings.load_s or 0.0 for call in calls):.1f}s {split}"
            return split
        if not self.told_unsplit:
            self.told_unsplit = True
            self.say("  note: this endpoint reports one total per call, so times are wall clock, not load/prefill/gen")
        return f"{sum(call.timings.total_s for call in calls):.1f}s"


def page_line(outcome: Outcome, timer: Timer) -> str:
    """``ok 4 concepts, load 0.3s prefill 0.3s gen 3.5s`` or ``failed - <reason>, 9.4s``."""
    calls = f", {len(outcome.calls)} calls" if len(outcome.calls) > 1 else ""
    if outcome.status == "failed":
        return f"failed - {outcome.reason}, {timer.timings(outcome)}{calls}"
    dropped = len(outcome.dropped_not_verbatim) + len(outcome.dropped_misshapen) + len(outcome.dropped_derived)
    extra = f" ({dropped} dropped by the gates)" if dropped else ""
    if not outcome.calls:
        return "ok, empty page (no model call)"
    return f"ok {len(outcome.concepts)} concepts{extra}, {timer.timings(outcome)}{calls}"
