//! Writing JCloisterZone saves (`carcassonne convert game.json -o game.jcz`, `docs/jcz.md`).
//!
//! A record is replayed in our engine and written as a save JCZ replays the same way: the
//! sets, elements and rules the importer reads back as the game's expansions and options
//! ([`setup`]), the start tiles as laid, every drawn tile in `gameAnnotations.drawOrder`
//! (discarded ones included, so no draw depends on JCZ's random numbers), `endTurn` when the
//! game is over or had a draw cap, and each action as JCZ's message ([`messages`]).
//!
//! The written save is checked before it is returned: the importer replays it and must give
//! the same actions, draws, options and scores ([`same_game`]); a difference is an error,
//! never a save that plays another game.

mod messages;
mod names;
mod setup;

pub use setup::jcz_options;

use crate::declared::manifests;
use crate::save::JczSave;
use crate::JczError;
use carcassonne_core::{Action, DecisionKind, Game, Ruleset};
use carcassonne_files::jcz::JczActionMessage;
use carcassonne_play::record::{decode_action, Record, RecordAction};
use carcassonne_rules::build_ruleset;
use serde_json::{json, Value};
use std::path::PathBuf;
use std::sync::Arc;

/// The version written as `appVersion` (the oldest client whose saves have every field we
/// write; JCZ 5 and FCZ 6 open it).
const APP_VERSION: &str = "5.7.0";

/// JCZ's rule that moves the dragon after its commit step (`GameStatePhaseReducer`).
const FLIGHT_AFTER_COMMIT: (&str, &str) = ("dragon-move", "after-scoring");

/// A record written as a save.
#[derive(Clone, Debug)]
pub struct Exported {
    /// The save, as JSON.
    pub save: Value,
    /// Its number of messages.
    pub messages: usize,
    /// Its number of draws (`drawOrder`).
    pub draws: usize,
}

/// Writes `record` (named `origin` in errors) as a JCZ save, checked by replaying it
/// ([`write_unchecked`], then [`same_game`]).
pub fn export(
    record: &Record,
    origin: &str,
    plugin_dirs: &[PathBuf],
) -> Result<Exported, JczError> {
    let exported = write_unchecked(record, origin, plugin_dirs)?;
    same_game(record, &exported.save, origin, plugin_dirs)?;
    Ok(exported)
}

/// Writes `record` as a JCZ save without the replay check: what [`export`] checks, for a
/// caller that keeps a refused save to look at (`convert --keep-refused`).
pub fn write_unchecked(
    record: &Record,
    origin: &str,
    plugin_dirs: &[PathBuf],
) -> Result<Exported, JczError> {
    let err = |message: String| JczError::Setup {
        path: origin.to_string(),
        message,
    };
    let mut spec = record.rules_spec();
    spec.plugin_dirs = plugin_dirs.to_vec();
    let rules = build_ruleset(&spec).map_err(|e| err(format!("setup: {e}")))?;
    let found = manifests(plugin_dirs).map_err(&err)?;
    let jcz_setup = setup::jcz_setup(&rules, &found, plugin_dirs).map_err(&err)?;
    let game_setup = record.game_setup(&rules).map_err(&err)?;
    let mut game = Game::new(Arc::clone(&rules), &game_setup).map_err(|e| err(e.to_string()))?;
    let st = game.state();
    let start: Vec<Value> = st
        .board()
        .tiles()
        .iter()
        .map(|t| {
            json!({"tile": rules.tiles().get(t.kind).id, "x": t.pos.x, "y": t.pos.y,
                   "rotation": t.rotation.degrees()})
        })
        .collect();
    let names = names::Names::new(&rules, &found);
    let initial = (record.setup.seed & ((1 << 48) - 1)) as f64 / (1u64 << 48) as f64;
    let after_commit = jcz_setup
        .rules
        .get(FLIGHT_AFTER_COMMIT.0)
        .and_then(Value::as_str)
        == Some(FLIGHT_AFTER_COMMIT.1);
    let mut writer = messages::Writer::new(&names, initial, after_commit);
    let mut draws = Draws::default();
    draws.note(&game, None);
    for (index, ra) in record.actions.iter().enumerate() {
        let fail = |message: String| JczError::Message {
            path: origin.to_string(),
            index,
            kind: format!("{ra}"),
            message,
        };
        let a = decode_action(&rules, &game, ra).map_err(fail)?;
        let before = game.clone();
        game.apply(a).map_err(|e| fail(e.to_string()))?;
        draws.note_answer(a, writer.drawn_prompt(&before));
        draws.note(&game, Some(a));
        writer.action(&before, &game, a).map_err(fail)?;
    }
    writer.finish(&game);
    // Every tile that left the supply must be in `drawOrder` (a drawn tile still in hand
    // under a question is noted only when placed: one may be missing).
    let in_supply = |g: &Game| -> usize {
        g.state()
            .supply()
            .groups
            .iter()
            .map(|g| g.tiles.len())
            .sum()
    };
    let fresh = Game::new(Arc::clone(&rules), &game_setup).map_err(|e| err(e.to_string()))?;
    let left = in_supply(&fresh).saturating_sub(in_supply(&game));
    if left > draws.tiles.len() + usize::from(!game.is_over()) {
        return Err(err(
            "an expansion took tiles from the supply outside a draw, at random: a JCZ save \
             cannot name them; play the game with that expansion's option that names them (a \
             bazaar's: `bridges-castles-bazaars.bazaarDraws=chosen`, which JCZ's options set)"
                .into(),
        ));
    }
    let mut notes = json!({"drawOrder": draws.ids(&game)});
    let cap = game_setup
        .draw_limit
        .or_else(|| game.is_over().then_some(draws.tiles.len() as u32));
    if let Some(n) = cap {
        notes["endTurn"] = json!(n);
    }
    let players: Vec<Value> = record
        .setup
        .players
        .iter()
        .enumerate()
        .map(|(i, name)| json!({"name": name, "slot": i}))
        .collect();
    let exported = Exported {
        messages: writer.messages.len(),
        draws: draws.tiles.len(),
        save: json!({
            "appVersion": APP_VERSION,
            "gameId": format!("{:016x}", record.setup.seed),
            "name": "",
            "initialRandom": initial,
            "created": "1970-01-01T00:00:00.000Z",
            "clock": 0,
            "setup": {
                "sets": jcz_setup.sets,
                "elements": jcz_setup.elements,
                "rules": jcz_setup.rules,
                "timer": null,
                "start": start,
            },
            "players": players,
            "replay": writer.messages,
            "gameAnnotations": notes,
        }),
    };
    Ok(exported)
}

