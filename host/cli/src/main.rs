//! # carcassonne-cli
//!
//! `carcassonne`: simulate, replay and inspect games. A thin layer: it parses the command
//! line (clap), calls the host crates, prints their results and prints any error as one
//! line, `error: <message>`, exit code 1 (2 for input `expansions test` cannot use). Its
//! own modules: `check` (`expansions check`), `scenarios` (`expansions test`), `skeleton`
//! (`expansions new`), `load` (a game file of either kind: our record or a `.jcz` save),
//! `error` (`CliError`, every crate's error in one enum).
//!
//! It must not know rhai, libloading or resvg (the script, plugins and raster crates do),
//! nor implement rules, formats or drawing itself.

mod balance_report;
mod check;
mod error;
mod load;
mod scenarios;
mod skeleton;

use carcassonne_files::escape_line;
use carcassonne_jcz::{self as jcz, assertions::Outcome};
use carcassonne_play::arena::{arena, ArenaReport};
use carcassonne_play::balance::{balance, BalanceConfig};
use carcassonne_play::record::Record;
use carcassonne_play::simulate::{simulate, FinishedGame, SimConfig};
use carcassonne_rules::{build_ruleset, parse_option, RulesSpec};
use clap::{Parser, Subcommand};
use error::CliError;
use load::{is_jcz, load_game, LoadedGame};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

/// `println!` that ends the program quietly when stdout is closed (`carcassonne … | head`)
/// instead of panicking on the broken pipe.
macro_rules! outln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let mut out = std::io::stdout().lock();
        if let Err(e) = writeln!(out, $($arg)*) {
            if e.kind() == std::io::ErrorKind::BrokenPipe {
                std::process::exit(0);
            }
            eprintln!("error: writing output: {e}");
            std::process::exit(1);
        }
    }};
}

#[derive(Parser)]
#[command(
    name = "carcassonne",
    version,
    about = "A Carcassonne rules engine: simulate, replay and inspect games"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(clap::Args, Clone)]
struct RulesArgs {
    /// Expansions to load, comma-separated (see `carcassonne expansions list`).
    #[arg(long, value_delimiter = ',')]
    expansions: Vec<String>,
    /// A rule option as key=value (repeatable), e.g. farmScoring=2nd.
    #[arg(long = "option", value_name = "KEY=VALUE")]
    options: Vec<String>,
    /// Play the rules the way JCloisterZone plays them (its fixed readings, its defaults), so
    /// every game can be written as a JCZ save with `convert`; `--option`s given beside it
    /// win (docs/jcz.md).
    #[arg(long)]
    jcz: bool,
    #[command(flatten)]
    dirs: DirArgs,
}

/// Players, seed, threads and output format: shared by `simulate`, `arena` and `balance`.
#[derive(clap::Args, Clone, Copy)]
struct RunArgs {
    /// Players per game (2-6).
    #[arg(long, default_value_t = 2)]
    players: usize,
    /// Base seed (game i uses a seed derived from it and i, whoever sits where).
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Games played in parallel (worker threads; 0: one per core of this machine).
    #[arg(long, default_value_t = 1)]
    threads: usize,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

impl RunArgs {
    /// The run's configuration, with the arguments checked.
    fn table(self, games: u64, bots: Vec<String>) -> Result<SimConfig, CliError> {
        let players = self.players;
        if !(2..=6).contains(&players) {
            return Err(CliError::Usage(format!(
                "--players must be 2 to 6, not {players}"
            )));
        }
        if games == 0 {
            return Err(CliError::Usage("--games must be at least 1".into()));
        }
        Ok(SimConfig {
            games,
            players,
            seed: self.seed,
            bots,
            // 0 is every core (`carcassonne_play::jobs::thread_count`). The default stays
            // 1, so that a run's summary (which gives its thread count) is what it was.
            threads: self.threads,
        })
    }
}

/// `--plugin-dir` / `--expansion-dir`, shared by every command that loads expansions.
#[derive(clap::Args, Clone)]
struct DirArgs {
    /// Extra folder to search for expansion manifests, native or script (repeatable; also
    /// CARCASSONNE_PLUGIN_PATH and CARCASSONNE_EXPANSION_PATH).
    #[arg(
        long = "plugin-dir",
        visible_alias = "expansion-dir",
        value_name = "DIR"
    )]
    plugin_dirs: Vec<PathBuf>,
}

