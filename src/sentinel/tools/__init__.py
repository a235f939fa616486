"""The seven primitives a model gets (read, search, listing, graph, write, relocate, remove) and capture.

Each primitive is one module with its model-facing description; ``policy`` is the one output policy they share.
"""
