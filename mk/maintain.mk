# The maintenance pass: its tests need the real small LLM (`make llm`, from mk/llm.mk), the e5 ONNX model
# (mk/models.mk) and the shared Redis on 127.0.0.1:6379; nothing else to build.
.PHONY: maintain-bench maintain-worker maintain-beat

# Pages per minute of analysis with the real small model on 2 cores, split load/prefill/generation (a table).
maintain-bench: llm
	$(PY) -m bench.maintain_speed

# Run a worker or beat in the foreground against SENTINEL_REDIS_URL (settings from the environment / .env).
maintain-worker: venv
	$(VENV)/bin/celery -A services.worker.celery_app worker --concurrency 1 --loglevel INFO

maintain-beat: venv
	$(VENV)/bin/celery -A services.worker.celery_app beat --loglevel INFO
test-prereqs: llm models