impl RulesArgs {
    fn spec(&self) -> Result<RulesSpec, CliError> {
        let given: Vec<(String, String)> = self
            .options
            .iter()
            .map(|o| parse_option(o))
            .collect::<Result<_, _>>()?;
        // JCZ's readings first, so an option given on the command line replaces its own.
        let mut options = if self.jcz {
            jcz::export::jcz_options(&self.expansions, &self.dirs.plugin_dirs)
                .map_err(|e| CliError::Usage(format!("--jcz: {e}")))?
                .into_iter()
                .filter(|(k, _)| !given.iter().any(|(g, _)| g == k))
                .collect()
        } else {
            Vec::new()
        };
        options.extend(given);
        Ok(RulesSpec {
            plugin_dirs: self.dirs.plugin_dirs.clone(),
            expansions: self.expansions.clone(),
            options,
        })
    }
}

#[derive(Subcommand)]
enum Command {
    /// Play games between bots and print the results.
    Simulate {
        /// Number of games.
        #[arg(long, default_value_t = 1)]
        games: u64,
        /// Bots per seat, comma-separated, cycled over the seats: random, greedy, or
        /// mcts[:BUDGET][:THREADSt][:dDEPTH][:pPASS][:oOFFER][:eEND] (mcts:2000 playouts,
        /// mcts:500ms per decision, mcts:2000:2t, mcts:1000:dend, mcts:1000:p0,
        /// mcts:1000:oall, mcts:1000:eplay; docs/bots.md).
        #[arg(long, value_delimiter = ',', default_value = "random")]
        bots: Vec<String>,
        #[command(flatten)]
        run: RunArgs,
        /// Write each game's record as DIR/game-<i>.json.
        #[arg(long, value_name = "DIR")]
        record: Option<PathBuf>,
        #[command(flatten)]
        rules: RulesArgs,
    },
    /// Bots against bots: seats rotated so every bot plays every seat equally; win rates
    /// with Wilson 95% intervals, mean score margins with intervals, head-to-head pairs and
    /// Elo.
    Arena {
        /// Bot specs, comma-separated (at least two, at most one per seat): random, greedy,
        /// mcts[:BUDGET][:THREADSt][:dDEPTH][:pPASS][:oOFFER][:eEND] (docs/bots.md).
        #[arg(long, value_delimiter = ',', required = true)]
        bots: Vec<String>,
        /// Number of games (a multiple of --players rotates the seats exactly).
        #[arg(long, default_value_t = 200)]
        games: u64,
        #[command(flatten)]
        run: RunArgs,
        #[command(flatten)]
        rules: RulesArgs,
    },
    /// Is an expansion balanced? Paired games with and without it (same seeds, same bots),
    /// plus games where one seat never uses it: first-player advantage, score spread, game
    /// length, points by label, how its actions are used, all with 95% intervals.
    Balance {
        /// The expansion under test (native or script id), added to the base set.
        #[arg(long)]
        expansion: String,
        /// Paired games (each played three times: without, with, with one abstainer).
        #[arg(long, default_value_t = 200)]
        games: u64,
        /// Bot specs, comma-separated, cycled over the seats (the same in every arm).
        #[arg(long, value_delimiter = ',', default_value = "mcts:200")]
        bots: Vec<String>,
        #[command(flatten)]
        run: RunArgs,
        /// Also write a self-contained HTML report with charts to this file.
        #[arg(long, value_name = "FILE")]
        html: Option<PathBuf>,
        /// The base set (`--expansions`) and options; options of the expansion under test
        /// (`<id>.<name>=…`) apply to the games with it only.
        #[command(flatten)]
        rules: RulesArgs,
    },
    /// Replay a game record or a JCloisterZone save (`.jcz`) and print scores, events and
    /// the pending decision.
    Replay {
        /// The record (JSON, docs/record-format.md) or JCZ save (docs/jcz.md).
        file: PathBuf,
        /// Stop after this many actions (record) or messages (JCZ save).
        #[arg(long)]
        actions: Option<usize>,
        /// Print the replay output contract as JSON.
        #[arg(long)]
        json: bool,
        /// JCZ test saves: check the save's own assertions (`Alice has 3 points`, legal
        /// placements, …) and exit non-zero if one fails.
        #[arg(long)]
        check: bool,
        #[command(flatten)]
        dirs: DirArgs,
    },
    /// Convert a JCloisterZone save into our own record, or a record into a save
    /// (`-o game.jcz`); replaying both gives the same game.
    Convert {
        /// The save (`.jcz`) or record (JSON).
        file: PathBuf,
        /// The record (JSON) or save (`.jcz`) to write.
        #[arg(short, long)]
        output: PathBuf,
        /// Record → save: when the written save does not replay as this game, write it to
        /// FILE anyway (to see where JCZ's order and ours part, say while writing an
        /// expansion's `[jcz]` declaration); the command still fails
        #[arg(long, value_name = "FILE")]
        keep_refused: Option<PathBuf>,
        #[command(flatten)]
        dirs: DirArgs,
    },
    /// Expansions: `expansions list`, `expansions check DIR`, `expansions test DIR`,
    /// `expansions new ID`, `expansions api`.
    Expansions {
        #[command(subcommand)]
        command: ExpansionsCommand,
    },
    /// List the tiles of a set (`base` or any expansion's set), or draw them as a contact sheet.
    Tiles {
        /// Tile set: `base` or an expansion's set (the expansion is loaded for it).
        #[arg(long, default_value = "base")]
        set: String,
        /// Print JSON.
        #[arg(long)]
        json: bool,
        /// Draw every tile of the set with its id and count to OUT (.svg or .png).
        #[arg(long, value_name = "OUT")]
        render: Option<PathBuf>,
        #[command(flatten)]
        rules: RulesArgs,
    },
    /// Draw the position of a record or JCZ save after move N as SVG or PNG.
    Render {
        /// The record (JSON) or JCZ save (`.jcz`).
        file: PathBuf,
        /// Draw the position after this many actions (record) or messages (JCZ save);
        /// default: the end.
        #[arg(long = "move", value_name = "N")]
        moves: Option<usize>,
        /// The image to write: OUT.svg or OUT.png.
        #[arg(short, long, value_name = "OUT")]
        output: PathBuf,
        /// Side of a tile in pixels (24-256).
        #[arg(long, default_value_t = 80, value_parser = clap::value_parser!(u32).range(24..=256))]
        tile_size: u32,
        #[command(flatten)]
        dirs: DirArgs,
    },
    /// Play in the browser: a local web server with the game page, its JSON API
    /// (docs/serve.md) and bots playing their seats; games are kept as records in --data.
    Serve {
        /// Port to listen on.
        #[arg(long, default_value_t = 8080)]
        port: u16,
        /// Address to bind (loopback by default; another address exposes the server).
        #[arg(long, default_value = "127.0.0.1")]
        bind: std::net::IpAddr,
        /// Folder of the games (default: $XDG_DATA_HOME/carcassonne or
        /// ~/.local/share/carcassonne).
        #[arg(long, value_name = "DIR")]
        data: Option<PathBuf>,
        /// Pause before each bot move, in milliseconds.
        #[arg(long, default_value_t = 400)]
        bot_delay_ms: u64,
        /// A fan expansion's folder to watch: on every change the page offers a new game
        /// with the new version, or shows the script's error (repeatable).
        #[arg(long, value_name = "DIR")]
        watch: Vec<PathBuf>,
        /// Archive an unfinished game after this many minutes without a person's move.
        #[arg(long, default_value_t = 24 * 60)]
        archive_after_min: u64,
        #[command(flatten)]
        dirs: DirArgs,
    },
}

