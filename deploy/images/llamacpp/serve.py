"""The `llm` service: llama.cpp's OpenAI-compatible server (xllamacpp) on 0.0.0.0:8080 inside the container.

Settings come from the environment compose.yaml sets (STACK_LLM_*): the model file, the name it answers to,
context window and threads. xllamacpp serves from background threads, so the process only waits for a signal.
"""

from __future__ import annotations

import os
import signal

import xllamacpp


def main() -> None:
    params = xllamacpp.CommonParams()
    params.model.path = os.environ.get("STACK_LLM_MODEL_FILE", "/models/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf")
    params.model_alias = {os.environ.get("STACK_LLM_ALIAS", "qwen2.5-coder-0.5b-instruct")}
    params.hostnames = ["0.0.0.0"]  # the compose network; compose publishes nothing unless asked
    params.port = 8080
    params.n_ctx = int(os.environ.get("STACK_LLM_CTX", "8192"))
    params.n_parallel = 1  # one slot: the whole window serves one request, as a local Ollama does
    threads = int(os.environ.get("STACK_LLM_THREADS", "2"))
    params.cpuparams.n_threads = threads
    params.cpuparams_batch.n_threads = threads
    params.use_jinja = True  # the GGUF's own chat template, which renders tool schemas and parses tool calls
    server = xllamacpp.Server(params)
    print(f"llama.cpp serving {params.model.path} at {server.listening_address}", flush=True)
    signal.pause()  # serve until SIGTERM/SIGINT (default action: exit)


if __name__ == "__main__":
    main()
