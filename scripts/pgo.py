#!/usr/bin/env python3
"""The fastest build: the program and its plugins built by rustc's profile-guided
optimisation (PGO; issue 33).

`cargo build --release` compiles without knowing which way a game's branches go. This script
builds the program and every plugin once with counters (`-C profile-generate`), plays a
training set of seeded games with them, and builds again from the counts (`-C
profile-use`): the compiler then lays the likely side of each branch straight, inlines the
hot calls and moves cold code aside. Every configuration gains, the base game too.

    python3 scripts/pgo.py [--out target/pgo] [--quick] [--reuse-profile]

1. Builds the program and every plugin with counters for this machine's target
   (`target/pgo-train/<host>/release`; a `--target` build, so that the flag reaches neither
   build scripts nor procedural macros).
2. Plays the training set (random play on the base game, every set alone and the mixes;
   greedy and MCTS games) with seeds that no benchmark uses, and merges the counts of the
   program and of every plugin into `OUT/carcassonne.profdata` with the `llvm-profdata` of
   rustc's own LLVM (`rustup component add llvm-tools`; a system LLVM rarely reads rustc's
   format).
3. Builds again from that profile (`target/pgo-use`) and copies the program and its plugins
   side by side into OUT (the program finds its plugins beside itself).
4. Checks that the optimised build plays exactly the games of the counting one (summaries
   and records of a set of seeded games, time fields aside), and fails if not: a profile
   may move code, never change a game.
"""

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from budgets import CONFIGS, NINE, ROOT, SET, SIX, game_env, plugin_packages  # noqa: E402

PROGRAM = "carcassonne"
NEWER = "river,abbot-garden,hills-sheep,bridges-castles-bazaars,big-top"
# Every single set of the budget table, and the Phantom (no budget row of its own).
SINGLE = [e for _, e, budget, _ in CONFIGS if budget == SET] + ["phantom"]
# Training seeds: far from the seeds the benchmarks and tests use (1, 5, 7, 42).
TRAIN_SEED = 90001
TRAIN_TARGET = ROOT / "target" / "pgo-train"
USE_TARGET = ROOT / "target" / "pgo-use"


def run(cmd, **kw):
    """Runs `cmd`; exits with its error output if it fails, else returns its output."""
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


def simulate(binary: Path, games, bots, expansions, seed, env, record=None):
    cmd = [str(binary), "simulate", "--games", str(games), "--players", "2", "--seed",
           str(seed), "--threads", "1", "--json", "--bots", bots]
    if expansions:
        cmd += ["--expansions", expansions]
    if record:
        cmd += ["--record", str(record)]
    return run(cmd, env=env)


def without_times(text: str) -> str:
    summary = json.loads(text)
    summary.pop("games_per_second", None)
    return json.dumps(summary, sort_keys=True)


def same_games(counting: Path, optimised: Path, scratch: Path, counting_env):
    """Both builds play the same games: summaries (time aside) and every record."""
    checks = [(200, "random", ""), (100, "random", NINE), (60, "random", NEWER),
              (30, "random", NINE + ",tactician,promotions"),
              (2, "greedy,random", NINE), (1, "mcts:30,random", NINE)]
    for i, (games, bots, expansions) in enumerate(checks):
        a, b = scratch / f"counting-{i}", scratch / f"optimised-{i}"
        sa = simulate(counting, games, bots, expansions, 5, counting_env, a)
        sb = simulate(optimised, games, bots, expansions, 5, game_env(), b)
        if without_times(sa) != without_times(sb):
            sys.exit(f"the optimised build plays other games: {bots} {expansions or 'base'}")
        for record in sorted(a.iterdir()):
            if record.read_bytes() != (b / record.name).read_bytes():
                sys.exit(f"the optimised build wrote another record: {record.name} "
                         f"({bots} {expansions or 'base'})")


def host_triple() -> str:
    for line in run(["rustc", "-vV"]).splitlines():
        if line.startswith("host: "):
            return line.split(": ", 1)[1].strip()
    sys.exit("rustc -vV names no host")


