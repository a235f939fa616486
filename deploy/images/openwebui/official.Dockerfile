# The official Open WebUI image under the stack's local name, where a registry answers (compose.yaml's open-webui
# service). A file, not compose's dockerfile_inline: the classic builder (Docker without buildx, as Debian ships
# it) ignores that and builds this folder's Dockerfile, the offline pip-based one, which fails without its wheels.
ARG IMAGE=ghcr.io/open-webui/open-webui:main
FROM ${IMAGE}
