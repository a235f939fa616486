"""``python -m sentinel.cli``: the CLI, for units and containers that name the interpreter."""

from sentinel.cli import main

main()
