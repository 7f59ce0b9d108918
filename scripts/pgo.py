#!/usr/bin/env python3
"""The fastest build: the program and its plugins built by rustc's profile-guided
optimisation (PGO; issue 33).

`cargo build --release` compiles without knowing which way a game's branches go. This script
builds the program and every plugin once with counters (`-C profile-generate`), plays a
training set of seeded games with them, and builds again from the counts (`-C
profile-use`): the compiler then lays the likely side of each branch straight, inlines the
hot calls and moves cold code aside. Every configuration gains, the base game too.

    python3 scripts/pgo.py [--out target/pgo] [--quick] [--reuse-profile]
        [--python INTERPRETER]

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
5. With `--python INTERPRETER` (an interpreter with pip and numpy), does the same for the
   Python package, whose native module holds its own copy of the engine: a wheel with
   counters (`target/pgo-python-train`), trained through Python with the same games plus
   the batch loop an agent's trainer runs (with the optimised plugins of OUT, which count
   nothing), its profile `OUT/python.profdata`, then the wheel built from it
   (`target/pgo-python`) into `OUT/wheels/`. The check: `carcassonne.simulate` with the
   optimised wheel and plugins gives the counting program's summaries. (The program's
   profile cannot serve: cargo resolves the module's dependencies with other features, so
   the engine's functions carry other symbol names there, and a profile is matched by
   name.)
"""

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
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
PYTHON_TRAIN_TARGET = ROOT / "target" / "pgo-python-train"
PYTHON_TARGET = ROOT / "target" / "pgo-python"
# Both builds play these seeded games (the same games, time fields aside): games, bots,
# expansions.
CHECKS = [(200, "random", ""), (100, "random", NINE), (60, "random", NEWER),
          (30, "random", NINE + ",tactician,promotions"),
          (2, "greedy,random", NINE), (1, "mcts:30,random", NINE)]
CHECK_SEED = 5


START = time.monotonic()


def say(message: str):
    """A step of the script, with the minutes and seconds since it started."""
    m, sec = divmod(int(time.monotonic() - START), 60)
    print(f"[{m}:{sec:02}] {message}", flush=True)


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
    for i, (games, bots, expansions) in enumerate(CHECKS):
        a, b = scratch / f"counting-{i}", scratch / f"optimised-{i}"
        sa = simulate(counting, games, bots, expansions, CHECK_SEED, counting_env, a)
        sb = simulate(optimised, games, bots, expansions, CHECK_SEED, game_env(), b)
        if without_times(sa) != without_times(sb):
            sys.exit(f"the optimised build plays other games: {bots} {expansions or 'base'}")
        for record in sorted(a.iterdir()):
            if record.read_bytes() != (b / record.name).read_bytes():
                sys.exit(f"the optimised build wrote another record: {record.name} "
                         f"({bots} {expansions or 'base'})")


# The start of both programs a wheel's interpreter runs: `summaries(runs, seed)` plays each
# (games, bots, expansions) run as the program's `simulate` does, through
# `carcassonne.simulate`, and yields its summary.
PYTHON_RUNS = """
import json, os, sys
import carcassonne
def summaries(runs, seed):
    for games, bots, expansions in runs:
        yield carcassonne.simulate(bots=bots.split(","), games=games,
                                   expansions=[e for e in expansions.split(",") if e],
                                   players=2, seed=seed, threads=1)
"""

# The check: the wheel looks for its plugins in OUT first; the summaries of `CHECKS`, one
# JSON line each.
PYTHON_CHECK = PYTHON_RUNS + """
libraries = os.environ["CARCASSONNE_LIBRARY_PATH"].split(os.pathsep)[0]
if libraries != sys.argv[3]:
    sys.exit(f"the wheel looks for its plugins in {libraries} first, not in {sys.argv[3]}")
for summary in summaries(json.loads(sys.argv[1]), int(sys.argv[2])):
    print(json.dumps(summary))
"""

