#!/usr/bin/env bash
# The expansion speed budgets (issues 16-18): CPU time per game of random 2-player games
# on one thread, for each configuration against the base game, per game and per tile
# placed. Builds the release CLI and plugins first.
#
#   bash scripts/budgets.sh [GAMES] [RUNS]      (defaults: 20000 games, 3 runs, median)
#
# CPU time comes from `perf stat -e task-clock` when perf is installed (it does not count
# the time another process holds the core), else from the process's user+system time.
set -euo pipefail
cd "$(dirname "$0")/.."
games=${1:-20000}
runs=${2:-3}
plugins=()
for m in expansions/*/Cargo.toml; do
  plugins+=(-p "$(sed -n 's/^name = "\(.*\)"/\1/p' "$m" | head -1)")
done
cargo build --release -q -p carcassonne-cli "${plugins[@]}"
bin=target/release/carcassonne
export CARCASSONNE_PLUGIN_PATH="$PWD/expansions:$PWD/fan-expansions"
six=count,king-robber,river2,heretics-shrines,inns-cathedrals,traders-builders
eight=$six,princess-dragon,tower
nine=$eight,abbey-mayor
configs=(
  "base||"
  "inns-cathedrals|inns-cathedrals|1.4"
  "traders-builders|traders-builders|1.4"
  "princess-dragon|princess-dragon|1.5"
  "tower|tower|1.5"
  "abbey-mayor|abbey-mayor|1.4"
  "six official|$six|2.6"
  "eight official|$eight|3"
  "nine official|$nine|3"
  "nine + fan (vs nine)|$nine,tactician,promotions|1.5"
)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cpu_ms() { # command... -> CPU milliseconds of the command
  if command -v perf >/dev/null 2>&1; then
    perf stat -e task-clock -x, -o "$tmp/perf" "$@" >"$tmp/out"
    grep task-clock "$tmp/perf" | cut -d, -f1
  else
    /usr/bin/time -f '%U %S' -o "$tmp/time" "$@" >"$tmp/out"
    awk '{printf "%.1f", ($1 + $2) * 1000}' "$tmp/time"
  fi
}
for c in "${configs[@]}"; do
  IFS='|' read -r name exps budget <<<"$c"
  args=(simulate --games "$games" --players 2 --seed 1 --threads 1 --json)
  [ -n "$exps" ] && args+=(--expansions "$exps")
  times=()
  for _ in $(seq "$runs"); do times+=("$(cpu_ms "$bin" "${args[@]}")"); done
  median=$(printf '%s\n' "${times[@]}" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
  read -r tiles decisions < <(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["tiles_mean"], d["decisions_mean"])' "$tmp/out")
  echo "$name|$median|$tiles|$decisions|$budget" >>"$tmp/rows"
done
python3 - "$tmp/rows" "$games" <<'PY'
import sys
rows = [l.rstrip("\n").split("|") for l in open(sys.argv[1])]
games = int(sys.argv[2])
base = None
by_name = {}
print("| configuration | tiles/game | decisions/game | µs/game | per game vs base | budget | µs/tile | per tile vs base |")
print("|---|---|---|---|---|---|---|---|")
for name, ms, tiles, dec, budget in rows:
    us = float(ms) * 1000 / games
    per_tile = us / float(tiles)
    if base is None:
        base = (us, per_tile)
        print(f"| {name} | {float(tiles):.1f} | {float(dec):.1f} | {us:.1f} | — | — | {per_tile:.3f} | — |")
        continue
    by_name[name] = (us, per_tile)
    # The fan scripts' budget is on top of the nine official expansions.
    ref = by_name.get("nine official", base) if "(vs nine)" in name else base
    r, rt = us / ref[0], per_tile / ref[1]
    mark = ""
    if budget:
        mark = f"≤ {budget}× " + ("✓" if r <= float(budget) else "✗")
    print(f"| {name} | {float(tiles):.1f} | {float(dec):.1f} | {us:.1f} | {r:.2f}× | {mark} | {per_tile:.3f} | {rt:.2f}× |")
PY
