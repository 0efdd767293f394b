#!/bin/sh
# Soak benchmark (issue 9 point 7): builds kimigo and runs one print-mode
# prompt of STEPS tool round trips (default 2000) against a loopback fake
# model, RUNS times (default 3). Reports the median RSS of the kimigo
# process at steps 100, 500, 1000, 1500 and the last, its growth from step
# 100, and the records written per step. WINDOW sets the model's context
# window in tokens (default: large enough never to compact). WIRE=anthropic
# serves the Anthropic Messages wire instead of Chat Completions; LINES sets
# the lines each Read returns (default 5; 1000 makes a step about 50 KB).
set -eu
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/kimigo" ./cmd/kimigo
go build -o "$tmp/kgsession" ./bench/kgsession
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || uptime)"
"$tmp/kgsession" -kimigo "$tmp/kimigo" -scenario soak -steps "${STEPS:-2000}" -n "${RUNS:-3}" -window "${WINDOW:-100000000}" \
	-wire "${WIRE:-openai}" -lines "${LINES:-5}"