# The training of the counting wheel: the training runs, then the batch loop of an agent's
# trainer (masks, compact observations, a bot's ids, a step) on the base game and the nine.
PYTHON_TRAIN = PYTHON_RUNS + """
seed, steps, nine = int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
for _ in summaries(json.loads(sys.argv[1]), seed):
    pass
for expansions in ([], nine.split(",")):
    batch = carcassonne.BatchGames(64, expansions, {}, 2, seed, threads=1)
    for k in range(steps):
        batch.action_masks()
        if k % 8 == 0:
            batch.observations("compact")
        batch.step(batch.bot_actions("random", k))
"""


def cargo_env(target_dir: Path, flag: str, **variables: str) -> dict:
    """The environment of a cargo build into `target_dir` with `flag` added to the
    environment's `RUSTFLAGS`."""
    return dict(os.environ, CARGO_TARGET_DIR=str(target_dir),
                RUSTFLAGS=(os.environ.get("RUSTFLAGS", "") + " " + flag).strip(), **variables)


def wheel_env(site: Path, **variables: str) -> dict:
    """The environment of a run of the wheel installed in `site`: `game_env`'s, without an
    inherited `CARCASSONNE_LIBRARY_PATH`, so that the wheel finds the plugins of its build."""
    env = game_env(PYTHONPATH=str(site), **variables)
    env.pop("CARCASSONNE_LIBRARY_PATH", None)
    return env


def build_wheel(python: Path, host: str, flag: str, target_dir: Path, wheels: Path,
                plugins: Path) -> Path:
    """The Python package built by maturin (through pip) for `host` with `flag` into
    `target_dir`, as a wheel in `wheels` (emptied first), that looks for its plugins in
    `plugins` first."""
    say(f"building the Python package into {target_dir} ({flag.split('=')[0]})")
    shutil.rmtree(wheels, ignore_errors=True)
    wheels.mkdir(parents=True)
    env = cargo_env(target_dir, flag, MATURIN_PEP517_ARGS=f"--target {host}",
                    CARCASSONNE_WHEEL_LIBRARY_DIR=str(plugins))
    subprocess.run([str(python), "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(wheels),
                    str(ROOT / "host" / "python")], cwd=ROOT, env=env, check=True)
    built = sorted(wheels.glob("carcassonne-*.whl"))
    if len(built) != 1:
        sys.exit(f"expected one wheel in {wheels}, found {len(built)}")
    return built[0]


def install_apart(python: Path, wheel: Path, site: Path) -> Path:
    """`wheel` installed into the folder `site` (put on `PYTHONPATH` to import it)."""
    shutil.rmtree(site, ignore_errors=True)
    run([str(python), "-m", "pip", "install", "-q", "--no-deps", "--target", str(site),
         str(wheel)])
    return site


def python_profile(python: Path, host: str, profdata: Path, out: Path, scratch: Path,
                   quick: bool) -> Path:
    """`OUT/python.profdata`: the counts of a wheel with counters, trained through Python."""
    wheel = build_wheel(python, host, f"-Cprofile-generate={PYTHON_TRAIN_TARGET / 'counts'}",
                        PYTHON_TRAIN_TARGET, scratch / "train-wheel", out)
    site = install_apart(python, wheel, scratch / "train-site")
    raw = scratch / "raw-python"
    raw.mkdir()
    # The optimised plugins of OUT (where the wheel looks first) have no counters: the only
    # counts are the module's.
    env = wheel_env(site, LLVM_PROFILE_FILE=str(raw / "%m.profraw"))
    say("training the Python package")
    run([str(python), "-c", PYTHON_TRAIN, json.dumps(training_runs(quick)), str(TRAIN_SEED),
         str(40 if quick else 400), NINE], env=env, cwd=scratch)
    parts = sorted(raw.glob("*.profraw"))
    if len(parts) != 1:
        sys.exit(f"the Python training wrote {len(parts)} profiles, not the module's one")
    profile = out / "python.profdata"
    run([str(profdata), "merge", "-o", str(profile), str(parts[0])])
    return profile