def llvm_profdata(host: str) -> Path:
    """rustc's own `llvm-profdata`: the profile format follows rustc's LLVM version, which a
    system LLVM rarely matches."""
    sysroot = Path(run(["rustc", "--print", "sysroot"]).strip())
    tool = sysroot / "lib" / "rustlib" / host / "bin" / "llvm-profdata"
    if not tool.is_file():
        sys.exit(f"{tool} is missing: install it with `rustup component add llvm-tools`")
    return tool


def build(target_dir: Path, host: str, flag: str, plugins):
    """The program and every plugin, built for `host` (so that `flag` reaches neither build
    scripts nor procedural macros) into `target_dir`."""
    env = dict(os.environ, CARGO_TARGET_DIR=str(target_dir),
               RUSTFLAGS=(os.environ.get("RUSTFLAGS", "") + " " + flag).strip())
    packages = [a for p, _ in plugins for a in ("-p", p)]
    subprocess.run(["cargo", "build", "--release", "--target", host, "-p", "carcassonne-cli",
                    *packages], cwd=ROOT, env=env, check=True)
    built = target_dir / host / "release"
    objects = [PROGRAM] + [lib for _, lib in plugins]
    missing = [o for o in objects if not (built / o).is_file()]
    if missing:
        sys.exit(f"not built in {built}: {', '.join(missing)}")
    return built, objects


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=ROOT / "target" / "pgo",
                    help="where the optimised program, its plugins and the merged profile go "
                    "(default target/pgo)")
    ap.add_argument("--quick", action="store_true",
                    help="a training set a tenth the size (for tests of this script)")
    ap.add_argument("--reuse-profile", action="store_true",
                    help="build from the profile a previous run left in OUT (no training)")
    args = ap.parse_args()
    host = host_triple()
    profdata = llvm_profdata(host)
    plugins = plugin_packages()
    out = args.out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    profile = out / "carcassonne.profdata"

    with tempfile.TemporaryDirectory(prefix="pgo-") as tmp:
        tmp = Path(tmp)
        raw = tmp / "raw"
        raw.mkdir()
        # Every counting run writes one file per library (`%m`: the program and each plugin
        # apart) into this run's own folder, so no earlier run's counts are merged in.
        counting = game_env(LLVM_PROFILE_FILE=str(raw / "%m.profraw"))
        # A fixed default folder: the flags, and so cargo's fingerprints, stay the same from
        # run to run (`LLVM_PROFILE_FILE` says where the counts go).
        train_built, _ = build(TRAIN_TARGET, host,
                               f"-Cprofile-generate={TRAIN_TARGET / 'counts'}", plugins)
        if not args.reuse_profile:
            for games, bots, expansions in training_runs(args.quick):
                print(f"training: {games} games, {bots}, {expansions or 'base game'}",
                      flush=True)
                simulate(train_built / PROGRAM, games, bots, expansions, TRAIN_SEED, counting)
            parts = sorted(raw.glob("*.profraw"))
            if not parts:
                sys.exit("the training set wrote no profile")
            run([str(profdata), "merge", "-o", str(profile), *map(str, parts)])
            print(f"profile: {profile} ({len(parts)} libraries)", flush=True)
        elif not profile.is_file():
            sys.exit(f"--reuse-profile: no profile at {profile}")
        # Cargo rebuilds when the flags change, not when a file they name does: the build
        # reads the profile under a name made of its contents.
        digest = hashlib.sha256(profile.read_bytes()).hexdigest()[:16]
        named = USE_TARGET / f"carcassonne-{digest}.profdata"
        if not named.is_file():
            USE_TARGET.mkdir(parents=True, exist_ok=True)
            for old in USE_TARGET.glob("carcassonne-*.profdata"):
                old.unlink()
            shutil.copy2(profile, named)
        built, objects = build(USE_TARGET, host, f"-Cprofile-use={named}", plugins)
        for o in objects:
            (out / o).unlink(missing_ok=True)
            shutil.copy2(built / o, out / o)
        print("checking that both builds play the same games", flush=True)
        checks = tmp / "checks"
        checks.mkdir()
        same_games(train_built / PROGRAM, out / PROGRAM, checks, counting)
    print(f"done: {out / PROGRAM} (its plugins beside it)")


if __name__ == "__main__":
    main()
