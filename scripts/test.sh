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

# The fastest build (scripts/pgo.py, README "The fastest build"): rustc's llvm-tools installed,
# the program and plugins built with counters, a short training set, the build from its profile,
# and the script's own check that the optimised build plays exactly the games of the other; the
# same for the Python package's wheel, with the interpreter of the Python tests' environment.
bash scripts/install-llvm-tools.sh
python3 scripts/pgo.py --quick --out target/pgo-check --python .venv-python/bin/python
