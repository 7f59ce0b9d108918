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
//! State lives in game slots (holder seat or -1, record in tiles), so records and
//! snapshots carry it.

use carcassonne_core::{
    Ctx, Expansion, FeatureGraph, HookFailure, HookResult, HookSet, LabelId, PlayerId, Ruleset,
    ScoreDraft, Scoring, SegmentId, Setup, SetupIds, SlotId, SlotScope, View, Visible,
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

/// Award mode (KR-7), parsed once per game into a slot.
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

    fn code(self) -> i64 {
        match self {
            Mode::PerFeature => 0,
            Mode::TenTwenty => 1,
            Mode::FifteenForty => 2,
            Mode::Continuously => 3,
        }
    }

    fn from_code(c: i64) -> Mode {
        match c {
            1 => Mode::TenTwenty,
            2 => Mode::FifteenForty,
            3 => Mode::Continuously,
            _ => Mode::PerFeature,
        }
    }
}

#[derive(Debug, PartialEq)]
struct Ids {
    /// Seat of the holder, or -1 (per title).
    holder: [SlotId; 2],
    /// Record size in tiles (per title).
    record: [SlotId; 2],
    label: [LabelId; 2],
    /// `15/40`: one player holds both titles.
    both: LabelId,
    mode: SlotId,
}

/// The King & Robber Baron expansion.
#[derive(Debug, Default)]
pub struct KingRobber {
    ids: SetupIds<Ids>,
}

/// Option key of the award mode.
pub const AWARD_OPTION: &str = "king-robber.kingRobberAward";

impl KingRobber {
    /// A new instance (one per ruleset).
    pub fn new() -> Self {
        Self::default()
    }

    fn holder(&self, ctx: &Ctx<'_>, t: Title) -> HookResult<Option<PlayerId>> {
        let v = ctx.slot(self.ids.get()?.holder[t as usize], 0);
        Ok((v >= 0).then_some(PlayerId(v as u8)))
    }
}

/// Completed cities and roads on the whole board (virtual ones included), in one pass.
fn completed_counts(rules: &Ruleset, g: &FeatureGraph) -> [i32; 2] {
    let mut n = [0; 2];
    for i in 0..g.len() {
        let seg = SegmentId::new(i);
        let f = g.feature_of(seg);
        if f.segment() == seg && g.totals(f).complete() {
            match rules.kind(g.kind(f)).scoring {
                Scoring::City => n[Title::King as usize] += 1,
                Scoring::Road => n[Title::Robber as usize] += 1,
                _ => {}
            }
        }
    }
    n
}

fn player_named(ctx: &Ctx<'_>, name: &str) -> HookResult<i64> {
    if name == "none" || name == "-" {
        return Ok(-1);
    }
    ctx.state()
        .players()
        .iter()
        .position(|p| p.name == name)
        .map(|i| i as i64)
        .ok_or_else(|| HookFailure(format!("no player named `{name}`")))
}

impl Expansion for KingRobber {
    fn id(&self) -> &str {
        "king-robber"
    }

    fn version(&self) -> &str {
        env!("CARGO_PKG_VERSION")
    }

    fn hooks(&self, _rules: &Ruleset) -> HookSet {
        HookSet::GAME_START | HookSet::AFTER_SCORING | HookSet::FINAL_SCORING
    }

    fn setup(&self, s: &mut Setup<'_>) -> HookResult {
        self.ids.bind(Ids {
            holder: [
                s.slot("king", SlotScope::Game, -1),
                s.slot("robber", SlotScope::Game, -1),
            ],
            record: [
                s.slot("king-record", SlotScope::Game, 0),
                s.slot("robber-record", SlotScope::Game, 0),
            ],
            label: [s.score_label("king"), s.score_label("robber")],
            both: s.score_label("king+robber"),
            mode: s.slot("award-mode", SlotScope::Game, 0),
        })
    }

    fn start_game(&self, ctx: &mut Ctx<'_>) -> HookResult {
        let mode = Mode::parse(ctx.rules().options().str(AWARD_OPTION))?;
        ctx.set_slot(self.ids.get()?.mode, 0, mode.code());
        Ok(())
    }

    /// `king` / `robber` = player name or `none`; `king-record` / `robber-record` = tiles.
    fn apply_setting(&self, ctx: &mut Ctx<'_>, key: &str, value: &str) -> HookResult {
        let ids = self.ids.get()?;
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
        ctx.set_slot(slot, 0, v);
        Ok(())
    }

    /// KR-2 … KR-5: the largest city (road) completed by this placement against the record.
    /// Under `continuously` the holder from before the placement first scores +1 per city
    /// (road) the placement completed; then the title may change hands (JCZ's order).
    fn after_scoring(&self, ctx: &mut Ctx<'_>, draft: &ScoreDraft) -> HookResult {
        if draft.final_scoring {
            return Ok(());
        }
        let Some(placer) = draft.placer else {
            return Ok(());
        };
        let ids = self.ids.get()?;
        let mode = Mode::from_code(ctx.slot(ids.mode, 0));
        for title in [Title::King, Title::Robber] {
            let mut largest = 0u32;
            let mut completed = 0;
            for f in &draft.features {
                if f.complete && ctx.rules().kind(f.kind).scoring == title.scoring() {
                    largest = largest.max(f.tiles);
                    completed += 1;
                }
            }
            if completed == 0 {
                continue;
            }
            let t = title as usize;
            if mode == Mode::Continuously {
                if let Some(h) = self.holder(ctx, title)? {
                    ctx.award(h, completed, ids.label[t]);
                }
            }
            if i64::from(largest) > ctx.slot(ids.record[t], 0) {
                ctx.set_slot(ids.record[t], 0, i64::from(largest));
                ctx.set_slot(ids.holder[t], 0, i64::from(placer.0));
            }
        }
        Ok(())
    }

    /// The two titles, their holders and records, for renderers.
    fn describe(&self, v: View<'_>, out: &mut Vec<Visible>) -> HookResult {
        let ids = self.ids.get()?;
        for (title, name, icon, what) in [
            (Title::King, "King", "crown", "city"),
            (Title::Robber, "Robber", "mask", "road"),
        ] {
            let t = title as usize;
            let holder = v.state.slot(ids.holder[t], 0);
            let record = v.state.slot(ids.record[t], 0);
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
        let ids = self.ids.get()?;
        let mode = Mode::from_code(ctx.slot(ids.mode, 0));
        let king = self.holder(ctx, Title::King)?;
        let robber = self.holder(ctx, Title::Robber)?;
        match mode {
            Mode::Continuously => {}
            Mode::PerFeature => {
                let counts = completed_counts(ctx.rules(), ctx.state().graph());
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
