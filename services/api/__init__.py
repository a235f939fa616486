"""The tool API service: the seven primitives and capture over HTTP, for Open WebUI and any client."""
