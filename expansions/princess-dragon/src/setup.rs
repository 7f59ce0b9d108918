//! Joining a ruleset: the verbs, label and slots this expansion declares, and what bind
//! reads once from the ruleset (tile tags, other expansions' figures and kinds, options)
//! into per-kind tables, so the hooks look nothing up by name.

use crate::{Ids, PdPrompt, PdRules, PrincessDragon, MAX_ASIDE_KINDS};

use carcassonne_core::{
    binder, Binder, Binding, Declare, Expansion, FeatureKindId, HookFailure, HookResult, KindMask,
    Ruleset, Shape, SlotId, SlotScope, TileKindId, VerbValue,
};

impl Expansion for PrincessDragon {
    fn id(&self) -> &str {
        "princess-dragon"
    }

    fn version(&self) -> &str {
        env!("CARGO_PKG_VERSION")
    }

    fn declare(&self, d: &mut Declare<'_>) -> HookResult<Box<dyn Binder>> {
        let ids = Ids {
            move_dragon: d.verb_in_words("move-dragon", "move the dragon"),
            move_fairy: d.verb_in_words("move-fairy", "move the fairy"),
            princess: d.verb_in_words("princess", "let the princess send a knight home"),
            fairy_points: d.score_label("fairy"),
            dragon: d.game_slot("dragon", 0),
            dragon_x: d.game_slot("dragon-x", 0),
            dragon_y: d.game_slot("dragon-y", 0),
            fairy: d.game_slot("fairy", 0),
            fairy_x: d.game_slot("fairy-x", 0),
            fairy_y: d.game_slot("fairy-y", 0),
            fairy_figure: d.game_slot("fairy-figure", 0),
            pending: d.game_slot("flight-pending", 0),
            steps: d.game_slot("flight-steps", 0),
            visited: [
                d.game_slot("visited-0", 0),
                d.game_slot("visited-1", 0),
                d.game_slot("visited-2", 0),
                d.game_slot("visited-3", 0),
                d.game_slot("visited-4", 0),
                d.game_slot("visited-5", 0),
                d.game_slot("visited-6", 0),
            ],
            bonus: d.game_slot("fairy-bonus", 0),
            aside: [
                d.game_slot("aside-0", 0),
                d.game_slot("aside-1", 0),
                d.game_slot("aside-2", 0),
                d.game_slot("aside-3", 0),
            ],
            aside_at: [
                d.game_slot("aside-at-0", 0),
                d.game_slot("aside-at-1", 0),
                d.game_slot("aside-at-2", 0),
                d.game_slot("aside-at-3", 0),
            ],
            aside_left: d.game_slot("aside-left", 0),
            volcano_part: d.game_slot("volcano-part", 0),
        };
        // The value is an internal detail (a side, a corner, a quarter's index).
        d.verb_value(ids.move_dragon, VerbValue::Hidden);
        d.verb_value(ids.move_fairy, VerbValue::Hidden);
        d.prompt_in_words(PdPrompt::DragonStep(1), "move the dragon one tile");
        Ok(binder(move |b: &Binding<'_>| bind(b, ids)))
    }
}

pub(crate) fn bind(b: &Binding<'_>, ids: Ids) -> HookResult<PdRules> {
    let rules: &Ruleset = b.rules();
    let coc_never = b.option_str("dragonOnCoC")? == "never";
    // The four parts, each switched on alone in JCZ (its elements): a part switched off
    // leaves its tile symbols as decoration (a volcano or a dragon tile is a plain tile).
    let dragon_on = b.option_flag("dragon")?;
    let princess_on = b.option_flag("princess")?;
    let portal_on = b.option_flag("portal")?;
    let central: Vec<TileKindId> = ["CO/6", "CO/7"]
        .iter()
        .filter_map(|id| rules.tiles().find(id))
        .collect();
    let mut r = PdRules {
        ids,
        me: b.me(),
        after_scoring: b.option_str("dragonTiming")? == "after-scoring",
        tower_top_immune: b.option_str("dragonVsTowerTop")? == "immune",
        volcano_only: b.option_str("dragonTileDeploy")? == "volcano-only",
        princess_must: b.option_str("princessAction")? == "must",
        on_tile: b.option_str("fairyPlacement")? == "on-tile",
        per_figure: b.option_str("fairyOnTilePoints")? == "per-figure",
        acrobats: b
            .rules()
            .expansion_index("big-top")
            .and_then(|_| b.rules().kind_named("acrobats")),
        coc_jcz: b.option_str("cocQuarterFigures")? == "jcz",
        volcano_extra: b.option_flag("volcanoExtraTile")?,
        fairy: b.option_flag("fairy")?,
        volcano: Vec::new(),
        dragon_tile: Vec::new(),
        portal: Vec::new(),
        princess_segs: Vec::new(),
        no_dragon: Vec::new(),
        deployable: Vec::new(),
        portal_locals: Vec::new(),
        portal_seg_kinds: Vec::new(),
        follower: rules.figure_kinds().iter().map(|k| k.follower).collect(),
        portal_kinds: KindMask(0),
        portal_kinds_no_fields: KindMask(0),
        aside_index: Vec::new(),
        aside_kinds: Vec::new(),
        barn: rules.figure_named("barn"),
        builder: rules.figure_named("builder"),
        pig: rules.figure_named("pig"),
        tower_kind: rules.kind_named("tower"),
        quarter_kind: rules.kind_named("quarter"),
        promotions_disc: rules.expansion_index("promotions").and_then(|ix| {
            rules
                .slots()
                .iter()
                .position(|d| d.expansion == ix && d.name == "disc" && d.scope == SlotScope::Figure)
                .map(|i| SlotId(i as u16))
        }),
        // The Promotions script declares the same flag (`promotions.dragonVsUpgraded`,
        // `no-entry` / `enter-but-immune`): either one set to `enter-but-immune` counts.
        alone: rules.expansions().len() == 1,
        upgraded_immune: b.option_str("dragonVsUpgraded")? == "enter-but-immune"
            || rules
                .options()
                .get("promotions.dragonVsUpgraded")
                .map(|v| v.to_string())
                == Some("enter-but-immune".into()),
    };
    for (i, def) in rules.kinds().iter().enumerate().take(64) {
        let kind = FeatureKindId(i as u8);
        if def.occupiable && Some(kind) != r.tower_kind {
            r.portal_kinds = r.portal_kinds.with(kind);
            if def.shape != Shape::Field {
                r.portal_kinds_no_fields = r.portal_kinds_no_fields.with(kind);
            }
        }
    }
    for (id, k) in rules.tiles().iter() {
        r.deployable.push(k.deploy);
        // At most 16 segments a tile (`check_tile`, `add_variant`). A placed tile of this
        // kind has at `PlacedTile::segment(i)` a node of `segments[i]`'s kind for the
        // whole game, at any rotation (its templates are in local order; nodes never
        // change kind; a variant's first segments are its base's, and the overlay's node
        // has the added segment's kind): a debug check in `portal_targets` compares.
        let mut kinds = [FeatureKindId(0); 16];
        for (to, seg) in kinds.iter_mut().zip(&k.segments) {
            *to = seg.kind;
        }
        let n = k.segments.len();
        r.portal_seg_kinds.push(kinds);
        r.portal_locals.push(if k.deploy {
            [
                PdRules::locals_of(&kinds, n, r.portal_kinds.0),
                PdRules::locals_of(&kinds, n, r.portal_kinds_no_fields.0),
            ]
        } else {
            [0, 0]
        });
        r.volcano.push(dragon_on && k.has_tag("volcano"));
        let dragon = dragon_on && k.has_tag("dragon");
        r.dragon_tile.push(dragon);
        r.portal.push(portal_on && k.has_tag("portal"));
        let mut mask = 0u8;
        for (i, s) in k.segments.iter().enumerate() {
            if princess_on && s.tags.iter().any(|t| t == "princess") && i < 8 {
                mask |= 1 << i;
            }
        }
        r.princess_segs.push(mask);
        r.no_dragon.push(if coc_never {
            k.has_tag("city-of-carcassonne")
        } else {
            central.contains(&id)
        });
        if dragon {
            r.aside_index.push(Some(r.aside_kinds.len()));
            r.aside_kinds.push(id);
        } else {
            r.aside_index.push(None);
        }
    }
    if r.aside_kinds.len() > MAX_ASIDE_KINDS {
        return Err(HookFailure(format!(
            "at most {MAX_ASIDE_KINDS} dragon tile kinds are supported, the ruleset has {}",
            r.aside_kinds.len()
        )));
    }
    Ok(r)
}
