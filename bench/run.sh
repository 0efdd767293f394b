#!/bin/sh
# Whole-process benchmark: builds kimigo and measures --version, a one-shot
# text prompt, one tool round trip and 20 tool round trips against a
# loopback fake model, and reports the median, minimum and maximum of wall
# time, CPU time and peak RSS per scenario. RUNS sets the runs per
# scenario (default 20). The floor program (bench/floor: one request and
# one shell command per step, nothing else) runs the same prompts in the
# same runs, and kimigo's figures are given as multiples of its.
set -eu
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# kimigo ships as one static binary; measure that build.
CGO_ENABLED=0 go build -o "$tmp/kimigo" ./cmd/kimigo
CGO_ENABLED=0 go build -o "$tmp/floor" ./bench/floor
go build -o "$tmp/kgbench" ./bench/kgbench
load() { cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || uptime; }
# Other work on the machine skews the figures: compare runs made at a
# low load average only.
echo "load average before: $(load)"
bins="$tmp/kimigo"
# BEFORE=path/to/kimigo measures another build in the same runs.
if [ -n "${BEFORE:-}" ]; then bins="$BEFORE,$bins"; fi
"$tmp/kgbench" -kimigo "$bins" -floor "$tmp/floor" -n "${RUNS:-20}"
echo "load average after: $(load)"
