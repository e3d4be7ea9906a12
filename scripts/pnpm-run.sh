#!/bin/sh
# Installs the workspace exactly as the lockfile pins it, then runs one root script.
# Called by `npm start` / `npm test` through scripts/toolchain.sh.
set -eu
cd "$(dirname "$0")/.."
pnpm install --frozen-lockfile --prefer-offline
exec pnpm run "$@"
