"""Text embeddings: one interface (base.Embedder), an in-process ONNX engine and an HTTP client of the service.

Build an embedder with ``sentinel.embed.factory.embedder_from_settings``. Importing this package loads neither
onnxruntime nor httpx.
"""
