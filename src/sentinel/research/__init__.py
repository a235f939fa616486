"""The Searcher: web research written into the vault's sources folder as source records.

A question goes to a search backend (``backends``), the top results are fetched politely (``fetch``), their main
text extracted (``extract``), split into passages and chosen by code (``choose``), and every passage that is not
found verbatim in its page's fetched text is dropped (``sentinel.gates.verbatim.keep_passages``). What is kept,
and every page that could not be used with its reason, is appended to one record per question (``record``) in
the one folder ``sentinel.paths.sources_folder`` names (``target`` refuses any other). ``run`` ties them up.
No model text ever enters a record.
"""

# The function name the research tool carries in Open WebUI (tool/openwebui_research_tool.py: the only call that
# leaves the vault), so the gateway can tell it apart from the vault's tools on a turn's first call.
TOOL_NAME = "research"
