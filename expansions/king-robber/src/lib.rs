//! # King & Robber Baron (rules KR-1 … KR-7)
//!
//! The King goes to the player who completes the first city of the game, then to whoever
//! completes a city with strictly more tiles than every city completed before (the
//! record); the Robber Baron does the same for roads. Size is distinct tiles, not points
//! (KR-4); when one placement completes several, the largest is compared with the record
//! from before the placement. The holder scores by the award mode of option
//! `king-robber.kingRobberAward` (KR-6, KR-7). The three non-default modes are
//! JCloisterZone's (its `king-and-robber-scoring` rule); the spec names them without a
//! rule text, so they follow JCZ's engine (`KingCapability`, `RobberCapability`), whose
//! saves are our oracle:
//!
//! - `per-feature` (DEFAULT, KR-6): at the end, +1 per completed city (King) or road
//!   (Robber) on the board, whoever owns it. Any *virtual* completed city counts too, which
//!   is how the City of Carcassonne of the `count` expansion adds its +1 (KR-6, FAQ
//!   11/2013) without this crate knowing about it.
//! - `10/20`: at the end, 10 points for each title: the King's holder scores 10 (`king`),
//!   the Robber's holder 10 (`robber`); a player holding both gets 10 + 10 (two events).
//! - `15/40`: at the end, 15 for a player holding exactly one title (`king` / `robber`);
//!   a player holding both gets 40 in one event, score label `king+robber` (JCZ's name).
//! - `continuously`: no end bonus. When a placement completes cities (roads), the player
//!   who held the King (Robber) *before* that placement scores +1 per city (road) it
//!   completed, occupied or not (`king` / `robber`); only then may the title change hands.
//!   So the first city of the game scores nobody. The virtual City of Carcassonne is never
//!   completed by a placement and never scores here.
//!
//! The award mode is read once when the expansion binds to a ruleset; the game state
//! lives in game slots (holder seat or -1, record in tiles), so records and snapshots
//! carry it.

use carcassonne_core::{
    binder, Binder, Binding, BoundExpansion, Ctx, Declare, Expansion, FeatureGraph, FeatureKindId,
    GameSlot, HookFailure, HookResult, HookSet, LabelId, PlayerId, Ruleset, ScoreDraft, Scoring,
    View, Visible,
};

/// The two titles this expansion hands out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Title {
    King,
    Robber,
}

impl Title {
    fn scoring(self) -> Scoring {
        match self {
            Title::King => Scoring::City,
            Title::Robber => Scoring::Road,
        }
    }
}

/// Award mode (KR-7), parsed once per ruleset when the expansion binds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    /// KR-6: +1 per completed city (road) on the board at the end.
    PerFeature,
    /// `10/20`: 10 per title at the end.
    TenTwenty,
    /// `15/40`: 15 for one title, 40 for both at the end.
    FifteenForty,
    /// +1 per city (road) completed, to the holder before the placement.
    Continuously,
}

