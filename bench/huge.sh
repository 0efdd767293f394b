#!/bin/sh
# Huge-session benchmark (issue 9 point 6): builds kimigo, writes a
# synthetic session of SIZE MiB (default 500) through the real records
# writer next to 50 small ones, then reports the median, minimum and
# maximum time to list the work dir's sessions and to resume the big one
# with `kimigo -c -p continue`, and the peak RSS of the resuming process.
# RUNS sets the measured runs (default 5). Generating takes a while: KEEP=dir
# keeps the generated data root and work dir in dir (which must not exist),
# and REUSE=dir measures again the session such a run left there.
set -eu
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/kimigo" ./cmd/kimigo
go build -o "$tmp/kgsession" ./bench/kgsession
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || uptime)"
set -- -kimigo "$tmp/kimigo" -scenario huge -size "${SIZE:-500}" -n "${RUNS:-5}"
if [ -n "${KEEP:-}" ]; then set -- "$@" -keep "$KEEP"; fi
if [ -n "${REUSE:-}" ]; then set -- "$@" -reuse "$REUSE"; fi
"$tmp/kgsession" "$@"
