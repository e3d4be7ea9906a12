#!/bin/sh
# Runs a command with the project's toolchain on PATH: Node >= 22.12 and the exact pnpm
# pinned in package.json's "packageManager". Whatever is missing comes from the npm
# registry into ./.tools (Node from the `node` package, which pulls the platform binary;
# pnpm from the `pnpm` package). Nothing outside the checkout is touched, and a machine
# that already has a suitable Node and the pinned pnpm uses them as they are.
#
# Usage: sh scripts/toolchain.sh <command> [args...]
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
tools="$root/.tools"
node_pin=$(tr -d ' \n\r' <"$root/.node-version")
pnpm_pin=$(sed -n 's/.*"packageManager": *"pnpm@\([^"+]*\).*/\1/p' "$root/package.json")

export TURBO_TELEMETRY_DISABLED=1 DO_NOT_TRACK=1

say() { printf 'toolchain: %s\n' "$*" >&2; }

node_is_suitable() {
  # engines: >= 22.12
  command -v node >/dev/null 2>&1 || return 1
  node -e 'const [a,b]=process.versions.node.split(".").map(Number);process.exit(a>22||(a===22&&b>=12)?0:1)' 2>/dev/null
}

npm_install_into() {
  # $1: prefix, $2: package spec. Quiet, no audit, no lockfile outside the prefix.
  mkdir -p "$1"
  npm install --prefix "$1" --no-audit --no-fund --no-save --loglevel=error "$2" >&2
}

if ! node_is_suitable; then
  if [ ! -x "$tools/node/node_modules/.bin/node" ] || \
     [ "$("$tools/node/node_modules/.bin/node" -p process.versions.node 2>/dev/null)" != "$node_pin" ]; then
    say "Node >= 22.12 not found; installing node@$node_pin from the npm registry into .tools/node"
    npm_install_into "$tools/node" "node@$node_pin"
  fi
  PATH="$tools/node/node_modules/.bin:$PATH"
  export PATH
fi

if [ "$(pnpm --version 2>/dev/null || true)" != "$pnpm_pin" ]; then
  if [ "$("$tools/pnpm/node_modules/.bin/pnpm" --version 2>/dev/null || true)" != "$pnpm_pin" ]; then
    say "pnpm $pnpm_pin not found; installing it from the npm registry into .tools/pnpm"
    npm_install_into "$tools/pnpm" "pnpm@$pnpm_pin"
  fi
  PATH="$tools/pnpm/node_modules/.bin:$PATH"
  export PATH
fi

exec "$@"
