#!/usr/bin/env bash
# `make up`'s first step, so that a clone with no .env comes up with nothing typed:
#   - secrets: WEBUI_SECRET_KEY, STACK_API_KEY and WEBUI_ADMIN_PASSWORD, generated once into
#     .sentinel/secrets.env (git-ignored, 0600); a value in .env or the environment wins, a placeholder is refused;
#   - the vault: SENTINEL_VAULT, else ./vault, created with the four folders and a welcome page;
#   - the model server: the host's own Ollama when it answers, else one in the stack (Ollama with a registry,
#     llama.cpp without), written to .sentinel/models.env; STACK_MODEL_SERVER in .env forces one;
#   - the data folders, created as the invoking user (a folder Docker creates for a bind mount is root's).
# Everything still missing is printed at once, with what to do about it, before any image is built.
# Inputs from make: STACK_IMAGES (local or official, already resolved), GPU, APP_UID, APP_GID, STACK_DOTENV.
set -uo pipefail
cd "$(dirname "$0")/.."

dotenv=${STACK_DOTENV:-.env}
secrets_file=${STACK_SECRETS_FILE:-.sentinel/secrets.env}
models_file=${STACK_MODELS_FILE:-.sentinel/models.env}

# Read KEY=value lines; values already in the environment win, as they do for compose.
load() {
  [[ -f "$1" ]] || return 0
  local line key value
  while IFS= read -r line; do
    [[ "$line" =~ ^[[:space:]]*([A-Za-z_][A-Za-z0-9_]*)=(.*)$ ]] || continue
    key=${BASH_REMATCH[1]} value=${BASH_REMATCH[2]}
    value=${value%\"}; value=${value#\"}; value=${value%\'}; value=${value#\'}
    [[ -n "${!key+set}" ]] || export "$key=$value"
  done < "$1"
}
load "$dotenv"
load "$secrets_file"

missing=()

# --- secrets ----------------------------------------------------------------------------------------------
random_hex() { od -An -N"$1" -tx1 /dev/urandom | tr -d ' \n'; }
mkdir -p "$(dirname "$secrets_file")"
for spec in WEBUI_SECRET_KEY:32 STACK_API_KEY:24 WEBUI_ADMIN_PASSWORD:12; do
  var=${spec%%:*} bytes=${spec##*:}
  value=${!var:-}
  if [[ "${value,,}" == change-me* ]]; then
    missing+=("$var in $dotenv is the placeholder '$value': delete that line (make up then generates one into $secrets_file) or set a real one: $var=\$(openssl rand -hex $bytes)")
  elif [[ -z "$value" ]]; then
    (umask 077; echo "$var=$(random_hex "$bytes")" >> "$secrets_file")
    generated=1
  fi
done
if [[ -f "$secrets_file" ]]; then
  chmod 600 "$secrets_file"
  [[ -z "${generated:-}" ]] || echo "generated secrets into $secrets_file (mode 0600, git-ignored)"
fi

# --- the vault --------------------------------------------------------------------------------------------
vault=${SENTINEL_VAULT:-./vault}
if [[ -z "${SENTINEL_VAULT:-}" && ! -e "$vault" ]]; then
  mkdir -p "$vault"/{notes,wiki,conversations,sources}
  cp deploy/vault-welcome.md "$vault/notes/Welcome to Sentinel.md"
  [[ "$(id -u)" != 0 || "${APP_UID:-0}" == 0 ]] || chown -R "$APP_UID:$APP_GID" "$vault"
  echo "created the vault $vault (notes/ wiki/ conversations/ sources/, and notes/Welcome to Sentinel.md)"
fi
if [[ ! -d "$vault" ]]; then
  missing+=("SENTINEL_VAULT=$vault: no such folder. Create it (mkdir -p \"$vault\"/{notes,wiki,conversations,sources}), fix the path, or remove the line to use ./vault")
elif [[ ! -w "$vault" ]]; then
  missing+=("SENTINEL_VAULT=$vault: not writable by you; the stack runs as uid ${APP_UID:-?} and writes there")
fi

for var in APP_UID APP_GID; do
  [[ -n "${!var:-}" ]] || missing+=("$var: not exported (make up does it; by hand: export APP_UID=\$(id -u) APP_GID=\$(id -g))")
done

# --- the embedding model ----------------------------------------------------------------------------------
model_dir=${SENTINEL_MODELS_DIR:-./models}/multilingual-e5-small
if [[ ! -f "$model_dir/tokenizer.json" ]] || [[ ! -f "$model_dir/model.onnx" && ! -f "$model_dir/onnx/model.onnx" ]]; then
  missing+=("embedding model: $model_dir needs model.onnx (or onnx/model.onnx) and tokenizer.json. Download them:
      hf download intfloat/multilingual-e5-small onnx/model.onnx tokenizer.json --local-dir $model_dir
    (without the hub: make models)")
fi

# --- the model server -------------------------------------------------------------------------------------
host_ollama=${STACK_HOST_OLLAMA_URL:-http://127.0.0.1:11434}
host_models() {  # the models the host's Ollama lists, one a line; fails when nothing answers
  local tags
  tags=$(curl -fsS --max-time 3 "$host_ollama/api/tags" 2>/dev/null) || return 1
  python3 -c 'import json, sys; print("\n".join(m["name"] for m in json.loads(sys.argv[1])["models"]))' "$tags"
}
server=${STACK_MODEL_SERVER:-}
if [[ -z "$server" ]]; then
  if listed=$(host_models); then server=host
  elif [[ "${STACK_IMAGES:-local}" == official ]]; then server=ollama
  else server=llamacpp
  fi
fi
case "$server" in
  host)
    chat_model=${STACK_CHAT_MODEL:-}
    if [[ -z "$chat_model" ]]; then
      listed=${listed:-$(host_models)}
      chat_model=$(head -n1 <<<"$listed")
      [[ -n "$chat_model" ]] || missing+=("the Ollama at $host_ollama has no model: ollama pull qwen2.5:1.5b (or any tool-calling model), or set STACK_CHAT_MODEL")
    fi
    url=${STACK_MODEL_URL:-http://host.docker.internal:11434/v1} ;;
  ollama) chat_model=${STACK_CHAT_MODEL:-${STACK_OLLAMA_MODEL:-qwen2.5:1.5b}} url=${STACK_MODEL_URL:-http://ollama:11434/v1} ;;
  llamacpp) chat_model=${STACK_CHAT_MODEL:-qwen2.5-coder-0.5b-instruct} url=${STACK_MODEL_URL:-http://llm:8080/v1} ;;
  *) missing+=("STACK_MODEL_SERVER=$server: unknown; use host, ollama or llamacpp (or remove it to let make up choose)") ;;
esac
# The longest chat answer: the stack's own model servers run a small model on the CPU, where the 0.5B one
# generates 8-21 tokens/s on 2 cores (8-13 inside the running stack on a slow Xeon VM) and often rambles to the
# cap: 160 tokens keep such an answer under ~17 s and the whole first answer under 30 s (192 took 30 s once,
# 256 30-44 s there; 1024 61 s on a faster EPYC). A host's Ollama is the user's choice of model and machine: the
# general default.
case "$server" in
  host) reply_tokens=${STACK_REPLY_TOKENS:-1024} ;;
  *) reply_tokens=${STACK_REPLY_TOKENS:-160} ;;
esac
for var in STACK_REPLY_TOKENS SENTINEL_CHAT__REPLY_TOKENS; do  # a bad cap would only fail inside the setup step
  value=${!var:-}
  if [[ -n "$value" ]] && ! { [[ "$value" =~ ^[0-9]+$ ]] && ((10#$value >= 16)); }; then
    missing+=("$var=$value: the longest answer, in tokens, must be a whole number of at least 16 (e.g. $var=384), or remove the line for the default")
  fi
done
if [[ -n "${url:-}" ]]; then
  mkdir -p "$(dirname "$models_file")"
  printf '# written by make up (deploy/stack-prepare.sh) at every start; .env wins over it\nSTACK_MODEL_SERVER=%s\nSTACK_MODEL_URL=%s\nSTACK_CHAT_MODEL=%s\nSTACK_REPLY_TOKENS=%s\n' \
    "$server" "$url" "${chat_model:-}" "$reply_tokens" > "$models_file"
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
echo "model server: $server ($url), chat model $chat_model"
