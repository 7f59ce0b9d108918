#!/usr/bin/env bash
# The Python package's tests (issue 21), the last step of scripts/test.sh.
#
# Creates .venv-python/ if missing, installs host/python/requirements-test.txt and the
# package (`pip install ./host/python`, built by maturin in cargo's dev profile so it reuses
# target/debug and matches the plugins `cargo build` put there: a plugin loads only into a
# program built by the same compiler from the same core sources, whatever the profile), then
# runs pytest on host/python/tests. Expects `cargo build --workspace --all-targets` to have
# run (scripts/test.sh does); builds the CLI and the plugins otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
venv="$root/.venv-python"
python="${PYTHON:-python3}"

if [ ! -x "$venv/bin/python" ]; then
  if ! "$python" -m venv "$venv" 2>/dev/null; then
    # Debian ships venv apart from the interpreter.
    if command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
      rm -rf "$venv"
      apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >/dev/null
      "$python" -m venv "$venv"
    else
      echo "python-tests: cannot create a virtual environment (install python3-venv)" >&2
      exit 1
    fi
  fi
fi
"$venv/bin/python" -m pip install -q --upgrade pip
"$venv/bin/python" -m pip install -q -r host/python/requirements-test.txt

# The CLI (records replayed by the tests) and the plugins, in target/debug: the same command
# as scripts/test.sh's first step (so nothing is rebuilt there: another package selection
# would unify features differently and rebuild the workspace). PYTHON_TESTS_NO_BUILD=1 skips
# it when they are known to be built (iterating on the Python package alone).
[ -n "${PYTHON_TESTS_NO_BUILD:-}" ] || cargo build -q --workspace --all-targets

MATURIN_PEP517_ARGS="--profile dev" "$venv/bin/python" -m pip install -q --force-reinstall --no-deps ./host/python

export CARCASSONNE_LIBRARY_PATH="$root/target/debug"
cd "$root/host/python"
"$venv/bin/python" -m pytest -q tests "$@"
