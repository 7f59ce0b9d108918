//! Seeded games with The Phantom (`expansions/phantom`), alone and with every official
//! expansion and both fan scripts, 2–6 players, random bots, under every shared check of
//! `carcassonne_tests::mixed::play_checked` (figures conserved, occupancy exact, scores
//! monotone and equal to their events, A-11, every tile placed, each record replaying to
//! the identical game), plus the phantom step's own checks, by a bot that looks at every
//! offer before choosing: while the phantom step is on (`phantom.step` ≠ 0), the deciding
//! player is the active one and every offered action is a deployment of his phantom (PH-3),
//! a `cap-tower` naming it (PH-7), the Tower's ransom (TW-13) or passing; a phantom step
//! follows only a deployment step (PH-4).

use carcassonne_core::{Action, DecisionKind, Game, GameSetup, Ruleset, SlotId, VerbValue};
use carcassonne_play::bots::{Bot, RandomBot};
use carcassonne_tests::mixed::play_checked;
use carcassonne_tests::official_and_fan_rules as rules;
use std::sync::{Arc, Mutex};

const EVERYTHING: &[&str] = &[
    "count",
    "king-robber",
    "river2",
    "heretics-shrines",
    "inns-cathedrals",
    "traders-builders",
    "princess-dragon",
    "abbey-mayor",
    "tower",
    "abbot-garden",
    "hills-sheep",
    "bridges-castles-bazaars",
    "big-top",
    "phantom",
    "tactician",
    "promotions",
];

/// Phantom steps seen and phantoms deployed in them, over all games of a run.
#[derive(Default)]
struct Seen {
    steps: usize,
    deployed: usize,
}

/// A random bot that checks every phantom step before it chooses.
struct Checking {
    inner: RandomBot,
    step: SlotId,
    ctx: String,
    seen: Arc<Mutex<Seen>>,
}

impl Checking {
    fn check(&self, g: &Game) {
        let st = g.state();
        if st.slot(self.step, 0) == 0 || !matches!(g.decision().kind, DecisionKind::Deploy { .. }) {
            return;
        }
        let ctx = &self.ctx;
        let rules = g.rules();
        let phantom = rules.figure_named("phantom").expect("phantom kind");
        let p = g.decision().player;
        assert_eq!(
            p,
            st.active_player(),
            "{ctx}: the phantom step is the active player's"
        );
        assert_eq!(
            st.in_supply(p, phantom),
            1,
            "{ctx}: phantom step without a phantom"
        );
        assert!(
            !matches!(st.deploy_choice(), None | Some(Action::Pass)),
            "{ctx}: a phantom step after a pass (PH-4)"
        );
        let mut seen = self.seen.lock().expect("lock");
        seen.steps += 1;
        for a in g.actions() {
            let ok = match *a {
                Action::Pass => true,
                Action::Deploy { figure, .. } => figure == phantom,
                Action::Custom(c) => {
                    let name = &rules.verbs()[c.verb.0 as usize].1;
                    (rules.verb_value(c.verb) == VerbValue::FigureKind
                        && c.value == i32::from(phantom.0))
                        || name == "pay-ransom"
                }
                _ => false,
            };
            assert!(ok, "{ctx}: the phantom step offers {a:?}");
        }
    }
}

impl Bot for Checking {
    fn name(&self) -> &'static str {
        "checking"
    }

    fn choose(&mut self, game: &Game) -> usize {
        self.check(game);
        let i = self.inner.choose(game);
        let step = game.state().slot(self.step, 0) != 0;
        let phantom = game.rules().figure_named("phantom");
        if step
            && matches!(game.actions()[i], Action::Deploy { figure, .. } if Some(figure) == phantom)
        {
            self.seen.lock().expect("lock").deployed += 1;
        }
        i
    }

    fn choose_from(&mut self, game: &Game, allowed: &[usize]) -> usize {
        self.check(game);
        self.inner.choose_from(game, allowed)
    }
}

/// `games` games (seed = index); what the checking bots saw.
fn run(rules: &Arc<Ruleset>, games: u64, label: &str) -> Seen {
    let ix = rules.expansion_index("phantom").expect("phantom loaded");
    let step = SlotId(
        rules
            .slots()
            .iter()
            .position(|s| s.expansion == ix && s.name == "step")
            .expect("slot phantom.step") as u16,
    );
    let seen = Arc::new(Mutex::new(Seen::default()));
    for seed in 0..games {
        let players = 2 + (seed % 5) as usize;
        let ctx = format!("{label}, seed {seed}, {players} players");
        let setup = GameSetup::new((0..players).map(|i| format!("P{i}")).collect(), seed);
        let bots: Vec<Box<dyn Bot>> = (0..players)
            .map(|p| {
                Box::new(Checking {
                    inner: RandomBot::new(seed.rotate_left(9) ^ p as u64),
                    step,
                    ctx: ctx.clone(),
                    seen: Arc::clone(&seen),
                }) as Box<dyn Bot>
            })
            .collect();
        play_checked(rules, &setup, bots, 4000, &ctx);
    }
    let s = seen.lock().expect("lock");
    Seen {
        steps: s.steps,
        deployed: s.deployed,
    }
}

/// Alone: phantom steps are offered and phantoms deployed in them.
#[test]
fn phantom_alone() {
    let seen = run(&rules(&["phantom"], &[]), 300, "alone");
    assert!(seen.steps > 300, "only {} phantom steps", seen.steps);
    assert!(seen.deployed > 0, "no phantom deployed in a phantom step");
}

/// With every official expansion and both fan scripts.
#[test]
fn phantom_with_everything() {
    let seen = run(&rules(EVERYTHING, &[]), 150, "everything");
    assert!(seen.deployed > 0, "no phantom deployed in a phantom step");
}

/// With the expansions whose rules meet the phantom's: the Tower (caps, capture, ransom, in
/// JCZ's and FCZ's ransom timing), Princess & Dragon (princess, portal, dragon, fairy), the
/// builder's double turn, the abbot's garden, the Count's quarters.
#[test]
fn phantom_with_neighbours() {
    for (ransom, label) in [
        ("before-draw", "tower+p&d"),
        ("jcz", "tower(jcz)+p&d"),
        ("fcz", "tower(fcz)+p&d"),
    ] {
        run(
            &rules(
                &["tower", "princess-dragon", "phantom"],
                &[("tower.ransomAsked", ransom)],
            ),
            150,
            label,
        );
    }
    run(
        &rules(
            &["count", "traders-builders", "abbot-garden", "phantom"],
            &[],
        ),
        150,
        "count+t&b+abbot",
    );
}
