#!/bin/sh
# Interactive interface benchmark: builds kimigo and resumes a session of
# MESSAGES messages (default 5000) in the interface on a pseudo-terminal,
# RUNS times (default 5), against a loopback fake model. Reports the
# medians of: time to the first frame; idle CPU over IDLE (default 60s)
# and the bytes drawn meanwhile; keystroke to the first byte of its frame
# (p50, p95); frames per second while an answer streams; keystroke p95
# while a 10,000-line command output arrives; peak RSS.
set -eu
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
CGO_ENABLED=0 go build -o "$tmp/kimigo" ./cmd/kimigo
go build -o "$tmp/kgsession" ./bench/kgsession
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || uptime)"
"$tmp/kgsession" -kimigo "$tmp/kimigo" -scenario tui -n "${RUNS:-5}" -messages "${MESSAGES:-5000}" -idle "${IDLE:-60s}"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || uptime)"
