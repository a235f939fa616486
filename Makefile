# Sentinel: `make up` brings the product up, `make test` passes every test.
SHELL := /bin/bash
VENV ?= .venv
PY := $(VENV)/bin/python
PYTHON_FOR_VENV ?= /usr/bin/python3

.PHONY: venv test test-fast test-prereqs lint

venv: $(VENV)/.installed
$(VENV)/.installed: pyproject.toml
	$(PYTHON_FOR_VENV) -c "import sqlite3; sqlite3.connect(':memory:').enable_load_extension(True)" || \
	  { echo "$(PYTHON_FOR_VENV) cannot load SQLite extensions (sqlite-vec needs that): set PYTHON_FOR_VENV to one that can, e.g. Debian's /usr/bin/python3"; exit 1; }
	test -x $(PY) || $(PYTHON_FOR_VENV) -m venv $(VENV)
	$(PY) -m pip install -q -U pip
	$(PY) -m pip install -q -e '.[onnx,api,worker,providers,research,dev]'
	touch $@

lint: venv
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy

test-prereqs: venv

test: test-prereqs lint
	$(VENV)/bin/pytest -q --durations=30  # the slowest tests named in every CI log: its 90-minute limit is watched

test-fast: venv
	$(VENV)/bin/pytest -q -m "not slow"

-include mk/*.mk