/// Every tile drawn, in order, discarded ones included.
#[derive(Default)]
struct Draws {
    tiles: Vec<carcassonne_core::TileKindId>,
    discards: usize,
}

impl Draws {
    /// After `Game::new` (`a` = `None`) or an action: a chosen draw names its tile; with
    /// random draws, the tiles discarded since, then the tile now to be placed.
    fn note(&mut self, game: &Game, a: Option<Action>) {
        let st = game.state();
        if let Some(Action::Draw { tile }) = a {
            self.tiles.push(tile);
            self.discards = st.discards().len();
            return;
        }
        for d in &st.discards()[self.discards..] {
            self.tiles.push(d.tile);
        }
        self.discards = st.discards().len();
        if let DecisionKind::PlaceTile { tile } = game.decision().kind {
            if st.supply().mode != carcassonne_core::DrawMode::Chosen {
                self.tiles.push(tile);
            }
        }
    }

    /// An answer to a prompt JCZ draws (`drawn`): its value is the drawn tile's kind.
    fn note_answer(&mut self, a: Action, drawn: bool) {
        if let (true, Action::Custom(c)) = (drawn, a) {
            if let Ok(k) = u16::try_from(c.value) {
                self.tiles.push(carcassonne_core::TileKindId(k));
            }
        }
    }

    fn ids(&self, game: &Game) -> Vec<String> {
        self.tiles
            .iter()
            .map(|t| game.rules().tiles().get(*t).id.clone())
            .collect()
    }
}

/// Every tile a game of `record` draws, in order: its draws and the answers to questions
/// JCZ draws (`drawn`: a bazaar's tiles).
fn drawn_ids(
    rules: &Arc<Ruleset>,
    record: &Record,
    names: &names::Names,
) -> Result<Vec<String>, String> {
    let writer = messages::Writer::new(names, 0.0, false);
    let mut draws = Draws::default();
    let mut g =
        Game::new(Arc::clone(rules), &record.game_setup(rules)?).map_err(|e| e.to_string())?;
    draws.note(&g, None);
    for ra in &record.actions {
        let a = decode_action(rules, &g, ra)?;
        let drawn = writer.drawn_prompt(&g);
        g.apply(a).map_err(|e| e.to_string())?;
        draws.note_answer(a, drawn);
        draws.note(&g, Some(a));
    }
    Ok(draws.ids(&g))
}

/// `game`'s actions in the order a save can hold them: where the game took one of its
/// player's moves and then paid a ransom, and the save gives the ransom first, the two are
/// swapped. JCZ takes a ransom at any time of its phase, so its save cannot tell "declined
/// the bridge question, then paid" from "paid during the question", or "moved the donkey's
/// first step, then paid" from "paid, then moved" (JCZ's donkey is one message); the importer
/// reads the ransom where it first can. Both orders are the same game: the same player's two
/// moves, neither changing what the other does. What follows them must still match.
fn in_save_order(
    game: &[RecordAction],
    save: &[RecordAction],
    ransom: impl Fn(&RecordAction) -> bool,
) -> Vec<RecordAction> {
    let mut out = game.to_vec();
    let mut i = 0;
    while i + 1 < out.len().min(save.len()) {
        let (x, r) = (&out[i], &out[i + 1]);
        if save[i] == *r && save[i + 1] == *x && ransom(r) && r.player() == x.player() {
            out.swap(i, i + 1);
            i += 2;
        } else {
            i += 1;
        }
    }
    out
}

