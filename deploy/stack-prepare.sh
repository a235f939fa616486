#!/usr/bin/env bash
# Checks everything `make up` needs before any image is built, prints every missing piece at once with what to
# do about it, and creates the stack's data folders as the invoking user (a folder Docker creates for a bind
# mount is root's, and nothing running as the host user could write into it).
set -uo pipefail
cd "$(dirname "$0")/.."

# .env is what compose reads too; values already in the environment win, as they do for compose.
if [[ -f .env ]]; then
  while IFS= read -r line; do
    [[ "$line" =~ ^[[:space:]]*([A-Za-z_][A-Za-z0-9_]*)=(.*)$ ]] || continue
    key=${BASH_REMATCH[1]} value=${BASH_REMATCH[2]}
    value=${value%\"}; value=${value#\"}; value=${value%\'}; value=${value#\'}
    [[ -n "${!key+set}" ]] || export "$key=$value"
  done < .env
fi

missing=()
[[ -f .env || -n "${SENTINEL_VAULT:-}" ]] || missing+=(".env: none here. Copy the template and edit it: cp .env.example .env")

vault=${SENTINEL_VAULT:-}
if [[ -z "$vault" ]]; then
  missing+=("SENTINEL_VAULT: not set. Put your vault folder in .env, e.g. SENTINEL_VAULT=$HOME/obsidian/MyVault")
elif [[ ! -d "$vault" ]]; then
  missing+=("SENTINEL_VAULT=$vault: no such folder. Create it (mkdir -p \"$vault\"/{notes,wiki,conversations,sources}) or fix the path")
elif [[ ! -w "$vault" ]]; then
  missing+=("SENTINEL_VAULT=$vault: not writable by you; the stack runs as uid ${APP_UID:-?} and writes there")
fi

for var in APP_UID APP_GID; do
  [[ -n "${!var:-}" ]] || missing+=("$var: not exported (make up does it; by hand: export APP_UID=\$(id -u) APP_GID=\$(id -g))")
done
[[ -n "${WEBUI_SECRET_KEY:-}" ]] || missing+=("WEBUI_SECRET_KEY: not set. Add a long random string to .env: echo WEBUI_SECRET_KEY=\$(openssl rand -hex 32) >> .env")
[[ -n "${STACK_API_KEY:-}" ]] || missing+=("STACK_API_KEY: not set. Add the key the Open WebUI tool calls the API with: echo STACK_API_KEY=\$(openssl rand -hex 24) >> .env")
[[ -n "${WEBUI_ADMIN_PASSWORD:-}" ]] || missing+=("WEBUI_ADMIN_PASSWORD: not set. Add the Open WebUI admin password to .env (the admin is WEBUI_ADMIN_EMAIL)")

model_dir=${SENTINEL_MODELS_DIR:-./models}/multilingual-e5-small
if [[ ! -f "$model_dir/tokenizer.json" ]] || [[ ! -f "$model_dir/model.onnx" && ! -f "$model_dir/onnx/model.onnx" ]]; then
  missing+=("embedding model: $model_dir needs model.onnx (or onnx/model.onnx) and tokenizer.json. Download them:
      hf download intfloat/multilingual-e5-small onnx/model.onnx tokenizer.json --local-dir $model_dir
    (on this project's offline machines: make models)")
fi

if [[ "${GPU:-}" == 1 ]] && ! docker info --format '{{json .Runtimes}}' 2>/dev/null | grep -q nvidia; then
  missing+=("GPU=1: the Docker engine has no nvidia runtime. Install the NVIDIA Container Toolkit, or run with GPU=0")
fi

if ((${#missing[@]})); then
  echo "make up cannot start the stack yet; missing:" >&2
  for item in "${missing[@]}"; do echo "  - $item" >&2; done
  exit 1
fi

data=${STACK_DATA_DIR:-./.sentinel/stack}
mkdir -p "$data/open-webui" "$data/beat" "$data/ollama"
# Run as root for another APP_UID (sudo make up, CI): the containers' user must own what they write into.
if [[ "$(id -u)" == 0 && "$APP_UID" != 0 ]]; then
  chown "$APP_UID:$APP_GID" "$data" "$data/open-webui" "$data/beat" "$data/ollama"
fi
