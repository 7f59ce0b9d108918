#!/usr/bin/env bash
# Installs what the real-browser test of `carcassonne serve` needs: Debian's chromium and
# chromium-driver (/usr/bin/chromium, /usr/bin/chromedriver). Does nothing when both are
# there; otherwise installs them with apt-get, as root or through sudo. Called by
# scripts/test.sh before the cargo steps.
set -euo pipefail

if [ -x /usr/bin/chromium ] && [ -x /usr/bin/chromedriver ]; then
    exit 0
fi

fail() {
    echo "install-browser.sh: $*" >&2
    echo "install-browser.sh: install Debian's packages chromium and chromium-driver by hand, then run again" >&2
    exit 1
}

command -v apt-get >/dev/null 2>&1 || fail "apt-get not found (this script knows Debian and its derivatives only)"

if [ "$(id -u)" -eq 0 ]; then
    as_root=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    as_root=(sudo -n)
else
    fail "chromium or chromedriver is missing, and installing them needs root (or password-less sudo)"
fi

echo "install-browser.sh: installing chromium and chromium-driver (apt-get)" >&2
export DEBIAN_FRONTEND=noninteractive
"${as_root[@]}" apt-get update -qq >/dev/null || fail "apt-get update failed"
# No recommends (desktop services a headless test does not need) but a font for the page's text.
"${as_root[@]}" apt-get install -y -qq --no-install-recommends chromium chromium-driver fonts-liberation >/dev/null \
    || fail "apt-get install chromium chromium-driver failed"

[ -x /usr/bin/chromium ] || fail "/usr/bin/chromium is still missing after the install"
[ -x /usr/bin/chromedriver ] || fail "/usr/bin/chromedriver is still missing after the install"
echo "install-browser.sh: $(/usr/bin/chromium --version 2>/dev/null || echo chromium), $(/usr/bin/chromedriver --version 2>/dev/null | head -1)" >&2
