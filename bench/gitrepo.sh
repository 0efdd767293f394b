#!/bin/sh
# Usage: bench/gitrepo.sh DIR FILES
# Makes DIR a git repository of FILES (a multiple of 1,000) small files,
# committed, with one of them changed since: DIR/pNNN/sN/fNN.txt, 1,000
# files under each top-level directory. bench/gitstart.sh measures
# kimigo's start-up in such repositories.
set -eu
dir=$1
files=$2
mkdir -p "$dir"
cd "$dir"
git init -q -b main
awk -v tops=$((files / 1000)) 'BEGIN {
	for (t = 0; t < tops; t++) for (s = 0; s < 10; s++) {
		d = sprintf("p%03d/s%d", t, s)
		system("mkdir -p " d)
		for (f = 0; f < 100; f++) { p = sprintf("%s/f%02d.txt", d, f); print p > p; close(p) }
	}
}'
git add -A
git -c user.name=bench -c user.email=bench@example.com commit -q -m "$files files"
# Files written in the same second as the index are "racily clean": every
# status would read them again. A second later, a refresh rewrites the
# index with their settled times, as in a repository in everyday use.
sleep 1
git update-index -q --really-refresh
echo changed >>p000/s0/f00.txt
