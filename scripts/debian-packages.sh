#!/bin/sh
# Installs the Debian packages the test suite needs when they are missing: a JDK 17 and the
# Jackson and JUnit 5 jars for the Kotlin renderer (runtimes/kotlin), chromium for the web
# console's browser suite (driven by playwright-core; the playwright package's own browser
# download does not work here), and bubblewrap and socat for Claude Code's sandbox, in which
# the agent's commands run whenever a tool rule lets it run any (issue 49). Idempotent: checks
# first, runs `apt-get update` once and installs only what is missing, without questions.
#   sh scripts/debian-packages.sh           everything above
#   sh scripts/debian-packages.sh sandbox   only the sandbox's (what `npm start` needs when
#                                           TALKIDE_CLAUDE_ALLOWED_TOOLS allows commands)
set -eu
sandbox_packages="bubblewrap socat"
case "${1:-all}" in
  all) packages="openjdk-17-jdk-headless libjackson2-databind-java junit5 chromium $sandbox_packages" ;;
  sandbox) packages="$sandbox_packages" ;;
  *)
    echo "debian-packages: unknown set '$1'; use no argument (everything) or 'sandbox'" >&2
    exit 2
    ;;
esac
missing=""
for package in $packages; do
  status=$(dpkg-query -W -f='${Status}' "$package" 2>/dev/null || true)
  [ "$status" = "install ok installed" ] || missing="$missing $package"
done
if [ -z "$missing" ]; then
  echo "debian-packages: all present ($packages)"
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "debian-packages: missing$missing and no apt-get here; install them by other means" >&2
  exit 1
fi
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then sudo="sudo"; else
    echo "debian-packages: missing$missing; run this script as root (or with sudo)" >&2
    exit 1
  fi
fi
echo "debian-packages: installing$missing"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
# shellcheck disable=SC2086 # one word per package
$sudo apt-get install -y -qq --no-install-recommends $missing
