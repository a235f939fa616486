# The official Redis image under the stack's local name, where a registry answers (compose.yaml's redis service).
# A file, not compose's dockerfile_inline: the classic builder (Docker without buildx, as Debian ships it) ignores
# that and builds this folder's Dockerfile, the offline one, instead.
ARG IMAGE=redis:7-alpine
FROM ${IMAGE}
