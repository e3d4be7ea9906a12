#!/bin/sh
# Where the test suite's CPU goes, file by file: runs each test file alone (`vitest run FILE`,
# two files at a time on a two-core machine) and prints one line per file, most CPU first:
# CPU seconds (user + system, of vitest and of every process the file started), wall seconds
# and the file. The CPU of a whole run is what bounds it: two cores give 1200 s of CPU in ten
# minutes. A file alone pays its run's fixed costs too (about 3 s of CPU here: vitest, the
# run's PostgreSQL server, and the migrated database templates a run makes once), so the
# numbers add up to more than one whole run. Each file's output is kept in the log directory.
#
#   sh scripts/toolchain.sh sh scripts/test-cost.sh [LOG_DIR] [FILE ...]
#
# FILE is a test file's path from the repository root; without files, every test file of the
# repository. LOG_DIR is taken from where the script is run; without it (the first argument a
# test file), $TMPDIR/talkide-test-cost. Takes about 25 minutes for all of them.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
logs="${TMPDIR:-/tmp}/talkide-test-cost"
if [ "$#" -gt 0 ] && [ ! -f "$root/$1" ]; then
  logs=$1
  shift
fi
mkdir -p "$logs"
logs=$(cd "$logs" && pwd)
cd "$root"
: >"$logs/costs.tsv"
if [ "$#" -eq 0 ]; then set -- $(git ls-files '*.test.ts'); fi

# One file: `times` prints the shell's own CPU, then that of the children it waited for.
measure() {
  file=$1
  log="$logs/$(printf '%s' "$file" | tr '/' '_').log"
  start=$(date +%s.%N)
  if node_modules/.bin/vitest run "$file" >"$log" 2>&1; then result=passed; else result=FAILED; fi
  end=$(date +%s.%N)
  # A builtin with a redirection runs in this shell; in a pipeline it would run in a fork,
  # which has no children of its own.
  times >"$log.times"
  sed -n 2p "$log.times" | awk -v f="$file" -v s="$start" -v e="$end" -v r="$result" '
    function seconds(t) { split(t, p, "m"); sub("s", "", p[2]); return p[1] * 60 + p[2] }
    { printf "%.1f\t%.1f\t%s\t%s\n", seconds($1) + seconds($2), e - s, f, r }' >>"$logs/costs.tsv"
  rm "$log.times"
}

export CI=true
running=0
for file in "$@"; do
  measure "$file" &
  running=$((running + 1))
  # Two at a time: the next pair starts once both have ended.
  if [ "$running" -eq 2 ]; then
    wait
    running=0
  fi
done
wait
printf 'cpu_s\twall_s\tfile\tresult\n'
sort -t "$(printf '\t')" -k1,1 -rn "$logs/costs.tsv"
