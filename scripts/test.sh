#!/usr/bin/env bash
# The README's test command: installs what the tests need, builds every target, runs every test.
# CI (`.ci/run`) runs exactly this.
set -euo pipefail
cd "$(dirname "$0")/.."

# A clean build gains nothing from incremental caches, which double the size of target/.
export CARGO_INCREMENTAL=0

bash scripts/install-browser.sh
cargo build --workspace --all-targets
cargo test --workspace
bash scripts/python-tests.sh

# The profile-optimised build (scripts/bolt.py, README "The fastest build"): BOLT installed, the
# program and plugins built with their relocations, a short training set, and the script's own
# check that the optimised build plays exactly the games of the plain one.
bash scripts/install-bolt.sh
python3 scripts/bolt.py --quick --out target/bolt-check
