#!/bin/sh
# Adds a dependency to one workspace package through the shared catalog, then installs.
# Serialized with flock so that several people (or agents) working in one checkout never
# write pnpm-workspace.yaml or pnpm-lock.yaml at the same time.
#
# Usage: sh scripts/add-dep.sh <package-dir> <name> <exact-version> [--dev]
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
[ $# -ge 3 ] || { echo "usage: add-dep.sh <package-dir> <name> <exact-version> [--dev]" >&2; exit 64; }
dir=$1 name=$2 version=$3 field=dependencies
[ "${4:-}" = "--dev" ] && field=devDependencies
exec 9>"${TMPDIR:-/tmp}/talkide-deps.lock"
flock 9
node - "$root" "$dir" "$name" "$version" "$field" <<'JS'
const fs = require("node:fs");
const path = require("node:path");
const [root, dir, name, version, field] = process.argv.slice(2);
const wsPath = path.join(root, "pnpm-workspace.yaml");
let ws = fs.readFileSync(wsPath, "utf8");
const key = /^[a-z0-9-]+$/.test(name) ? name : `"${name}"`;
const entry = new RegExp(`^  ${key.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}: .*$`, "m");
if (entry.test(ws)) ws = ws.replace(entry, `  ${key}: ${version}`);
else ws = ws.replace(/^catalog:\n/m, `catalog:\n  ${key}: ${version}\n`);
fs.writeFileSync(wsPath, ws);
const pkgPath = path.join(root, dir, "package.json");
const pkg = JSON.parse(fs.readFileSync(pkgPath, "utf8"));
pkg[field] = Object.fromEntries(Object.entries({ ...(pkg[field] ?? {}), [name]: "catalog:" }).sort(([a], [b]) => a.localeCompare(b)));
fs.writeFileSync(pkgPath, `${JSON.stringify(pkg, null, 2)}\n`);
JS
cd "$root" && sh scripts/toolchain.sh pnpm install --prefer-offline >&2
