#!/bin/sh
# `npx talkide-be <command>` from anywhere in the checkout (the root package.json's "bin"):
# the backend's CLI from source, on the project's toolchain (scripts/toolchain.sh: Node 24
# from ./.tools when the machine's Node is older). It works on the data directory `npm start`
# uses (apps/be/.data/be) unless TALKIDE_DATA_DIR says otherwise.
set -eu
self=$(readlink -f "$0" 2>/dev/null || printf '%s' "$0")
root=$(cd "$(dirname "$self")/.." && pwd)
if [ ! -d "$root/apps/be/node_modules" ]; then
  printf 'talkide-be: the dependencies are not installed yet; run `npm start` (or `npm test`) once in %s first.\n' "$root" >&2
  exit 2
fi
: "${TALKIDE_DATA_DIR:=$root/apps/be/.data/be}"
export TALKIDE_DATA_DIR
exec sh "$root/scripts/toolchain.sh" node --conditions=@talkide/source "$root/apps/be/src/bin/talkide-be.ts" "$@"
