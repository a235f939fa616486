"""``python -m sentinel.maintain``: the same as ``sentinel maintain``."""

from sentinel.cli.maintain import app

app(prog_name="sentinel maintain")
