# The official Redis image under the stack's local name, where a registry answers (compose.yaml's redis service).
# A file, not compose's dockerfile_inline: the classic builder (Docker without buildx, as Debian ships it) ignores
# that and builds this folder's Dockerfile, the offline one, instead.
# The builder prints this line as a step just before it fetches the base image: where no container registry
# answers, that fetch fails with Docker's own error, and a plain `docker compose up` shows what to run first.
ARG NO_REGISTRY="no registry answers? run make images once (builds every image offline), then docker compose up"
ARG IMAGE=redis:7-alpine
FROM ${IMAGE}
