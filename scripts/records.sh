#!/usr/bin/env bash
# The identity record set: 24 seeded configurations (random, greedy and MCTS bots; the base game,
# every official set alone, the six, the nine, everything, the nine with fan scripts), each game's
# record and the summary written under OUTDIR. A change meant to keep play unchanged must leave
# the set identical, apart from timings:
#   scripts/records.sh target/release/carcassonne /tmp/rec-after
#   diff -r -I games_per_second /tmp/rec-before /tmp/rec-after
# usage: scripts/records.sh BIN OUTDIR   (BIN's plugins beside it, as `cargo build --release` puts them)
set -u
BIN=$(realpath "$1")
OUT=$2
cd "$(dirname "$0")/.."
rm -rf "$OUT"
mkdir -p "$OUT"
NINE=inns-cathedrals,traders-builders,princess-dragon,tower,abbey-mayor,count,river2,king-robber,heretics-shrines
SIX=inns-cathedrals,traders-builders,princess-dragon,tower,abbey-mayor,count
status=0
run() {
  local name=$1
  shift
  if ! "$BIN" simulate --seed 7 --threads 1 --json --record "$OUT/$name" "$@" \
      > "$OUT/$name.summary.json" 2> "$OUT/$name.err"; then
    echo "records.sh: $name failed (see $OUT/$name.err)" >&2
    status=1
  fi
}
run base --games 20 --players 3
for e in inns-cathedrals traders-builders princess-dragon tower abbey-mayor count king-robber \
    river river2 heretics-shrines abbot-garden hills-sheep bridges-castles-bazaars big-top phantom; do
  run "$e" --games 12 --players 3 --expansions "$e"
done
run six --games 8 --players 4 --expansions "$SIX"
run nine --games 8 --players 2 --expansions "$NINE"
run all --games 6 --players 3 --expansions "$NINE,abbot-garden,hills-sheep,bridges-castles-bazaars,big-top,phantom"
run fans --games 6 --players 3 --expansions "$NINE,tactician,fishermen,courier,wells"
run greedy-base --games 4 --players 2 --bots greedy
run greedy-nine --games 2 --players 2 --bots greedy --expansions "$NINE"
run mcts-base --games 2 --players 2 --bots mcts:40
run mcts-nine --games 1 --players 2 --bots mcts:30,greedy --expansions "$NINE,bridges-castles-bazaars"
exit $status
