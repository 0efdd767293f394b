#!/bin/sh
# Subagent benchmark of the whole process (issue 19): builds kimigo (static,
# as it ships) and runs a print-mode prompt whose first model reply starts
# CHILDREN (default 100) background subagents against the loopback fake
# model; every child answers at once and the parent answers their
# notifications. Reports the median, minimum and maximum of wall time, CPU
# time and peak RSS of the kimigo process over RUNS runs (default 5), and
# the delay from the reply with the Agent calls to each child's first
# request. The in-process figures are Go benchmarks:
#   go test ./session -run '^$' -bench Subagent -benchtime 10x -count 5
set -eu
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
CGO_ENABLED=0 go build -o "$tmp/kimigo" ./cmd/kimigo
go build -o "$tmp/kgbench" ./bench/kgbench
load() { cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || uptime; }
echo "load average before: $(load)"
"$tmp/kgbench" -kimigo "$tmp/kimigo" -subagents "${CHILDREN:-100}" -n "${RUNS:-5}"
echo "load average after: $(load)"