/// What must survive the way through a save: the actions but draws, the draws, the
/// options, the players and the scores.
#[derive(Debug, PartialEq)]
struct Summary {
    actions: Vec<RecordAction>,
    draws: Vec<String>,
    options: std::collections::BTreeMap<String, String>,
    players: Vec<String>,
    scores: Vec<i32>,
    over: bool,
}

fn summary(record: &Record, game: &Game, draws: Vec<String>) -> Summary {
    Summary {
        actions: record
            .actions
            .iter()
            .filter(|a| !matches!(a, RecordAction::Draw { .. }))
            .cloned()
            .collect(),
        draws,
        options: record.setup.options.clone(),
        players: record.setup.players.clone(),
        scores: game.state().players().iter().map(|p| p.score).collect(),
        over: game.is_over(),
    }
}

/// Replays `save` with the importer and compares it with `record`: an error names the
/// first difference.
pub fn same_game(
    record: &Record,
    save: &Value,
    origin: &str,
    plugin_dirs: &[PathBuf],
) -> Result<(), JczError> {
    let err = |message: String| JczError::Setup {
        path: origin.to_string(),
        message: format!("the written save does not replay as this game: {message}"),
    };
    let parsed: JczSave = serde_json::from_value(save.clone()).map_err(|e| err(e.to_string()))?;
    let back = crate::replay(&parsed, origin, plugin_dirs, None).map_err(|e| err(e.to_string()))?;
    let back_record = back.to_record()?;
    let mut spec = record.rules_spec();
    spec.plugin_dirs = plugin_dirs.to_vec();
    let rules = build_ruleset(&spec).map_err(|e| err(e.to_string()))?;
    let ours = record.replay_with(&rules, origin, None)?;
    let names = names::Names::new(&rules, &manifests(plugin_dirs).map_err(&err)?);
    let want = summary(
        record,
        &ours,
        drawn_ids(&rules, record, &names).map_err(&err)?,
    );
    let back_draws = drawn_ids(&back.game.rules().clone(), &back_record, &names).map_err(&err)?;
    let got = summary(&back_record, &back.game, back_draws);
    let ransom = |a: &RecordAction| match a {
        RecordAction::Custom {
            expansion, verb, ..
        } => names.message_of(&rules, expansion, verb) == Some(&JczActionMessage::PayRansom),
        _ => false,
    };
    let want = Summary {
        actions: in_save_order(&want.actions, &got.actions, ransom),
        ..want
    };
    if let Some(i) = (0..want.actions.len().max(got.actions.len()))
        .find(|i| want.actions.get(*i) != got.actions.get(*i))
    {
        let show = |a: Option<&RecordAction>| a.map_or("(nothing)".to_string(), |a| a.to_string());
        return Err(err(format!(
            "action {i}: the game has {}, the save gives {}",
            show(want.actions.get(i)),
            show(got.actions.get(i))
        )));
    }
    if want != got {
        return Err(err(format!("the game is {want:?}, the save gives {got:?}")));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::in_save_order;
    use carcassonne_play::record::RecordAction;

    fn pass(player: u8) -> RecordAction {
        RecordAction::Pass { player }
    }

    fn custom(player: u8, verb: &str) -> RecordAction {
        RecordAction::Custom {
            player,
            expansion: "tower".into(),
            verb: verb.into(),
            figure: None,
            target: None,
            value: 2,
        }
    }

    fn is_ransom(a: &RecordAction) -> bool {
        matches!(a, RecordAction::Custom { verb, .. } if verb == "pay-ransom")
    }

    #[test]
    fn a_pass_then_a_ransom_takes_the_saves_order() {
        let game = [pass(1), custom(1, "pay-ransom"), pass(2)];
        let save = [custom(1, "pay-ransom"), pass(1), pass(2)];
        assert_eq!(in_save_order(&game, &save, is_ransom), save);
    }

    #[test]
    fn a_move_then_a_ransom_takes_the_saves_order() {
        // The donkey's first step, then the ransom, then the donkey's second step.
        let game = [
            custom(1, "donkey"),
            custom(1, "pay-ransom"),
            custom(1, "donkey-to"),
        ];
        let save = [
            custom(1, "pay-ransom"),
            custom(1, "donkey"),
            custom(1, "donkey-to"),
        ];
        assert_eq!(in_save_order(&game, &save, is_ransom), save);
    }

    #[test]
    fn only_the_same_players_ransom_moves() {
        // Another player's ransom, another verb, or a save that does not swap: unchanged.
        let save = [custom(2, "pay-ransom"), pass(1)];
        let game = [pass(1), custom(2, "pay-ransom")];
        assert_eq!(in_save_order(&game, &save, is_ransom), game);
        let save = [custom(1, "tower-piece"), pass(1)];
        let game = [pass(1), custom(1, "tower-piece")];
        assert_eq!(in_save_order(&game, &save, is_ransom), game);
        let save = [custom(2, "pay-ransom"), custom(1, "donkey")];
        let game = [custom(1, "donkey"), custom(2, "pay-ransom")];
        assert_eq!(in_save_order(&game, &save, is_ransom), game);
        let game = [pass(1), custom(1, "pay-ransom"), pass(2)];
        assert_eq!(in_save_order(&game, &game, is_ransom), game);
    }
}
