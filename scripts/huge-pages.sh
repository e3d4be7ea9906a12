#!/bin/sh
# Transparent huge pages for a CI machine's test run: `always` instead of Debian's `madvise`.
#
# Why: a third of the test suite's CPU on this project's 2-core VM was the kernel's, most of it
# memory touched for the first time, 4 KiB at a time: PGlite's WebAssembly memory (a 128 MB
# start, growing) and the V8 heaps of the hundreds of Node processes the tests start. Neither V8
# nor PGlite asks for huge pages, so `madvise` gives them none. With `always`, three fresh
# PGlite databases took 8.6 s of CPU instead of 14.1 s (page faults 620,000 -> 72,000), and the
# backend's tests, alternating, about 15% less CPU; the daemon's showed no clear change (see
# docs/test-suite.md). It changes no test and no result.
#
# Usage: sh scripts/huge-pages.sh set        .ci/run: prints the mode it found, then sets `always`
#        sh scripts/huge-pages.sh restore M  .ci/run, at its end: sets mode M again
#        sh scripts/huge-pages.sh hint       `npm test`: one line on how, when not `always`
# `npm test` never changes the machine's setting itself: that is for its owner to decide.
# Never fails: where the setting cannot be written (no root, a read-only /sys, not Linux), it
# says so and leaves the machine as it is.
set -u

# The kernel's setting; TALKIDE_THP_KNOB names another file (scripts/huge-pages.test.ts).
knob=${TALKIDE_THP_KNOB:-/sys/kernel/mm/transparent_hugepage/enabled}

current_mode() {
  # The file reads like "always [madvise] never": the bracketed word is the mode.
  sed -n 's/.*\[\([a-z]*\)\].*/\1/p' "$knob" 2>/dev/null
}

write_mode() {
  { echo "$1" >"$knob"; } 2>/dev/null
}

case "${1:-}" in
  set)
    mode=$(current_mode)
    if [ -z "$mode" ]; then
      echo "ci: transparent huge pages: $knob not readable here; left as it is" >&2
    elif [ "$mode" = always ]; then
      echo "ci: transparent huge pages: already always" >&2
    elif write_mode always; then
      echo "ci: transparent huge pages: $mode -> always for this run (scripts/huge-pages.sh says why)" >&2
    else
      echo "ci: transparent huge pages: $mode, and $knob cannot be written here; left as it is" >&2
    fi
    # The mode to restore, on stdout.
    echo "$mode"
    ;;
  restore)
    mode=${2:-}
    if [ -n "$mode" ] && [ "$mode" != "$(current_mode)" ]; then
      if write_mode "$mode"; then
        echo "ci: transparent huge pages: back to $mode" >&2
      fi
    fi
    ;;
  hint)
    mode=$(current_mode)
    if [ -n "$mode" ] && [ "$mode" != always ]; then
      echo "note: transparent huge pages are '$mode' here; the tests take less time with 'always' (echo always | sudo tee $knob; docs/test-suite.md)" >&2
    fi
    ;;
  *)
    echo "usage: sh scripts/huge-pages.sh set | restore <mode> | hint" >&2
    exit 2
    ;;
esac
exit 0
