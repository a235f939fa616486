"""``sentinel chat``: the diagnostic harness. It goes straight to the model and shows what Open WebUI hides.

It runs the tool loop itself (``loop``), lets the status markers decide what runs next (``control``), counts
tokens and time per turn and per session (``accounting``), and answers the slash commands (``commands``).
``session`` holds one conversation; ``render`` turns all of it into rich output. The REPL around it is
``sentinel.cli.chat``.
"""
