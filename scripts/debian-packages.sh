#!/bin/sh
# Installs the Debian packages the test suite needs when they are missing: a JDK 17 and the
# Jackson and JUnit 5 jars for the Kotlin renderer (runtimes/kotlin), and chromium for the web
# console's browser suite (driven by playwright-core; the playwright package's own browser
# download does not work here). Idempotent: checks first, runs `apt-get update` once and
# installs only what is missing, without questions.
set -eu
packages="openjdk-17-jdk-headless libjackson2-databind-java junit5 chromium"
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
