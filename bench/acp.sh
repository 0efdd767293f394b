#!/bin/sh
# ACP server benchmark (issue 22): builds kimigo and reports the median,
# minimum and maximum of process start → initialize response,
# session/new → first session/update, one prompt round trip against a
# loopback fake model, and the idle RSS with two sessions. RUNS sets the
# measured runs (default 20).
set -eu
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/kimigo" ./cmd/kimigo
go build -o "$tmp/kgacp" ./bench/kgacp
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || uptime)"
"$tmp/kgacp" -kimigo "$tmp/kimigo" -n "${RUNS:-20}"