#[derive(Subcommand)]
enum ExpansionsCommand {
    /// Every expansion found: id, version, kind, options with defaults, tile count.
    List {
        /// Print JSON.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        dirs: DirArgs,
    },
    /// Check a fan expansion folder: manifest, script, dependencies, then random games.
    Check {
        /// The expansion's folder (holding expansion.toml).
        dir: PathBuf,
        /// Random games to play with it (2 to 5 players).
        #[arg(long, default_value_t = 20)]
        games: u64,
        /// Base seed of the games.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Other expansions to load with it, comma-separated.
        #[arg(long, value_delimiter = ',')]
        with: Vec<String>,
        /// A rule option as key=value (repeatable).
        #[arg(long = "option", value_name = "KEY=VALUE")]
        options: Vec<String>,
        #[command(flatten)]
        dirs: DirArgs,
        /// Print the report as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Run the scenario files of an expansion folder: one line per scenario, PASS or FAIL
    /// with the file and line of what failed (exit code 1 if one fails, 2 if the
    /// expansion or a scenario file cannot be read).
    Test {
        /// The expansion's folder (holding expansion.toml). Its scenario files are every
        /// other `.toml` file in it and its sub-folders, except the manifest's tile files.
        dir: PathBuf,
        #[command(flatten)]
        dirs: DirArgs,
        /// Print the report as JSON.
        #[arg(long)]
        json: bool,
        /// Below a failing scenario, print the state of its game (decision, offered
        /// actions, scores, supplies, figures, score events).
        #[arg(short, long)]
        verbose: bool,
    },
    /// Create a new fan expansion folder PARENT/ID: manifest, script with every hook as a
    /// commented-out stub, a tile file and a passing scenario.
    New {
        /// The expansion's id: lowercase letters, digits and `-`, starting with a letter.
        id: String,
        /// The folder to create it in.
        #[arg(long, value_name = "PARENT", default_value = ".")]
        dir: PathBuf,
    },
    /// Print the scripting reference (hooks, functions, limits) as Markdown.
    Api,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli.command) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            // Whatever went to stdout is out first, so that the error line never lands in
            // the middle of a report line when both streams share a terminal.
            use std::io::Write as _;
            let _ = std::io::stdout().flush();
            // The one place errors are printed: one line, whatever the input held.
            eprintln!("error: {}", escape_line(&e.to_string()));
            ExitCode::from(e.exit_code())
        }
    }
}

