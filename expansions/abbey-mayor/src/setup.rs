//! Joining a ruleset: the figure kinds, verbs, labels and slots this expansion declares,
//! and the per-tile-kind tables bind builds once (barn corners, fields, the figure layout),
//! so no hook walks segments or looks up names per placement.

use crate::{AbbeyMayor, AmPrompt, AmRules, FigureLayout, Ids, ABBEY_TILE, NO_FIELD};
use carcassonne_core::{
    binder, Binder, Binding, Declare, Expansion, FeatureKindId, FigureKindDef, FigureKindId,
    HalfEdge, HookFailure, HookResult, KindMask, Rotation, Shape, VerbValue,
};

/// A corner's two half-edges (clockwise from the north-west corner: NW, NE, SE, SW).
const CORNER_HALVES: [(u8, u8); 4] = [(7, 0), (1, 2), (3, 4), (5, 6)];

impl Expansion for AbbeyMayor {
    fn id(&self) -> &str {
        "abbey-mayor"
    }

    fn version(&self) -> &str {
        env!("CARGO_PKG_VERSION")
    }

    fn declare(&self, d: &mut Declare<'_>) -> HookResult<Box<dyn Binder>> {
        let mask = |kinds: &[FeatureKindId]| kinds.iter().fold(KindMask(0), |m, k| m.with(*k));
        let mut wagon_kinds = vec![
            FeatureKindId::ROAD,
            FeatureKindId::CITY,
            FeatureKindId::CLOISTER,
        ];
        if let Some(shrine) = d.kind_named("shrine") {
            wagon_kinds.push(shrine);
        }
        let wagon_on = mask(&wagon_kinds);
        let mayor = d
            .figure_kind(FigureKindDef {
                name: "mayor".into(),
                per_player: 1,
                strength: 0,
                deploy_on: mask(&[FeatureKindId::CITY]),
                follower: true,
                returns: true,
                look: "mayor".into(),
                neutral: 0,
                shares: false,
                colour: String::new(),
            })
            .map_err(|e| e.to_string())?;
        let wagon = d
            .figure_kind(FigureKindDef {
                name: "wagon".into(),
                per_player: 1,
                strength: 2,
                deploy_on: wagon_on,
                follower: true,
                returns: true,
                look: "wagon".into(),
                neutral: 0,
                shares: false,
                colour: String::new(),
            })
            .map_err(|e| e.to_string())?;
        let barn = d
            .figure_kind(FigureKindDef {
                name: "barn".into(),
                per_player: 1,
                strength: 0,
                deploy_on: mask(&[FeatureKindId::FIELD]),
                follower: false,
                returns: false,
                look: "barn".into(),
                neutral: 0,
                shares: false,
                colour: String::new(),
            })
            .map_err(|e| e.to_string())?;
        let ids = Ids {
            mayor,
            wagon,
            barn,
            abbey: d.player_slot("abbey", 1),
            barn_corner: d.figure_corner_slot("barn-corner"),
            wagon_from: d.figure_slot("wagon-from", 0),
            wagon_up: d.figure_slot("wagon-up", 0),
            barn_placed: d.game_slot("barn-placed", 0),
            final_end: d.game_slot("final-round-end", 0),
            abbey_live: d.game_slot("abbey-live", 1),
            wagons_noted: d.game_slot("wagons-noted", 0),
            barn_gate: d.game_slot("barn-gate", 1),
            barn_verb: d.verb_in_words("barn", "put a barn"),
            barn_label: d.score_label("barn"),
        };
        // The value is an internal detail (a side, a corner, a quarter's index).
        d.verb_value(ids.barn_verb, VerbValue::Corner);
        d.prompt_in_words(
            AmPrompt::Abbey,
            "place your abbey instead of drawing a tile",
        );
        let wagon = "move your wagon onto a neighbouring unfinished feature";
        d.prompt_in_words(AmPrompt::Wagon { from: 0, up: false }, wagon);
        d.prompt_in_words(AmPrompt::Wagon { from: 0, up: true }, wagon);
        Ok(binder(move |b: &Binding<'_>| {
            let rules = b.rules();
            let choice = |name: &str, a: &str, bb: &str| -> HookResult<bool> {
                match b.option_str(name)? {
                    v if v == a => Ok(false),
                    v if v == bb => Ok(true),
                    other => Err(HookFailure(format!(
                        "option {name}: unknown value `{other}`"
                    ))),
                }
            };
            let mut links = Vec::new();
            let mut has_links = Vec::new();
            for (_, tk) in rules.tiles().iter() {
                let l: Vec<u8> = tk
                    .segments
                    .iter()
                    .map(|s| {
                        s.tags
                            .iter()
                            .filter_map(|t| t.strip_prefix("link-"))
                            .filter_map(|t| t.bytes().next())
                            .filter(|c| c.is_ascii_lowercase() && *c < b'a' + 8)
                            .fold(0u8, |m, c| m | 1 << (c - b'a'))
                    })
                    .collect();
                has_links.push(l.iter().any(|x| *x != 0));
                links.push(l);
            }
            // AM-20 corners and AM-24 fields, per tile kind, looked up instead of walking
            // the tile's segments at every placement and deployment step.
            let mut corner_fields = Vec::new();
            let mut barrier = Vec::new();
            let mut corner_bits = Vec::new();
            let mut fields = Vec::new();
            for (_, tk) in rules.tiles().iter() {
                let mut t = [NO_FIELD; 16];
                for q in 0..4u8 {
                    for c in 0..4u8 {
                        let (ha, hb) = CORNER_HALVES[c as usize];
                        let r = Rotation::quarter_turns(q);
                        let sa = tk.segment_on_half(r, HalfEdge::from_index(ha));
                        let sb = tk.segment_on_half(r, HalfEdge::from_index(hb));
                        if let (Some(sa), Some(sb)) = (sa, sb) {
                            if sa == sb {
                                t[(4 * q + c) as usize] = sa;
                            }
                        }
                    }
                }
                for q in 0..4 {
                    // A barrier tile (the abbey) takes no barn on any corner (AM-20).
                    let bits = (0..4)
                        .filter(|&c| t[4 * q + c] != NO_FIELD && !tk.barrier)
                        .fold(0u8, |m, c| m | 1 << c);
                    corner_bits.push(bits);
                }
                corner_fields.push(t);
                barrier.push(tk.barrier);
                // At most 16 segments a tile (core's limit): bit `i`, a field segment.
                fields.push(
                    (0..tk.segments.len().min(16))
                        .filter(|i| rules.kind(tk.segments[*i].kind).shape == Shape::Field)
                        .fold(0u16, |m, i| m | 1 << i),
                );
            }
            let kinds = rules.figure_kinds();
            let offset = |k: FigureKindId| -> (usize, usize) {
                let off = kinds[..k.0 as usize]
                    .iter()
                    .map(|d| d.per_player as usize)
                    .sum();
                (off, kinds[k.0 as usize].per_player as usize)
            };
            let layout = FigureLayout {
                stride: kinds.iter().map(|d| d.per_player as usize).sum(),
                barn: offset(ids.barn),
                wagon: offset(ids.wagon),
            };
            // AM-23 under `barnFarmFigures=non-followers`: only followers are kept off.
            let followers_only = choice("barnFarmFigures", "none", "non-followers")?;
            let mut claiming = [0u64; 4];
            for (k, d) in kinds.iter().enumerate().take(256) {
                if !d.shares && (d.follower || !followers_only) {
                    claiming[k / 64] |= 1 << (k % 64);
                }
            }
            let abbey_on = b.option_flag("abbey")?;
            Ok(AmRules {
                ids,
                me: b.me(),
                corner_fields,
                corner_bits,
                #[cfg(debug_assertions)]
                barrier,
                field_mask: fields,
                layout,
                claiming,
                alone: rules.expansions().len() == 1,
                // `abbey=false` (JCZ without the element `abbey`): nobody holds one.
                abbey_tile: rules.tiles().find(ABBEY_TILE).filter(|_| abbey_on),
                empty_city_event: choice("mayorEmptyCity", "none", "zero-points")?,
                c2: choice("wagonMove", "C1", "C2")?,
                city_links: choice("wagonCityLinks", "never", "linked")?,
                abbey_out: !choice("wagonAbbeyLinks", "both", "into-abbey")?,
                tags_only: choice("wagonJunctions", "any-tile", "tagged")?,
                barn_on_barn: choice("barnPlacement", "not-occupied", "occupied")?,
                final_round: !choice("abbeyFinalRound", "on", "off")?,
                loser_moves: choice("challengeLoserWagon", "returns", "may-move")?,
                edition2: choice("edition", "1", "2")?,
                wagon_on,
                links,
                has_links,
                promo_disc: rules.expansion_index("promotions").and_then(|ix| {
                    rules
                        .slots()
                        .iter()
                        .position(|d| {
                            d.expansion == ix
                                && d.name == "disc"
                                && d.scope == carcassonne_core::SlotScope::Figure
                        })
                        .map(|i| carcassonne_core::SlotId(i as u16))
                }),
            })
        }))
    }
}
