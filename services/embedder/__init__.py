"""The embedder service: a thin HTTP shell over sentinel.embed.onnx (see app.py)."""