impl Mode {
    fn parse(s: &str) -> Result<Mode, HookFailure> {
        Ok(match s {
            "" | "per-feature" => Mode::PerFeature,
            "10/20" => Mode::TenTwenty,
            "15/40" => Mode::FifteenForty,
            "continuously" => Mode::Continuously,
            other => {
                return Err(HookFailure(format!(
                    "option kingRobberAward: unknown mode `{other}`"
                )))
            }
        })
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
struct Ids {
    /// Seat of the holder, or -1 (per title).
    holder: [GameSlot; 2],
    /// Record size in tiles (per title).
    record: [GameSlot; 2],
    label: [LabelId; 2],
    /// `15/40`: one player holds both titles.
    both: LabelId,
}

/// The King & Robber Baron expansion: stateless, it declares the slots and labels and
/// binds to each ruleset as a `KingRobberRules` (ids and award mode).
#[derive(Debug, Default)]
pub struct KingRobber;

/// Option key of the award mode.
pub const AWARD_OPTION: &str = "king-robber.kingRobberAward";

/// Short name of the award mode option (under this expansion's id).
const AWARD_OPTION_NAME: &str = "kingRobberAward";

impl KingRobber {
    /// The expansion (the same value may join any number of rulesets).
    pub fn new() -> Self {
        Self
    }
}

/// King & Robber Baron bound to one ruleset: its ids and the award mode, shared by every
/// game of the ruleset.
#[derive(Debug)]
struct KingRobberRules {
    ids: Ids,
    mode: Mode,
    /// Which title each feature kind counts for.
    titles: KindTitles,
    /// The kinds that count for a title (`titles` without the zeros).
    titled: Vec<(FeatureKindId, Title)>,
}

impl KingRobberRules {
    fn holder(&self, ctx: &Ctx<'_>, t: Title) -> Option<PlayerId> {
        let v = ctx.get(self.ids.holder[t as usize]);
        (v >= 0).then_some(PlayerId(v as u8))
    }
}

/// Per feature kind (by id): 0, or 1 + the title its completed features count for.
type KindTitles = [u8; 256];

/// The title table of a ruleset's feature kinds (cities count for the King, roads for
/// the Robber).
fn kind_titles(rules: &Ruleset) -> KindTitles {
    let mut t = [0u8; 256];
    for (i, k) in rules.kinds().iter().enumerate().take(256) {
        for title in [Title::King, Title::Robber] {
            if k.scoring == title.scoring() {
                t[i] = 1 + title as u8;
            }
        }
    }
    t
}

/// The feature kinds whose completed features count for a title, with it: the title
/// table without its zeros.
fn titled_kinds(titles: &KindTitles) -> Vec<(FeatureKindId, Title)> {
    let by_index = [Title::King, Title::Robber];
    titles
        .iter()
        .enumerate()
        .filter_map(|(i, &t)| {
            let title = *by_index.get(usize::from(t).checked_sub(1)?)?;
            Some((FeatureKindId(i as u8), title))
        })
        .collect()
}

/// Completed cities and roads on the whole board (virtual ones included): the graph's
/// count of complete features per kind ([`FeatureGraph::complete_count`], kept as features
/// complete, so the end of every search playout scans nothing), by title.
fn completed_counts(titled: &[(FeatureKindId, Title)], g: &FeatureGraph) -> [i32; 2] {
    let mut n = [0; 2];
    for &(kind, title) in titled {
        n[title as usize] += g.complete_count(kind) as i32;
    }
    n
}

fn player_named(ctx: &Ctx<'_>, name: &str) -> HookResult<i64> {
    if name == "none" || name == "-" {
        return Ok(-1);
    }
    Ok(i64::from(ctx.state().player_named(name)?.0))
}

impl Expansion for KingRobber {
    fn id(&self) -> &str {
        "king-robber"
    }

    fn version(&self) -> &str {
        env!("CARGO_PKG_VERSION")
    }

    fn declare(&self, d: &mut Declare<'_>) -> HookResult<Box<dyn Binder>> {
        let ids = Ids {
            holder: [d.game_slot("king", -1), d.game_slot("robber", -1)],
            record: [
                d.game_slot("king-record", 0),
                d.game_slot("robber-record", 0),
            ],
            label: [d.score_label("king"), d.score_label("robber")],
            both: d.score_label("king+robber"),
        };
        Ok(binder(move |b: &Binding<'_>| {
            let titles = kind_titles(b.rules());
            Ok(KingRobberRules {
                ids,
                mode: Mode::parse(b.option_str(AWARD_OPTION_NAME)?)?,
                titled: titled_kinds(&titles),
                titles,
            })
        }))
    }
}

impl BoundExpansion for KingRobberRules {
    fn hook_set(&self) -> HookSet {
        HookSet::AFTER_SCORING | HookSet::FINAL_SCORING
    }

    /// `king` / `robber` = player name or `none`; `king-record` / `robber-record` = tiles.
    fn apply_setting(&self, ctx: &mut Ctx<'_>, key: &str, value: &str) -> HookResult {
        let ids = &self.ids;
        let (slot, v) = match key {
            "king" => (ids.holder[0], player_named(ctx, value)?),
            "robber" => (ids.holder[1], player_named(ctx, value)?),
            "king-record" | "robber-record" => {
                let n: i64 = value
                    .parse()
                    .map_err(|_| HookFailure(format!("{key}: `{value}` is not a number")))?;
                (ids.record[(key == "robber-record") as usize], n)
            }
            _ => {
                return Err(HookFailure(format!(
                    "unknown setting `{key}` (known: king, robber, king-record, robber-record)"
                )))
            }
        };
        ctx.set(slot, v);
        Ok(())
    }

