# The Obsidian plugin (obsidian-plugin/): `make plugin` installs its locked dependencies and builds main.js.
# Its node tests run inside `make test` (tests/surfaces/test_plugin.py, against the real API on loopback).
PLUGIN_DIR := obsidian-plugin

.PHONY: plugin

$(PLUGIN_DIR)/node_modules/.package-lock.json: $(PLUGIN_DIR)/package-lock.json
	cd $(PLUGIN_DIR) && npm ci --no-audit --no-fund

plugin: $(PLUGIN_DIR)/node_modules/.package-lock.json
	cd $(PLUGIN_DIR) && npm run build

test-prereqs: plugin