fn run(cmd: Command) -> Result<(), CliError> {
    match cmd {
        Command::Serve {
            port,
            bind,
            data,
            bot_delay_ms,
            watch,
            archive_after_min,
            dirs,
        } => {
            let mut config = carcassonne_serve::Config::new(
                data.unwrap_or_else(carcassonne_serve::default_data_dir),
            );
            config.port = port;
            config.bind = bind;
            config.bot_delay = std::time::Duration::from_millis(bot_delay_ms);
            config.plugin_dirs = dirs.plugin_dirs;
            config.watch = watch;
            config.limits.archive_after = std::time::Duration::from_secs(archive_after_min * 60);
            carcassonne_serve::run(config).map_err(CliError::Usage)
        }
        Command::Balance {
            expansion,
            games,
            bots,
            run,
            html,
            rules,
        } => {
            let table = run.table(games, bots)?;
            let spec = rules.spec()?;
            if spec.expansions.contains(&expansion) {
                return Err(CliError::Usage(format!(
                    "`{expansion}` is the expansion under test: leave it out of --expansions"
                )));
            }
            let own = format!("{expansion}.");
            let mut base = spec.clone();
            base.options.retain(|(k, _)| !k.starts_with(&own));
            let mut with = spec;
            with.expansions.push(expansion.clone());
            let without = build_ruleset(&base)?;
            let with = build_ruleset(&with)?;
            let cfg = BalanceConfig { expansion, table };
            let bar = progress_bar(games);
            let progress = |n: u64| {
                if let Some(b) = &bar {
                    b.set_position(n);
                }
            };
            let report = balance(&without, &with, &cfg, &progress)?;
            if let Some(b) = bar {
                b.finish_and_clear();
            }
            if let Some(path) = &html {
                std::fs::write(path, balance_report::html(&report)).map_err(|source| {
                    CliError::Io {
                        path: path.clone(),
                        source,
                    }
                })?;
            }
            if run.json {
                outln!(
                    "{}",
                    serde_json::to_string_pretty(&report).expect("report serializes")
                );
            } else {
                outln!("{}", balance_report::text(&report));
            }
            Ok(())
        }
        Command::Arena {
            bots,
            games,
            run,
            rules,
        } => {
            let cfg = run.table(games, bots)?;
            let ruleset = build_ruleset(&rules.spec()?)?;
            let bar = progress_bar(games);
            let progress = |n: u64| {
                if let Some(b) = &bar {
                    b.set_position(n);
                }
            };
            let report = arena(&ruleset, &cfg, &progress)?;
            if let Some(b) = bar {
                b.finish_and_clear();
            }
            if run.json {
                outln!(
                    "{}",
                    serde_json::to_string_pretty(&report).expect("report serializes")
                );
            } else {
                print_arena(&report);
            }
            Ok(())
        }
        Command::Simulate {
            games,
            bots,
            run,
            record,
            rules,
        } => {
            let cfg = run.table(games, bots)?;
            let ruleset = build_ruleset(&rules.spec()?)?;
            let bar = if games >= 1000 {
                progress_bar(games)
            } else {
                None
            };
            let progress = |n: u64| {
                if let Some(b) = &bar {
                    if n % 256 == 0 || n == games {
                        b.set_position(n);
                    }
                }
            };
            if let Some(dir) = &record {
                std::fs::create_dir_all(dir).map_err(|source| CliError::Io {
                    path: dir.clone(),
                    source,
                })?;
            }
            // Records are written as games finish, so memory stays flat however many games
            // run; a single game's record is kept to print it.
            let single: std::sync::Mutex<Option<(Record, Vec<i32>)>> = Default::default();
            let on_game = |g: FinishedGame<'_>| -> Result<(), CliError> {
                if record.is_none() && games != 1 {
                    return Ok(());
                }
                let r = Record::new(g.game, g.seed, g.actions);
                if let Some(dir) = &record {
                    let path = dir.join(format!("game-{}.json", g.result.index));
                    let text = serde_json::to_string_pretty(&r).expect("records serialize");
                    std::fs::write(&path, text).map_err(|source| CliError::Io { path, source })?;
                }
                if games == 1 {
                    *single.lock().unwrap_or_else(|e| e.into_inner()) =
                        Some((r, g.result.scores.clone()));
                }
                Ok(())
            };
            let summary = simulate(&ruleset, &cfg, &progress, &on_game)?;
            if let Some(b) = bar {
                b.finish_and_clear();
            }
            if run.json {
                outln!(
                    "{}",
                    serde_json::to_string_pretty(&summary).expect("summary serializes")
                );
            } else if let Some((r, scores)) = single.into_inner().unwrap_or_else(|e| e.into_inner())
            {
                let game = r.replay_with(&ruleset, "simulated game", None)?;
                print_game(&game, &scores, &summary.bots, run.seed);
            } else {
                outln!(
                    "{} games, {} players ({}), seed {}",
                    summary.games,
                    summary.players,
                    summary.bots.join(", "),
                    summary.seed
                );
                if !summary.expansions.is_empty() {
                    outln!("expansions: {}", summary.expansions.join(", "));
                }
                outln!(
                    "score mean {:.2}, spread {:.2}, turns {:.1}, tiles {:.1}",
                    summary.score_mean,
                    summary.score_spread,
                    summary.turns_mean,
                    summary.tiles_mean
                );
                for (i, ((m, w), t)) in summary
                    .score_mean_per_seat
                    .iter()
                    .zip(&summary.wins_per_seat)
                    .zip(&summary.ties_per_seat)
                    .enumerate()
                {
                    outln!("  seat {}: mean {:>6.2}, wins {}, ties {}", i + 1, m, w, t);
                }
                outln!(
                    "  {} game(s) won outright, {} tied for first place",
                    summary.games - summary.ties,
                    summary.ties
                );
                outln!(
                    "{:.0} games/s on {} thread(s)",
                    summary.games_per_second,
                    summary.threads
                );
            }
            // Every other game was played and counted above; the failed ones are named
            // with their seeds, and the exit status says the run was not clean.
            for f in &summary.failed {
                eprintln!(
                    "game {} (seed {}) failed: {}",
                    f.index,
                    f.seed,
                    escape_line(&f.error)
                );
            }
            if !summary.failed.is_empty() {
                return Err(CliError::Usage(format!(
                    "{} of {games} games failed",
                    summary.failed.len()
                )));
            }
            Ok(())
        }
        Command::Replay {
            file,
            actions,
            json,
            check,
            dirs: DirArgs { plugin_dirs },
        } => {
            let loaded = load_game(&file, actions, &plugin_dirs)?;
            let out = loaded.jcz_output(&plugin_dirs)?;
            if check {
                return check_assertions(&file, &loaded, &out);
            }
            if json {
                outln!(
                    "{}",
                    serde_json::to_string_pretty(&out).expect("output serializes")
                );
            } else {
                // Names come from the file: escaped as --json and --check do, so a name
                // cannot move the cursor, recolour or reorder the terminal.
                for p in &out.players {
                    outln!("{:<12} {:>4}", escape_line(&p.name), p.score);
                }
                for d in &out.discards {
                    outln!(
                        "turn {}: {} drew {}, discarded: {}",
                        d.turn + 1,
                        escape_line(&d.player),
                        escape_line(&d.tile),
                        escape_line(&d.reason)
                    );
                }
                outln!(
                    "{} scoring events; {}",
                    out.events.len(),
                    if out.finished {
                        "finished"
                    } else {
                        "in progress"
                    }
                );
                if let Some(p) = &out.pending {
                    outln!(
                        "next: {} ({} placements, {} deployments)",
                        escape_line(&p.player),
                        p.placements.len(),
                        p.deployments.len()
                    );
                }
            }
            Ok(())
        }
        Command::Convert {
            file,
            output,
            keep_refused,
            dirs: DirArgs { plugin_dirs },
        } => {
            if !is_jcz(&file) {
                if !is_jcz(&output) {
                    return Err(CliError::Usage(format!(
                        "{}: convert turns a JCloisterZone save (`.jcz`) into a record, or a record into a save (`-o game.jcz`)",
                        file.display()
                    )));
                }
                // A record → a JCZ save (docs/jcz.md, "Writing saves"), checked by replaying it.
                let record = carcassonne_play::record::Record::load(&file)?;
                let origin = file.display().to_string();
                let out = jcz::export::write_unchecked(&record, &origin, &plugin_dirs)?;
                let text = serde_json::to_string_pretty(&out.save).expect("saves serialize");
                if let Err(e) = jcz::export::same_game(&record, &out.save, &origin, &plugin_dirs) {
                    if let Some(kept) = &keep_refused {
                        std::fs::write(kept, text + "\n").map_err(|source| CliError::Io {
                            path: kept.clone(),
                            source,
                        })?;
                        eprintln!("{}: the refused save, as written", kept.display());
                    }
                    return Err(e.into());
                }
                std::fs::write(&output, text + "\n").map_err(|source| CliError::Io {
                    path: output.clone(),
                    source,
                })?;
                outln!(
                    "{}: {} messages, {} draws",
                    output.display(),
                    out.messages,
                    out.draws
                );
                return Ok(());
            }
            if keep_refused.is_some() {
                return Err(CliError::Usage(
                    "--keep-refused keeps a save this command writes (`convert game.json -o game.jcz`), not a record".into(),
                ));
            }
            let imported = jcz::load(&file, &plugin_dirs, None)?;
            let record = imported.to_record()?;
            let text = serde_json::to_string_pretty(&record).expect("records serialize");
            std::fs::write(&output, text + "\n").map_err(|source| CliError::Io {
                path: output.clone(),
                source,
            })?;
            outln!(
                "{}: {} actions, {} ({})",
                output.display(),
                record.actions.len(),
                if imported.game.is_over() {
                    "finished"
                } else {
                    "in progress"
                },
                record
                    .setup
                    .expansions
                    .iter()
                    .map(|e| e.id.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            );
            Ok(())
        }
        Command::Expansions {
            command:
                ExpansionsCommand::List {
                    json,
                    dirs: DirArgs { plugin_dirs },
                },
        } => {
            let list = carcassonne_rules::list_expansions(&plugin_dirs)?;
            if json {
                outln!(
                    "{}",
                    serde_json::to_string_pretty(&list).expect("serializes")
                );
            } else {
                // Names and descriptions come from manifests: escaped, one line each.
                for e in &list {
                    outln!(
                        "{:<16} {:<8} {:<7} {:>3} tiles  {}",
                        escape_line(&e.id),
                        escape_line(&e.version),
                        e.kind,
                        e.tiles,
                        escape_line(&e.name)
                    );
                    for o in &e.options {
                        outln!(
                            "    {} = {}  ({})",
                            escape_line(&o.key),
                            escape_line(&o.default),
                            escape_line(&o.description)
                        );
                    }
                }
            }
            Ok(())
        }
        Command::Expansions {
            command: ExpansionsCommand::Api,
        } => {
            outln!("{}", carcassonne_script::reference::markdown());
            Ok(())
        }
        Command::Expansions {
            command:
                ExpansionsCommand::Check {
                    dir,
                    games,
                    seed,
                    with,
                    options,
                    dirs: DirArgs { plugin_dirs },
                    json,
                },
        } => {
            let cfg = check::CheckConfig {
                dir,
                games,
                seed,
                with,
                options: options
                    .iter()
                    .map(|o| parse_option(o))
                    .collect::<Result<_, _>>()?,
                plugin_dirs,
            };
            let report = check::check(&cfg);
            let result = if report.ok() {
                Ok(())
            } else {
                Err(CliError::Usage(format!(
                    "{} problem(s) found",
                    report.problems.len()
                )))
            };
            if json {
                outln!(
                    "{}",
                    serde_json::to_string_pretty(&report).expect("serializes")
                );
            } else {
                for p in &report.passed {
                    outln!("ok: {}", escape_line(p));
                }
                for p in &report.problems {
                    outln!("problem: {}", escape_line(p));
                }
            }
            result
        }
        Command::Expansions {
            command:
                ExpansionsCommand::Test {
                    dir,
                    dirs: DirArgs { plugin_dirs },
                    json,
                    verbose,
                },
        } => {
            let report = scenarios::test(&scenarios::TestConfig { dir, plugin_dirs });
            if json {
                outln!(
                    "{}",
                    serde_json::to_string_pretty(&report).expect("serializes")
                );
            } else {
                for line in report.lines(verbose) {
                    outln!("{line}");
                }
            }
            let total = report.passed + report.failed;
            if let Some(first) = report.errors.first() {
                let more = report.errors.len() - 1;
                return Err(CliError::Input(if more == 0 {
                    first.message.clone()
                } else {
                    format!("{} (and {more} more)", first.message)
                }));
            }
            if report.failed > 0 {
                return Err(CliError::Usage(format!(
                    "{} of {total} scenario(s) failed",
                    report.failed
                )));
            }
            Ok(())
        }
        Command::Expansions {
            command: ExpansionsCommand::New { id, dir },
        } => {
            let written = skeleton::create(&id, &dir)?;
            for p in &written {
                outln!("created {}", p.display());
            }
            let folder = written
                .first()
                .and_then(|p| p.parent())
                .map_or_else(|| dir.join(&id), |p| p.to_path_buf());
            outln!(
                "next: carcassonne expansions check {0} && carcassonne expansions test {0}",
                folder.display()
            );
            Ok(())
        }
        Command::Render {
            file,
            moves,
            output,
            tile_size,
            dirs: DirArgs { plugin_dirs },
        } => {
            carcassonne_raster::ImageFormat::of(&output)?;
            let game = load_game(&file, moves, &plugin_dirs)?.into_game();
            let name = file.file_name().map_or_else(
                || file.display().to_string(),
                |n| n.to_string_lossy().into(),
            );
            let opts = carcassonne_render::RenderOptions {
                tile_size: f64::from(tile_size),
                caption: Some(match moves {
                    Some(n) => format!("{name}, after move {n}"),
                    None => name,
                }),
                ..Default::default()
            };
            let svg = carcassonne_render::render_svg(&game, &opts);
            Ok(carcassonne_raster::write_image(&output, &svg)?)
        }
        Command::Tiles {
            set,
            json,
            render,
            rules,
        } => {
            let mut spec = rules.spec()?;
            // A set other than the base game's comes with the expansion of that id, unless
            // `--expansions` says which expansions to load.
            if set != "base" && spec.expansions.is_empty() {
                spec.expansions.push(set.clone());
            }
            let rules = build_ruleset(&spec)?;
            if let Some(out) = render {
                let svg = carcassonne_render::render_tile_sheet(&rules, &set, 96.0)?;
                return Ok(carcassonne_raster::write_image(&out, &svg)?);
            }
            let tiles: Vec<_> = rules
                .tiles()
                .defined()
                .filter(|(_, k)| k.set == set)
                .collect();
            if tiles.is_empty() {
                return Err(CliError::Usage(format!("no tile set `{set}`")));
            }
            if json {
                let list: Vec<_> = tiles
                    .iter()
                    .map(|(_, k)| serde_json::json!({"id": k.id, "aliases": k.aliases, "count": k.count, "edges": edges(&rules, k), "start": k.start}))
                    .collect();
                outln!(
                    "{}",
                    serde_json::to_string_pretty(&list).expect("serializes")
                );
            } else {
                let total: u32 = tiles.iter().map(|(_, k)| k.count as u32).sum();
                outln!("set {set}: {} kinds, {total} tiles", tiles.len());
                for (_, k) in tiles {
                    let segs: Vec<String> = k
                        .segments
                        .iter()
                        .map(|s| {
                            format!(
                                "{} {}",
                                rules.kind(s.kind).name,
                                s.location(carcassonne_core::Rotation::R0)
                            )
                        })
                        .collect();
                    outln!(
                        "  {:<10} {:<3} x{:<2} {} {}{}",
                        k.id,
                        k.aliases.join(","),
                        k.count,
                        edges(&rules, k),
                        segs.join("; "),
                        if k.start { "  (start)" } else { "" }
                    );
                }
            }
            Ok(())
        }
    }
}

