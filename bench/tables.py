"""The two-column table (measure, value) the scale benches print, in markdown."""

from __future__ import annotations


def print_value_table(heading: str, rows: list[tuple[str, str]]) -> None:
    print(f"\n| {heading} | value |\n|---|---|")
    for name, value in rows:
        print(f"| {name} | {value} |")
