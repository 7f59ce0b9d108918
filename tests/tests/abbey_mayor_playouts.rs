//! Abbey & Mayor's paths that a search runs at every playout and every deployment step:
//! AM-25's final scoring (the barns' awards from an inline list, the owners as seat bits),
//! the barn farms' items of the final drafts (looked for only in a farm holding more
//! figures than barns) and AM-23's filter (the claiming figure kinds as bits, the barns'
//! farms inline). At every decision of seeded random 2- and 3-player games, alone, beside
//! Traders & Builders and in the nine, a copy of the game is ended there (`end_now`, as a
//! search values a playout) and its barn awards are compared with AM-25 read from the
//! position; the offers are checked against AM-23. Debug builds of the plugin also compare
//! each fast path with the general one at every call (`cargo test` without `--release`).

use carcassonne_core::{
    Action, FeatureId, FigureKindId, FigureLoc, Game, GameSetup, GameState, LabelId, PlayerId,
    Ruleset, ScoreSource, View,
};
use carcassonne_play::bots::make_bot;
use carcassonne_tests::mixed::ended_copy;
use carcassonne_tests::{official_rules, NINE_OFFICIAL};
use std::sync::Arc;

/// The farms of the barns on the board, one entry per barn, in figure order, with owners.
fn barns(st: &GameState, barn: FigureKindId) -> Vec<(FeatureId, PlayerId)> {
    let g = st.graph();
    st.figures()
        .iter()
        .filter_map(|f| match f.loc {
            FigureLoc::On(s) if f.kind == barn => Some((g.feature_of(s), f.owner)),
            _ => None,
        })
        .collect()
}

/// AM-25 read from a position: per barn's farm, in the order of its first barn, 4 points
/// per completed city it borders to each of its barns' owners once, in seat order.
fn am25(rules: &Ruleset, st: &GameState, barn: FigureKindId) -> Vec<(PlayerId, i32)> {
    let view = View { rules, state: st };
    let barns = barns(st, barn);
    let mut out = Vec::new();
    let mut done: Vec<FeatureId> = Vec::new();
    for &(f, _) in &barns {
        if done.contains(&f) {
            continue;
        }
        done.push(f);
        let pts = 4 * view.completed_cities(f).len() as i32;
        let mut owners: Vec<PlayerId> = barns.iter().filter(|b| b.0 == f).map(|b| b.1).collect();
        owners.sort();
        owners.dedup();
        out.extend(owners.into_iter().map(|p| (p, pts)));
    }
    out
}

/// Plays seeded random games of `sets`, calling `check` with the game at every decision.
fn each_decision(sets: &[&str], seeds: u64, mut check: impl FnMut(&Arc<Ruleset>, &Game, u64)) {
    let rules = official_rules(sets, &[]);
    for seed in 0..seeds {
        let players = 2 + (seed % 2) as usize;
        let names = (0..players).map(|i| format!("P{i}")).collect();
        let mut g = Game::new(Arc::clone(&rules), &GameSetup::new(names, seed)).expect("game");
        let mut bot = make_bot("random", seed).expect("bot");
        let mut steps = 0;
        while !g.is_over() {
            check(&rules, &g, seed);
            let a = g.actions()[bot.choose(&g)];
            g.apply(a).expect("an offered action applies");
            steps += 1;
            assert!(steps < 3000, "{sets:?}, seed {seed}: the game does not end");
        }
    }
}

/// AM-25 and the barn farms' final items: every decision's position ended at once (the
/// `BeforeFinalScoring` window's questions answered at random) gives each barn owner the
/// awards read from the position (`barn` events of the final scoring, in order), and leaves
/// no follower on a barn's farm (a follower there is scored and returned by the barn
/// farm's item of the first final draft). Some positions had barn awards, some a barn's
/// farm holding more figures than barns.
#[test]
fn barn_final_scoring_at_every_decision() {
    let (mut awarded, mut crowded) = (0usize, 0usize);
    for sets in [
        &["abbey-mayor"][..],
        &["abbey-mayor", "traders-builders"],
        &NINE_OFFICIAL,
    ] {
        let seeds = if sets.len() > 2 { 30 } else { 40 };
        each_decision(sets, seeds, |rules, g, seed| {
            let barn = rules.figure_named("barn").expect("the barn");
            let label = rules
                .labels()
                .iter()
                .position(|l| l == "barn")
                .map(|i| LabelId(i as u16))
                .expect("the barn label");
            let from = g.state().events().len();
            let mut bot = make_bot("random", seed).expect("bot");
            let end = ended_copy(g, |e| bot.choose(e), &format!("{sets:?}, seed {seed}"));
            // The barns and their farms do not change in the final scoring: AM-25 read from
            // the position before it.
            let st = end.state();
            let want = am25(rules, st, barn);
            let got: Vec<(PlayerId, i32)> = st.events()[from..]
                .iter()
                .filter(|e| e.final_scoring && e.source == ScoreSource::Label(label))
                .map(|e| (e.player, e.points))
                .collect();
            assert_eq!(got, want, "{sets:?}, seed {seed}, turn {}", st.turn());
            awarded += usize::from(!want.is_empty());
            // No follower is left on a barn's farm.
            let g2 = st.graph();
            let farms = barns(st, barn);
            for f in st.figures() {
                if let FigureLoc::On(s) = f.loc {
                    assert!(
                        !(rules.figure_kind(f.kind).follower
                            && farms.iter().any(|b| b.0 == g2.feature_of(s))),
                        "{sets:?}, seed {seed}: a follower left on a barn's farm"
                    );
                }
            }
            let before = g.state();
            let gb = before.graph();
            let farms = barns(before, barn);
            crowded += usize::from(farms.iter().any(|&(f, _)| {
                usize::from(gb.totals(f).occupants) > farms.iter().filter(|b| b.0 == f).count()
            }));
        });
    }
    assert!(
        awarded > 0 && crowded > 0,
        "awarded {awarded}, crowded {crowded}"
    );
}

/// AM-23 at every decision: no offer (deployment step or another expansion's prompt)
/// deploys a figure that claims its feature onto a farm holding a barn; some decisions
/// offered deployments while a barn stood on the board.
#[test]
fn no_claiming_deployment_onto_a_barn_farm() {
    let mut looked = 0usize;
    for sets in [&["abbey-mayor", "traders-builders"][..], &NINE_OFFICIAL] {
        each_decision(sets, 12, |rules, g, seed| {
            let barn = rules.figure_named("barn").expect("the barn");
            let st = g.state();
            let farms = barns(st, barn);
            if farms.is_empty() {
                return;
            }
            let gr = st.graph();
            for a in g.actions() {
                if let Action::Deploy { figure, segment } = *a {
                    looked += 1;
                    assert!(
                        rules.figure_kind(figure).shares
                            || !farms.iter().any(|b| b.0 == gr.feature_of(segment)),
                        "{sets:?}, seed {seed}, turn {}: {a} onto a barn's farm",
                        st.turn()
                    );
                }
            }
        });
    }
    assert!(looked > 0, "no deployment offered beside a barn");
}
