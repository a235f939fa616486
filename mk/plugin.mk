# The Obsidian plugin (obsidian-plugin/): `make plugin` installs its locked dependencies and builds main.js.
# Its node tests run inside `make test` (tests/surfaces/test_plugin.py, against the real API on loopback).
PLUGIN_DIR := obsidian-plugin

.PHONY: plugin

$(PLUGIN_DIR)/node_modules/.package-lock.json: $(PLUGIN_DIR)/package-lock.json
	cd $(PLUGIN_DIR) && npm ci --no-audit --no-fund

# modes.js's home is the search page's (services/api/static/); the plugin carries a copy so that its folder builds
# on its own.
plugin: $(PLUGIN_DIR)/node_modules/.package-lock.json
	cp services/api/static/modes.js $(PLUGIN_DIR)/src/modes.js
	cd $(PLUGIN_DIR) && npm run build

test-prereqs: plugin
