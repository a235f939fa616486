# The model pool (issue 8): its tests need the real llama.cpp server and model (`make llm`, already a test
# prerequisite) and the local Redis; nothing else to build. The bench prints a table (never a timed assert).
.PHONY: pool-bench pool-bench-llama

# Gateway overhead vs calling a backend directly: p50/p95, CPU per request, requests/s.
pool-bench: venv
	$(PY) bench/pool_overhead.py

# The same, plus a row against the real llama.cpp server with the small Qwen model.
pool-bench-llama: llm
	$(PY) bench/pool_overhead.py --llama