    /// KR-2 … KR-5: the largest city (road) completed by this placement against the record.
    /// Under `continuously` the holder from before the placement first scores +1 per city
    /// (road) the placement completed; then the title may change hands (JCZ's order).
    #[inline(always)]
    fn after_scoring(&self, ctx: &mut Ctx<'_>, draft: &ScoreDraft) -> HookResult {
        if draft.final_scoring {
            return Ok(());
        }
        let Some(placer) = draft.placer else {
            return Ok(());
        };
        let ids = &self.ids;
        // Per title: the largest feature completed and how many (one pass).
        let mut largest = [0u32; 2];
        let mut completed = [0i32; 2];
        for f in &draft.features {
            let t = self.titles[f.kind.0 as usize];
            if f.complete && t != 0 {
                let t = (t - 1) as usize;
                largest[t] = largest[t].max(f.tiles);
                completed[t] += 1;
            }
        }
        for title in [Title::King, Title::Robber] {
            let t = title as usize;
            if completed[t] == 0 {
                continue;
            }
            if self.mode == Mode::Continuously {
                if let Some(h) = self.holder(ctx, title) {
                    ctx.award(h, completed[t], ids.label[t]);
                }
            }
            if i64::from(largest[t]) > ctx.get(ids.record[t]) {
                ctx.set(ids.record[t], i64::from(largest[t]));
                ctx.set(ids.holder[t], i64::from(placer.0));
            }
        }
        Ok(())
    }

    /// The two titles, their holders and records, for renderers.
    fn describe(&self, v: View<'_>, out: &mut Vec<Visible>) -> HookResult {
        let ids = &self.ids;
        for (title, name, icon, what) in [
            (Title::King, "King", "crown", "city"),
            (Title::Robber, "Robber", "mask", "road"),
        ] {
            let t = title as usize;
            let holder = v.get(ids.holder[t]);
            let record = v.get(ids.record[t]);
            out.push(Visible::Title {
                group: "King & Robber".into(),
                name: name.into(),
                icon: icon.into(),
                holder: usize::try_from(holder)
                    .ok()
                    .filter(|h| *h < v.state.players().len())
                    .map(|h| PlayerId(h as u8)),
                detail: if record > 0 {
                    format!("largest {what}: {record} tiles")
                } else {
                    String::new()
                },
            });
        }
        Ok(())
    }

    /// KR-6 / KR-7: the end bonus (King first, then Robber, as JCZ scores them).
    fn final_scoring(&self, ctx: &mut Ctx<'_>) -> HookResult {
        let ids = &self.ids;
        let king = self.holder(ctx, Title::King);
        let robber = self.holder(ctx, Title::Robber);
        match self.mode {
            Mode::Continuously => {}
            Mode::PerFeature => {
                if king.is_none() && robber.is_none() {
                    return Ok(());
                }
                let counts = completed_counts(&self.titled, ctx.state().graph());
                for (title, h) in [(Title::King, king), (Title::Robber, robber)] {
                    if let Some(h) = h {
                        ctx.award(h, counts[title as usize], ids.label[title as usize]);
                    }
                }
            }
            Mode::TenTwenty => {
                for (title, h) in [(Title::King, king), (Title::Robber, robber)] {
                    if let Some(h) = h {
                        ctx.award(h, 10, ids.label[title as usize]);
                    }
                }
            }
            Mode::FifteenForty => match (king, robber) {
                (Some(k), Some(r)) if k == r => ctx.award(k, 40, ids.both),
                _ => {
                    for (title, h) in [(Title::King, king), (Title::Robber, robber)] {
                        if let Some(h) = h {
                            ctx.award(h, 15, ids.label[title as usize]);
                        }
                    }
                }
            },
        }
        Ok(())
    }
}

carcassonne_core::export_expansion!("king-robber", KingRobber::new());
