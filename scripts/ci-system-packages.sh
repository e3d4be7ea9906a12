#!/bin/sh
# System packages the test suites need that npm cannot provide, installed from Debian only
# when missing: the PostgreSQL server (initdb, pg_ctl) for the real-server suites. Running it
# again changes nothing. The real Claude Code CLI needs nothing here: pnpm install puts the
# pinned binary in place.
set -eu

have_postgres_server() {
  command -v initdb >/dev/null 2>&1 && command -v pg_ctl >/dev/null 2>&1 && return 0
  for dir in /usr/lib/postgresql/*/bin; do
    [ -x "$dir/initdb" ] && [ -x "$dir/pg_ctl" ] && return 0
  done
  return 1
}

if have_postgres_server; then
  echo "ci: PostgreSQL server binaries present"
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "ci: no PostgreSQL server binaries and no apt-get: install the PostgreSQL server (initdb, pg_ctl) or set TALKIDE_TEST_PG_URL" >&2
  exit 1
fi
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
echo "ci: installing the PostgreSQL server from Debian (apt-get install postgresql)"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends postgresql >/dev/null
have_postgres_server || {
  echo "ci: apt-get installed postgresql but initdb/pg_ctl are still missing" >&2
  exit 1
}
echo "ci: PostgreSQL server binaries installed"
