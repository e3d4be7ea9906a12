#!/bin/sh
# Installs the workspace exactly as the lockfile pins it, then runs one root script.
# Called by `npm start` / `npm test` through scripts/toolchain.sh.
set -eu
cd "$(dirname "$0")/.."
# `npm start` names a busy port at once, not after the install and the build.
if [ "${1:-}" = main ]; then node scripts/port-free.ts; fi
pnpm install --frozen-lockfile --prefer-offline
exec pnpm run "$@"
