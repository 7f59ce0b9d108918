#!/usr/bin/env python3
"""A profile-optimised build of the program and its plugins, by BOLT (issue 33).

`cargo build --release` lays code out in source order: the per-turn code of the program and
of each plugin lies among code that runs once a game, and a mix of expansions runs more hot
code than the L1 instruction cache holds (docs/speed-log.md). BOLT, LLVM's post-link
optimiser, rewrites a finished executable or shared library from a profile of a run: it
orders each function's blocks so the common path falls through, moves the cold blocks out of
line and puts the hot functions together. It reads machine code, so it does not depend on
the LLVM version inside rustc (PGO does, and Debian's `llvm-profdata` is older than rustc's).

    python3 scripts/bolt.py [--out target/bolt] [--no-build] [--quick]

1. Builds the program and every plugin with their relocations kept
   (`-C link-arg=-Wl,--emit-relocs`, in `target/relocs`; BOLT needs them to move functions).
2. Instruments each of them (`llvm-bolt -instrument`), runs a training set of seeded games
   (random, greedy and MCTS bots; the base game, every official set alone, the mixes and both
   fan scripts) with seeds that no benchmark uses, and merges each library's profiles.
3. Rewrites each one from its profile into `--out`, the program and the plugins side by side
   as `cargo` leaves them (the program finds its plugins beside itself).
4. Checks that the optimised build plays exactly the games of the plain one (records and
   summaries of a set of seeded games, time fields aside), and fails if not.

Needs `llvm-bolt` and `merge-fdata` (Debian: `apt-get install bolt-19`). Linux on x86-64 only.
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from budgets import CONFIGS, NINE, ROOT, SET, SIX, plugin_packages  # noqa: E402

RELOCS_TARGET = ROOT / "target" / "relocs"
PROGRAM = "carcassonne"
NEWER = "river,abbot-garden,hills-sheep,bridges-castles-bazaars,big-top"
# Every single set of the budget table, and the Phantom (no budget row of its own).
SINGLE = [e for _, e, budget, _ in CONFIGS if budget == SET] + ["phantom"]
# Training seeds: far from the seeds the benchmarks and tests use (1, 5, 7, 42).
TRAIN_SEED = 90001
# BOLT's rewrite: block order, hot and cold parts split, function order, identical code folded.
# (Tried and not kept: -plt, -peepholes, -inline-small-functions, indirect-call promotion:
# no fewer instructions or misses; docs/speed-log.md.)
OPTIMISE = ["-reorder-blocks=ext-tsp", "-reorder-functions=cdsort", "-split-functions",
            "-split-all-cold", "-split-eh", "-icf=1", "-use-gnu-stack"]


def tool(name: str) -> Path:
    """The real path of an LLVM tool: `name`, `name-NN` on PATH, or /usr/lib/llvm-NN/bin.

    The real path matters: llvm-bolt finds its instrumentation runtime relative to itself."""
    found = shutil.which(name)
    if not found:
        versioned = sorted(Path("/usr/lib").glob(f"llvm-*/bin/{name}"),
                           key=lambda p: int(re.search(r"llvm-(\d+)", str(p)).group(1)))
        found = str(versioned[-1]) if versioned else None
    if not found:
        sys.exit(f"{name} not found: install BOLT (Debian: apt-get install bolt-19)")
    return Path(os.path.realpath(found))


def build(plugins):
    env = dict(os.environ, CARGO_TARGET_DIR=str(RELOCS_TARGET),
               RUSTFLAGS=(os.environ.get("RUSTFLAGS", "") + " -C link-arg=-Wl,--emit-relocs").strip())
    packages = [a for p, _ in plugins for a in ("-p", p)]
    subprocess.run(["cargo", "build", "--release", "-p", "carcassonne-cli", *packages],
                   cwd=ROOT, env=env, check=True)


def run(cmd, **kw):
    done = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if done.returncode != 0:
        sys.exit(f"failed ({done.returncode}): {' '.join(map(str, cmd))}\n{done.stderr[-3000:]}")
    return done.stdout


def training_runs(quick: bool):
    """(games, bots, expansions) of the training set: every set's rules with random play, the
    mixes with random and greedy play, and short MCTS games (the search's own code)."""
    scale = 10 if quick else 1
    runs = [(4000 // scale, "random", "")]
    runs += [(1000 // scale, "random", s) for s in SINGLE]
    runs += [(1000 // scale, "random", m) for m in (SIX, NINE, NINE + ",tactician,promotions",
                                                   NEWER, NINE + "," + NEWER)]
    runs += [(40 // scale, "greedy,random", ""), (10 // scale, "greedy,random", NINE)]
    runs += [(max(1, 4 // scale), "mcts:200,random", ""),
             (max(1, 2 // scale), "mcts:200,random", NINE)]
    return runs


def simulate(binary: Path, games, bots, expansions, seed, record=None):
    cmd = [str(binary), "simulate", "--games", str(games), "--players", "2", "--seed",
           str(seed), "--threads", "1", "--json", "--bots", bots]
    if expansions:
        cmd += ["--expansions", expansions]
    if record:
        cmd += ["--record", str(record)]
    return run(cmd, env=game_env())


def game_env():
    path = os.pathsep.join([str(ROOT / "expansions"), str(ROOT / "fan-expansions")])
    return dict(os.environ, CARCASSONNE_PLUGIN_PATH=path)


def without_times(text: str) -> str:
    summary = json.loads(text)
    summary.pop("games_per_second", None)
    return json.dumps(summary, sort_keys=True)


def same_games(plain: Path, optimised: Path, scratch: Path):
    """Both builds play the same games: summaries (time aside) and every record."""
    checks = [(200, "random", ""), (100, "random", NINE), (60, "random", NEWER),
              (30, "random", NINE + ",tactician,promotions"),
              (2, "greedy,random", NINE), (1, "mcts:30,random", NINE)]
    for i, (games, bots, expansions) in enumerate(checks):
        a, b = scratch / f"plain-{i}", scratch / f"bolt-{i}"
        sa = simulate(plain, games, bots, expansions, 5, a)
        sb = simulate(optimised, games, bots, expansions, 5, b)
        if without_times(sa) != without_times(sb):
            sys.exit(f"the optimised build plays other games: {bots} {expansions or 'base'}")
        for record in sorted(a.iterdir()):
            if record.read_bytes() != (b / record.name).read_bytes():
                sys.exit(f"the optimised build wrote another record: {record.name} "
                         f"({bots} {expansions or 'base'})")


def train(bolt: Path, merge: Path, built: Path, objects, profiles: Path, quick: bool, tmp: Path):
    """Instruments every object, plays the training set, writes one merged profile each."""
    instrumented, raw = tmp / "instrumented", tmp / "raw"
    instrumented.mkdir()
    raw.mkdir()
    for o in objects:
        print(f"instrumenting {o}", flush=True)
        run([str(bolt), str(built / o), "-instrument", "-o", str(instrumented / o),
             f"--instrumentation-file={raw / o}", "--instrumentation-file-append-pid"])
    for games, bots, expansions in training_runs(quick):
        print(f"training: {games} games, {bots}, {expansions or 'base game'}", flush=True)
        simulate(instrumented / PROGRAM, games, bots, expansions, TRAIN_SEED)
    profiles.mkdir(parents=True, exist_ok=True)
    for o in objects:
        merged = profiles / f"{o}.fdata"
        merged.unlink(missing_ok=True)
        parts = sorted(raw.glob(f"{o}.*.fdata"))
        if parts:
            merged.write_text(run([str(merge), *map(str, parts)]))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=ROOT / "target" / "bolt",
                    help="where the optimised program and plugins go (default target/bolt); "
                    "their profiles go to its `profiles` folder")
    ap.add_argument("--no-build", action="store_true",
                    help="use target/relocs as it is (built with --emit-relocs before)")
    ap.add_argument("--reuse-profiles", action="store_true",
                    help="optimise from the profiles a previous run left in OUT/profiles")
    ap.add_argument("--quick", action="store_true",
                    help="a training set a tenth the size (for tests of this script)")
    ap.add_argument("--bolt-option", action="append", default=[], metavar="OPT",
                    help="one more llvm-bolt option for the rewrite (repeatable)")
    args = ap.parse_args()
    if sys.platform != "linux" or os.uname().machine != "x86_64":
        sys.exit("BOLT builds are made for Linux on x86-64 only")
    bolt, merge = tool("llvm-bolt"), tool("merge-fdata")
    plugins = plugin_packages()
    if not args.no_build:
        build(plugins)
    built = RELOCS_TARGET / "release"
    objects = [PROGRAM] + [lib for _, lib in plugins]
    missing = [o for o in objects if not (built / o).is_file()]
    if missing:
        sys.exit(f"not built in {built}: {', '.join(missing)}")
    profiles = args.out / "profiles"
    args.out.mkdir(parents=True, exist_ok=True)

    with tempfile.TemporaryDirectory(prefix="bolt-") as tmp:
        tmp = Path(tmp)
        if not args.reuse_profiles:
            train(bolt, merge, built, objects, profiles, args.quick, tmp)
        for o in objects:
            merged, target = profiles / f"{o}.fdata", args.out / o
            target.unlink(missing_ok=True)
            if not merged.is_file():
                # Never loaded in training: kept as built.
                print(f"{o}: no profile, copied as built", flush=True)
                shutil.copy2(built / o, target)
                continue
            print(f"optimising {o}", flush=True)
            run([str(bolt), str(built / o), "-o", str(target), f"-data={merged}", *OPTIMISE,
                 *args.bolt_option])
        print("checking that both builds play the same games", flush=True)
        same_games(built / PROGRAM, args.out / PROGRAM, tmp)
    print(f"done: {args.out / PROGRAM} (its plugins beside it)")


if __name__ == "__main__":
    main()
