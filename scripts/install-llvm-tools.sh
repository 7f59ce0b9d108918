#!/usr/bin/env bash
# Installs rustup's `llvm-tools` component for scripts/pgo.py (the profile-guided build) and
# its check in scripts/test.sh: the `llvm-profdata` of rustc's own LLVM, which merges the
# training set's counts. A system LLVM rarely reads the profile format of rustc's LLVM.
# Does nothing when the component is already there.
set -euo pipefail

host=$(rustc -vV | sed -n 's/^host: //p')
profdata="$(rustc --print sysroot)/lib/rustlib/$host/bin/llvm-profdata"
[ -x "$profdata" ] && exit 0
command -v rustup >/dev/null 2>&1 || {
    echo "install-llvm-tools.sh: $profdata is missing and there is no rustup to install it" \
        "(install rustc's llvm-tools by the means that installed rustc)" >&2
    exit 1
}
rustup component add llvm-tools
[ -x "$profdata" ] || { echo "install-llvm-tools.sh: $profdata is still missing" >&2; exit 1; }
