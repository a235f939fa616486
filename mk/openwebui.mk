# Open WebUI for the tool's loader test and the end-to-end tests. A separate venv because it weighs ~2.9 GB and
# imports torch: nothing of it may leak into .venv. torch goes first, pinned to the CPU build (pip would
# otherwise pull a multi-GB CUDA build as open-webui's dependency).
OWUI_VENV ?= .venv-owui
OWUI_PYTHON_FOR_VENV ?= /usr/bin/python3
OWUI_VERSION ?= 0.12.4
OWUI_TORCH ?= torch==2.13.0

.PHONY: openwebui
openwebui: $(OWUI_VENV)/.installed-$(OWUI_VERSION)

$(OWUI_VENV)/.installed-$(OWUI_VERSION): mk/openwebui.mk
	test -x $(OWUI_VENV)/bin/python || $(OWUI_PYTHON_FOR_VENV) -m venv $(OWUI_VENV)
	$(OWUI_VENV)/bin/python -m pip install -q -U pip
	$(OWUI_VENV)/bin/python -m pip install -q '$(OWUI_TORCH)'
	$(OWUI_VENV)/bin/python -m pip install -q 'open-webui==$(OWUI_VERSION)'
	$(OWUI_VENV)/bin/python -c "import torch; assert not torch.version.cuda, 'CUDA torch slipped in'"
	touch $@

test-prereqs: openwebui

# The Sentinel chat's prefix as the real Open WebUI sends it (system message, tool schemas), which the stack's
# warm-up sends on a first start (sentinel.chat_prefix). Run it after changing the tool, the system prompt or
# OWUI_VERSION; tests/openwebui/test_end_to_end.py fails until then.
.PHONY: chat-prefix
chat-prefix: openwebui venv
	$(VENV)/bin/python -m tests.openwebui.chat_prefix_record
