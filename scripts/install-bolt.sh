#!/usr/bin/env bash
# Installs BOLT, LLVM's post-link optimiser, for scripts/bolt.py (the profile-optimised build)
# and its check in scripts/test.sh: Debian's package bolt-19 (llvm-bolt, merge-fdata and the
# instrumentation runtime). Does nothing when an llvm-bolt is already there.
set -euo pipefail
cd "$(dirname "$0")"

have_bolt() {
    command -v llvm-bolt >/dev/null 2>&1 || compgen -G "/usr/lib/llvm-*/bin/llvm-bolt" >/dev/null
}

have_bolt && exit 0
bash apt-install.sh install-bolt.sh "${BOLT_PACKAGE:-bolt-19}"
have_bolt || { echo "install-bolt.sh: llvm-bolt is still missing after the install" >&2; exit 1; }
