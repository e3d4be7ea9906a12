#!/bin/sh
# Installs the workspace exactly as the lockfile pins it, then runs one root script.
# Called by `npm start` / `npm test` through scripts/toolchain.sh.
set -eu
cd "$(dirname "$0")/.."
# `npm start` names a busy port at once, not after the install and the build.
if [ "${1:-}" = main ]; then node scripts/port-free.ts; fi
pnpm install --frozen-lockfile --prefer-offline
# The service refuses to start when a tool rule lets the agent run commands and the sandbox
# they run in is missing: `npm start` installs it first (bubblewrap and socat, from Debian).
if [ "${1:-}" = main ] &&
  printf '%s\n' "${TALKIDE_CLAUDE_ALLOWED_TOOLS:-}" | tr ',' '\n' |
  grep -Eq '^[[:space:]]*(Bash|PowerShell)([(]|[[:space:]]*$)'; then
  sh scripts/debian-packages.sh sandbox
fi
exec pnpm run "$@"
