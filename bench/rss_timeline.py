"""A timeline of this process's resident memory, marked by phase: which part of a run makes its peak RSS.

    timeline = RssTimeline(Path("rss.tsv"))   # starts a sampling thread (every 50 ms)
    timeline.mark("view load")                # the phase the next samples belong to
    ...
    timeline.stop(); print_value_table("RSS by phase", timeline.summary())

Each sample reads ``/proc/self/status`` (RssAnon, RssFile) and the kernel's high-water mark (``ru_maxrss``): a
transient shorter than the sampling interval (a gather that maps a store's pages for a millisecond) never shows
in RssAnon / RssFile, but it moves the high-water mark, and the sample that sees it move names the phase it
moved in. Sampling costs ~30 us a sample on the thread (CPU time counted in the process's, ~0.1%).
"""

from __future__ import annotations

import functools
import resource
import threading
import time
from pathlib import Path
from typing import Any

INTERVAL = 0.05  # seconds between samples


def rss_mb() -> tuple[float, float]:
    """RssAnon and RssFile of this process (MB), as Linux reports them."""
    kib = dict.fromkeys(("RssAnon", "RssFile"), 0)
    for line in Path("/proc/self/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in kib:
            kib[key] = int(value.split()[0])
    return kib["RssAnon"] / 1024, kib["RssFile"] / 1024


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def resident_by_mapping() -> list[tuple[str, float]]:
    """Resident MB of this process by what is mapped (a file's name, ``[heap]``, ``anonymous``), largest first."""
    totals: dict[str, float] = {}
    name = "anonymous"
    for line in Path("/proc/self/smaps").read_text().splitlines():
        head = line.split(maxsplit=5)
        if len(head) >= 5 and "-" in head[0] and ":" not in head[0]:  # a mapping's header line
            name = head[5].strip() if len(head) == 6 else "anonymous"
        elif line.startswith("Rss:"):
            totals[name] = totals.get(name, 0.0) + int(line.split()[1]) / 1024
    return sorted(totals.items(), key=lambda item: -item[1])


class RssTimeline:
    """Samples RSS on a daemon thread into ``path`` (TSV: seconds, phase, anon, file, peak so far) until stopped."""

    def __init__(self, path: Path, interval: float = INTERVAL) -> None:
        self.path = path
        self.interval = interval
        self.phase = "start"
        self.started = time.perf_counter()
        self.samples: list[tuple[float, str, float, float, float]] = []
        self.watched: dict[str, list[float]] = {}  # label: calls, high-water rise in them (MB), largest RSS growth
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._run, name="rss-timeline", daemon=True)
        self._thread.start()

    def mark(self, phase: str) -> None:
        self._sample()  # the previous phase's last state
        self.phase = phase
        self._sample()

    def watch(self, owner: Any, name: str, label: str) -> None:
        """Wrap ``owner.name`` so each call is counted with how far the high-water mark rose during it and the
        largest growth of RSS across one call (a transient released inside the call shows only in the former)."""
        function = getattr(owner, name)
        record = self.watched.setdefault(label, [0.0, 0.0, 0.0])

        @functools.wraps(function)
        def wrapped(*args: Any, **kwargs: Any) -> Any:
            before_peak, before = peak_mb(), sum(rss_mb())
            try:
                return function(*args, **kwargs)
            finally:
                record[0] += 1
                record[1] += peak_mb() - before_peak
                record[2] = max(record[2], sum(rss_mb()) - before)

        setattr(owner, name, wrapped)

    def _sample(self) -> None:
        anon, file = rss_mb()
        self.samples.append((time.perf_counter() - self.started, self.phase, anon, file, peak_mb()))

    def _run(self) -> None:
        while not self._done.wait(self.interval):
            self._sample()

    def stop(self) -> None:
        self._done.set()
        self._thread.join()
        self._sample()
        self.mappings = resident_by_mapping()
        with self.path.open("w") as out:
            out.write("seconds\tphase\trss_anon_mb\trss_file_mb\tpeak_mb\n")
            for t, phase, anon, file, peak in self.samples:
                out.write(f"{t:.3f}\t{phase}\t{anon:.1f}\t{file:.1f}\t{peak:.1f}\n")

    def summary(self) -> list[tuple[str, str]]:
        """Per phase, in order: seconds, the highest sampled RSS (anon / file at that sample), RSS at the phase's
        end, and how far the high-water mark rose in the phase (the phase that raised it most made the peak)."""
        rows: list[tuple[str, str]] = []
        order: list[str] = []
        by_phase: dict[str, list[tuple[float, str, float, float, float]]] = {}
        for sample in self.samples:
            if sample[1] not in by_phase:
                order.append(sample[1])
            by_phase.setdefault(sample[1], []).append(sample)
        last_peak = 0.0
        for phase in order:
            samples = by_phase[phase]
            top = max(samples, key=lambda s: s[2] + s[3])
            end = samples[-1]
            rose = max(s[4] for s in samples) - last_peak
            last_peak = max(last_peak, max(s[4] for s in samples))
            rows.append(
                (
                    phase,
                    f"{end[0] - samples[0][0]:.1f} s; max {top[2] + top[3]:.0f} ({top[2]:.0f} / {top[3]:.0f}); "
                    f"end {end[2] + end[3]:.0f} ({end[2]:.0f} / {end[3]:.0f}); peak {last_peak:.0f} "
                    f"(+{max(rose, 0.0):.0f})",
                )
            )
        for name, mb in getattr(self, "mappings", [])[:8]:
            rows.append((f"resident at the end in {name}", f"{mb:.0f}"))
        for label, (calls, rose, grew) in self.watched.items():
            rows.append((f"in {label}", f"{calls:.0f} calls; peak rose {rose:.0f}; RSS grew {grew:.0f} at most"))
        return rows
