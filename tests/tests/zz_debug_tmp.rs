#[test]
fn dbg() {
    let dirs = vec![carcassonne_tests::expansions_dir()];
    let rec = carcassonne_play::record::Record::load(std::path::Path::new(
        "/tmp/jczsoak/g1066/game-0.json",
    ))
    .unwrap();
    let mut spec = rec.rules_spec();
    spec.plugin_dirs = dirs.clone();
    let rules = carcassonne_rules::build_ruleset(&spec).unwrap();
    for k in [500usize, 505, 510, 514, 518, 526] {
        let g = rec.replay_with(&rules, "x", Some(k)).unwrap();
        let s = g.state().supply();
        let mut sc = s.clone();
        let mut kinds = Vec::new();
        sc.choices(&mut kinds);
        println!(
            "X ours {k}: {} | remaining {} kinds {:?} | next {:?}",
            g.describe_decision(),
            s.remaining(),
            kinds
                .iter()
                .map(|t| rules.tiles().get(*t).id.clone())
                .collect::<Vec<_>>(),
            rec.actions.get(k)
        );
    }
    let back = carcassonne_jcz::load(std::path::Path::new("/tmp/k1066.jcz"), &dirs, None).unwrap();
    let r2 = back.to_record().unwrap();
    let rules2 = back.game.rules().clone();
    let n = r2.actions.len();
    for k in [n - 40, n - 35, n - 30, n - 25, n - 12] {
        let g = r2.replay_with(&rules2, "y", Some(k)).unwrap();
        let s = g.state().supply();
        println!(
            "X back {k}: {} | remaining {} left {:?} | next {:?}",
            g.describe_decision(),
            s.remaining(),
            s.draws_left,
            r2.actions.get(k)
        );
    }
}