/// The position of a record or a JCZ save after `moves` actions (record) or messages
/// (save), all of them when `None`.
fn edges(rules: &carcassonne_core::Ruleset, k: &carcassonne_core::TileKind) -> String {
    carcassonne_core::Side::ALL
        .iter()
        .map(|s| match k.edge_at(carcassonne_core::Rotation::R0, *s) {
            0 => 'F',
            c => match rules.kinds()[c as usize - 1].shape {
                carcassonne_core::Shape::Edge { letter, .. } => letter,
                _ => '?',
            },
        })
        .collect()
}

/// The games to play, checked: what `simulate`, `arena` and `balance` share.
/// A progress bar on stderr for long runs at a terminal.
fn progress_bar(games: u64) -> Option<indicatif::ProgressBar> {
    std::io::stderr().is_terminal().then(|| {
        let b = indicatif::ProgressBar::new(games);
        b.set_style(
            indicatif::ProgressStyle::with_template(
                "{bar:40} {pos}/{len} games {per_sec} eta {eta}",
            )
            .expect("valid template"),
        );
        b
    })
}

fn print_arena(r: &ArenaReport) {
    outln!(
        "{} games, {} players, seed {}{}",
        r.games,
        r.players,
        r.seed,
        if r.seats_balanced {
            ""
        } else {
            " (seats not evenly rotated: use a multiple of --players games)"
        }
    );
    if !r.expansions.is_empty() {
        outln!("expansions: {}", r.expansions.join(", "));
    }
    outln!(
        "{:<18} {:>6} {:>6} {:>5} {:>17} {:>8} {:>22} {:>8}",
        "bot",
        "seats",
        "wins",
        "ties",
        "win rate (95%)",
        "score",
        "margin (95%)",
        "elo"
    );
    for b in &r.bots {
        outln!(
            "{:<18} {:>6} {:>6} {:>5} {:>5.1}% [{:>4.1}-{:>4.1}] {:>8.1} {:>7.1} [{:>5.1}, {:>5.1}] {:>8.0}",
            b.bot,
            b.seats,
            b.wins,
            b.ties,
            b.win_rate * 100.0,
            b.win_rate_ci95[0] * 100.0,
            b.win_rate_ci95[1] * 100.0,
            b.score_mean,
            b.margin_mean,
            b.margin_ci95[0],
            b.margin_ci95[1],
            b.elo
        );
    }
    for p in &r.pairs {
        outln!(
            "{} vs {}: {}-{}-{} (score rate {:.1}% [{:.1}-{:.1}], Elo {:+.0} [{:+.0}, {:+.0}], score difference {:+.1} [{:+.1}, {:+.1}])",
            p.a,
            p.b,
            p.a_wins,
            p.b_wins,
            p.draws,
            p.a_score_rate * 100.0,
            p.a_score_rate_ci95[0] * 100.0,
            p.a_score_rate_ci95[1] * 100.0,
            p.elo_diff,
            p.elo_diff_ci95[0],
            p.elo_diff_ci95[1],
            p.score_diff_mean,
            p.score_diff_ci95[0],
            p.score_diff_ci95[1]
        );
    }
}

