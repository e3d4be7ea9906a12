#!/bin/sh
# The web console's browser suite (apps/be/src/http/console.browser.test.ts) drives Debian's
# chromium through playwright-core (the playwright package's own browser download does not
# work in CI). Installs it when missing; does nothing when it is there.
set -eu
if [ -x /usr/bin/chromium ]; then
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "ensure-chromium: /usr/bin/chromium is missing and this is not a Debian-like system; install Chromium at /usr/bin/chromium." >&2
  exit 1
fi
as_root=""
if [ "$(id -u)" != 0 ]; then
  command -v sudo >/dev/null 2>&1 || {
    echo "ensure-chromium: run as root or install sudo, or install it yourself: apt-get install -y chromium" >&2
    exit 1
  }
  as_root="sudo"
fi
echo "ensure-chromium: installing chromium (apt-get)" >&2
$as_root apt-get update
DEBIAN_FRONTEND=noninteractive $as_root apt-get install -y --no-install-recommends chromium
