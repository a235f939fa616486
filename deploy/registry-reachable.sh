#!/usr/bin/env bash
# Exit 0 when Docker Hub and ghcr.io answer as container registries (where compose.yaml's official images live),
# 1 otherwise. A registry answers its /v2/ root with 401 and a Bearer challenge or its API version header; an
# intercepting proxy's refusal page does not, so a blocked machine is not mistaken for a connected one.
for url in https://registry-1.docker.io/v2/ https://ghcr.io/v2/; do
  curl -sS -o /dev/null -D - --max-time "${REGISTRY_PROBE_TIMEOUT_S:-5}" "$url" 2>/dev/null \
    | grep -qiE '^(docker-distribution-api-version: registry/2|www-authenticate: bearer realm=)' || exit 1
done