fn print_game(game: &carcassonne_core::Game, scores: &[i32], bots: &[String], seed: u64) {
    let st = game.state();
    let rules = game.rules();
    let sets: Vec<String> = std::iter::once("base game".to_string())
        .chain(
            rules
                .expansions()
                .iter()
                .map(|e| format!("{} {}", e.id(), e.version())),
        )
        .collect();
    outln!(
        "Carcassonne ({}): {} players ({}), seed {seed}",
        sets.join(", "),
        st.players().len(),
        bots.join(" vs ")
    );
    outln!(
        "{} turns, {} tiles on the board, {} discarded",
        st.turn(),
        st.board().tiles().len(),
        st.discards().len()
    );
    let mut by_kind: std::collections::BTreeMap<(usize, String), (u32, i32)> = Default::default();
    for e in st.events() {
        let name = match e.source {
            carcassonne_core::ScoreSource::Feature(k) => rules.kind(k).name.clone(),
            carcassonne_core::ScoreSource::Label(l) => rules.labels()[l.0 as usize].clone(),
        };
        let key = (
            e.player.index(),
            if e.final_scoring {
                format!("{name} (final)")
            } else {
                name
            },
        );
        let v = by_kind.entry(key).or_default();
        v.0 += 1;
        v.1 += e.points;
    }
    let best = scores.iter().copied().max().unwrap_or(0);
    for (i, p) in st.players().iter().enumerate() {
        let mark = if p.score == best { "  winner" } else { "" };
        outln!("{:<4} {:>4} points{mark}", p.name, p.score);
        for ((pi, kind), (n, pts)) in &by_kind {
            if *pi == i {
                outln!(
                    "       {kind:<18} {n:>3} {} {pts:>4} points",
                    if *n == 1 { "scoring " } else { "scorings" }
                );
            }
        }
    }
}

