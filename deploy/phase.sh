#!/usr/bin/env bash
# One phase of `make up`, shown as one line: deploy/phase.sh LOG TITLE COMMAND...
# COMMAND's output goes to LOG only (the full build log, whose path make up prints first); on a terminal the line
# counts the seconds while it runs, elsewhere it is printed once it is done. A failed phase shows the end of the log.
set -uo pipefail
log=$1 title=$2
shift 2
printf '\n=== %s: %s\n' "$title" "$*" >>"$log"
start=$SECONDS
"$@" >>"$log" 2>&1 &
pid=$!
if [[ -t 1 ]]; then
  frames='|/-\'
  i=0
  while kill -0 "$pid" 2>/dev/null; do
    printf '\r  %s %s  %ds ' "${frames:i++%4:1}" "$title" $((SECONDS - start))
    sleep 0.5
  done
  printf '\r\033[K'
fi
wait "$pid"
rc=$?
if ((rc == 0)); then
  printf '  ok  %s (%ds)\n' "$title" $((SECONDS - start))
else
  printf '  FAILED  %s (%ds); the end of %s:\n' "$title" $((SECONDS - start)) "$log"
  tail -n 15 "$log" | sed 's/^/    /'
fi
exit "$rc"
