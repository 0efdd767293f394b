#!/bin/sh
# Start-up by repository size: builds kimigo and measures a one-shot
# prompt in an empty dir, a 20,000-file and a 100,000-file git repository
# (made by bench/gitrepo.sh), each with the git cache left by the last run
# ("warm") and without it ("cold"). BEFORE=path/to/kimigo measures another
# build in the same runs; REPOS=dir keeps the repositories there for the
# next time (making the 100,000-file one takes minutes); RUNS sets the runs
# per scenario (default 20).
set -eu
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
repos=${REPOS:-$tmp/repos}
CGO_ENABLED=0 go build -o "$tmp/kimigo" ./cmd/kimigo
go build -o "$tmp/kgbench" ./bench/kgbench
mkdir -p "$repos/empty"
for n in 20 100; do
	[ -d "$repos/git${n}k" ] || bench/gitrepo.sh "$repos/git${n}k" $((n * 1000))
done
bins=$tmp/kimigo
if [ -n "${BEFORE:-}" ]; then bins=$BEFORE,$bins; fi
load() { cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || uptime; }
echo "load average before: $(load)"
"$tmp/kgbench" -kimigo "$bins" -startup "$repos/empty,$repos/git20k,$repos/git100k" -n "${RUNS:-20}"
echo "load average after: $(load)"
