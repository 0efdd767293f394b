#!/bin/sh
# Whole-process benchmark: builds kimigo and measures --version, a one-shot
# text prompt, one tool round trip and 20 tool round trips against a
# loopback fake model. RUNS sets the runs per scenario (default 20).
set -eu
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/kimigo" ./cmd/kimigo
go build -o "$tmp/kgbench" ./bench/kgbench
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || uptime)"
"$tmp/kgbench" -kimigo "$tmp/kimigo" -n "${RUNS:-20}"