/// `replay --check`: the assertions of a JCZ test save against our replay.
fn check_assertions(
    file: &std::path::Path,
    loaded: &LoadedGame,
    out: &carcassonne_play::replay::ReplayOutput,
) -> Result<(), CliError> {
    let LoadedGame::Jcz(imported) = loaded else {
        return Err(CliError::Usage(format!(
            "{}: --check reads the assertions of JCloisterZone test saves (`.jcz`)",
            file.display()
        )));
    };
    let assertions = &imported.assertions;
    let value = serde_json::to_value(out).expect("output serializes");
    let mut failed = 0;
    let scorings = imported.declarations.scorings();
    let tokens = imported.declarations.tokens();
    let classes = jcz::assertions::Classes {
        features: imported.declarations.features(),
        figures: imported.declarations.figure_classes(),
    };
    for (text, outcome) in
        jcz::assertions::check_all_declared(assertions, &value, &scorings, &tokens, &classes)
    {
        match outcome {
            Outcome::Passed => outln!("ok       {}", escape_line(&text)),
            Outcome::Failed(why) => {
                failed += 1;
                outln!("FAILED   {}: {}", escape_line(&text), escape_line(&why));
            }
            Outcome::Ignored(why) => {
                outln!("ignored  {} ({})", escape_line(&text), escape_line(&why))
            }
        }
    }
    if failed > 0 {
        return Err(CliError::Usage(format!(
            "{}: {failed} of {} assertions failed",
            file.display(),
            assertions.len()
        )));
    }
    Ok(())
}