def named_profile(profile: Path, target_dir: Path) -> Path:
    """A copy of `profile` in `target_dir` under a name made of its contents: cargo rebuilds
    when the flags change, not when a file they name does."""
    digest = hashlib.sha256(profile.read_bytes()).hexdigest()[:16]
    named = target_dir / f"{profile.stem}-{digest}.profdata"
    if not named.is_file():
        target_dir.mkdir(parents=True, exist_ok=True)
        for old in target_dir.glob(f"{profile.stem}-*.profdata"):
            old.unlink()
        shutil.copy2(profile, named)
    return named


def same_games_python(counting: Path, python: Path, site: Path, out: Path, scratch: Path,
                      counting_env):
    """The wheel installed in `site` looks for its plugins in `out` first and, with them,
    plays the counting program's games: `carcassonne.simulate` gives its summaries (time
    aside)."""
    env = wheel_env(site)
    lines = run([str(python), "-c", PYTHON_CHECK, json.dumps(CHECKS), str(CHECK_SEED),
                 str(out)], env=env, cwd=scratch).splitlines()
    if len(lines) != len(CHECKS):
        sys.exit(f"the wheel's check printed {len(lines)} summaries, not {len(CHECKS)}")
    for line, (games, bots, expansions) in zip(lines, CHECKS):
        expected = simulate(counting, games, bots, expansions, CHECK_SEED, counting_env)
        if without_times(line) != without_times(expected):
            sys.exit(f"the optimised wheel plays other games: {bots} {expansions or 'base'}")


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
    env = cargo_env(target_dir, flag)
    packages = [a for p, _ in plugins for a in ("-p", p)]
    say(f"building the program and its plugins into {target_dir} ({flag.split('=')[0]})")
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
    ap.add_argument("--python", type=Path, metavar="INTERPRETER",
                    help="also build the Python package from the profile (OUT/wheels) with "
                    "this interpreter, which needs pip and numpy, and check its games")
    args = ap.parse_args()
    if args.python:
        # Absolute, as the Python runs start elsewhere; not resolved, which would leave a
        # virtual environment for the interpreter it links to.
        args.python = Path(os.path.abspath(args.python))
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
                say(f"training: {games} games, {bots}, {expansions or 'base game'}")
                simulate(train_built / PROGRAM, games, bots, expansions, TRAIN_SEED, counting)
            parts = sorted(raw.glob("*.profraw"))
            if not parts:
                sys.exit("the training set wrote no profile")
            run([str(profdata), "merge", "-o", str(profile), *map(str, parts)])
            say(f"profile: {profile} ({len(parts)} libraries)")
        elif not profile.is_file():
            sys.exit(f"--reuse-profile: no profile at {profile}")
        built, objects = build(USE_TARGET, host,
                               f"-Cprofile-use={named_profile(profile, USE_TARGET)}", plugins)
        for o in objects:
            (out / o).unlink(missing_ok=True)
            shutil.copy2(built / o, out / o)
        say("checking that both builds play the same games")
        checks = tmp / "checks"
        checks.mkdir()
        same_games(train_built / PROGRAM, out / PROGRAM, checks, counting)
        if args.python:
            py_profile = out / "python.profdata"
            if not args.reuse_profile:
                py_profile = python_profile(args.python, host, profdata, out, tmp, args.quick)
            elif not py_profile.is_file():
                sys.exit(f"--reuse-profile: no profile at {py_profile}")
            flag = f"-Cprofile-use={named_profile(py_profile, PYTHON_TARGET)}"
            wheel = build_wheel(args.python, host, flag, PYTHON_TARGET, out / "wheels", out)
            say(f"checking that the wheel plays the same games: {wheel.name}")
            site = install_apart(args.python, wheel, tmp / "site")
            same_games_python(train_built / PROGRAM, args.python, site, out, checks, counting)
    say(f"done: {out / PROGRAM} (its plugins beside it)")
    if args.python:
        say(f"done: {wheel} (`pip install` it: it loads the plugins of {out})")


if __name__ == "__main__":
    main()
