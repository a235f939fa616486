#!/bin/sh
# The worker's health check: a real `celery inspect ping` (does the worker answer on the broker?) at most once a
# minute, the last good answer standing in between. A ping starts celery and imports the app, ~1 s of CPU: asked
# every 30 s it made the first healthy mark wait up to 30 s (engines before Docker 25 ignore start_interval), asked
# every 5 s it would cost a tenth of a core for as long as the stack runs. Checked every 5 s, answered by the ping
# until the first pass (then the mark comes within 5 s of the worker being ready) and once a minute after: a hung
# worker still fails its ping within a minute, and `retries` such pings in a row make it unhealthy.
# The stamp lives in /dev/shm, fresh at every container start, so a restarted worker is pinged again first.
stamp=${SENTINEL_WORKER_PING_STAMP:-/dev/shm/sentinel-worker-pinged}
every=${SENTINEL_WORKER_PING_EVERY_S:-60}
if [ -f "$stamp" ] && [ $(($(date +%s) - $(stat -c %Y "$stamp"))) -lt "$every" ]; then
  exit 0
fi
celery -A services.worker.celery_app inspect ping --timeout 10 -d "celery@$HOSTNAME" && touch "$stamp"
