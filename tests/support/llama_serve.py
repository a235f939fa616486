"""Child process of ``llama_server``: llama.cpp's OpenAI-compatible server (xllamacpp) on a loopback port.

xllamacpp has no command-line entry point; its server starts inside ``xllamacpp.Server(params)`` and serves
from background threads, so this small script holds it in its own process that the launcher can stop without
touching anything else. Once the model is loaded it writes the server's URL to ``--ready-file`` (whole, by
rename): not to its output, where llama.cpp's own log lines, written from native threads, can land in the
middle of it.

Run: ``.venv/bin/python tests/support/llama_serve.py --model M.gguf --alias NAME --port 0 --ready-file F``
"""

from __future__ import annotations

import argparse
import os
import signal
from pathlib import Path

import xllamacpp


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--model", required=True, help="GGUF file")
    parser.add_argument("--alias", required=True, help="model name the server answers to")
    parser.add_argument("--port", type=int, default=0, help="0 lets the server pick a free one")
    parser.add_argument("--ready-file", type=Path, required=True, help="where the URL is written once serving")
    parser.add_argument("--ctx", type=int, default=4096, help="context window in tokens")
    parser.add_argument("--threads", type=int, default=2, help="CPU threads for prefill and generation")
    parser.add_argument("--embeddings", action="store_true", help="also serve /v1/embeddings (mean pooling)")
    parser.add_argument("--sleep-idle-seconds", type=int, default=-1, help="unload the model after this idle time")
    args = parser.parse_args()

    params = xllamacpp.CommonParams()
    params.model.path = args.model
    params.model_alias = {args.alias}
    params.hostnames = ["127.0.0.1"]  # loopback only
    params.port = args.port
    params.n_ctx = args.ctx
    params.n_parallel = 1  # one slot: the whole window serves one request, as a local Ollama does
    params.cpuparams.n_threads = args.threads
    params.cpuparams_batch.n_threads = args.threads
    params.use_jinja = True  # the GGUF's own chat template, which renders tool schemas
    if args.embeddings:  # chat keeps working; embeddings need a pooling type the OpenAI shape accepts
        params.embedding = True
        params.pooling_type = xllamacpp.llama_pooling_type.LLAMA_POOLING_TYPE_MEAN
    params.sleep_idle_seconds = args.sleep_idle_seconds  # asleep: /props says is_sleeping, the model is unloaded
    server = xllamacpp.Server(params)
    pending = args.ready_file.with_name(args.ready_file.name + ".tmp")
    pending.write_text(server.listening_address)
    os.replace(pending, args.ready_file)
    signal.pause()  # serve until SIGTERM/SIGINT (default action: exit)


if __name__ == "__main__":
    main()
