"""``python -m sentinel.maintain``: the same as ``sentinel maintain``."""

import typer

from sentinel.cli.maintain import maintain

typer.run(maintain)
