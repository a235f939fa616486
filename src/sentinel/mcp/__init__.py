"""Sentinel over the Model Context Protocol: the seven primitives for any agent (stdio and Streamable HTTP)."""
