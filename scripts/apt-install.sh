#!/usr/bin/env bash
# Installs Debian packages with apt-get, as root or through password-less sudo, for the test
# scripts (install-browser.sh):
#     bash scripts/apt-install.sh CALLER PACKAGE...
# CALLER names the script in messages. Exits non-zero with a message saying what to install
# by hand when apt-get is missing, root is needed, or the install fails.
set -euo pipefail

caller=$1
shift

fail() {
    echo "$caller: $*" >&2
    echo "$caller: install Debian's packages $* by hand, then run again" >&2
    exit 1
}

command -v apt-get >/dev/null 2>&1 || fail "$@ (apt-get not found: this script knows Debian and its derivatives only)"

if [ "$(id -u)" -eq 0 ]; then
    as_root=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    as_root=(sudo -n)
else
    fail "$@ (installing needs root or password-less sudo)"
fi

echo "$caller: installing $* (apt-get)" >&2
export DEBIAN_FRONTEND=noninteractive
"${as_root[@]}" apt-get update -qq >/dev/null || fail "$@ (apt-get update failed)"
"${as_root[@]}" apt-get install -y -qq --no-install-recommends "$@" >/dev/null \
    || fail "$@ (apt-get install failed)"
