//! Game values as scripts see them, both ways: ids, cells, tile names ([`Names`]), actions and score drafts.

use super::*;
use crate::memo::Val;

pub(crate) fn player(state: &GameState, p: INT) -> R<PlayerId> {
    if (0..state.players().len() as INT).contains(&p) {
        Ok(PlayerId(p as u8))
    } else {
        err(format!(
            "no player {p} (players are 0..{})",
            state.players().len()
        ))
    }
}

pub(crate) fn figure(state: &GameState, f: INT) -> R<FigureId> {
    if (0..state.figures().len() as INT).contains(&f) {
        Ok(FigureId(f as u16))
    } else {
        err(format!("no figure {f}"))
    }
}

pub(crate) fn segment(state: &GameState, s: INT) -> R<SegmentId> {
    if (0..state.graph().len() as INT).contains(&s) {
        Ok(SegmentId::new(s as usize))
    } else {
        err(format!("no segment {s}"))
    }
}

/// A tile kind by id or alias, as `TileCatalog::find` finds it (through the ruleset's
/// [`Names`] when the script is bound).
pub(crate) fn tile_kind(c: &Call<'_, '_>, rules: &Ruleset, id: &str) -> R<TileKindId> {
    match c.bound {
        Some(b) => b.names().tile(id),
        None => rules.tiles().find(id),
    }
    .ok_or_else(|| format!("no tile `{id}`").into())
}

/// A placement asked about before it is made (`completes_at`, `joins_at`): the tile kind, the
/// empty cell and the rotation, each checked, with `function` naming the caller in errors.
pub(crate) fn unplaced_at(
    c: &Call<'_, '_>,
    v: View<'_>,
    function: &str,
    (tile, x, y, degrees): (&str, INT, INT, INT),
) -> R<(TileKindId, Pos, Rotation)> {
    let t = tile_kind(c, v.rules, tile).map_err(|_| format!("{function}: no tile `{tile}`"))?;
    let r = Rotation::from_degrees(degrees).ok_or("rotation must be 0, 90, 180 or 270")?;
    let pos = Pos::new(
        i32::try_from(x).map_err(|_| "x is out of range")?,
        i32::try_from(y).map_err(|_| "y is out of range")?,
    );
    if !pos.in_bounds() || v.state.board().is_occupied(pos) {
        return err(format!("{function}: ({x},{y}) is not an empty cell"));
    }
    Ok((t, pos, r))
}

pub(crate) fn cell(p: Pos) -> Dynamic {
    let mut m = Map::new();
    m.insert("x".into(), (p.x as INT).into());
    m.insert("y".into(), (p.y as INT).into());
    Dynamic::from_map(m)
}

pub(crate) fn option_dynamic(v: &OptionValue) -> Dynamic {
    match v {
        OptionValue::Bool(b) => (*b).into(),
        OptionValue::Int(i) => (*i).into(),
        OptionValue::Str(s) => s.clone().into(),
    }
}

/// The cell of the last placed tile.
pub fn last_cell(view: View<'_>) -> Option<(INT, INT)> {
    let i = view.state.last_placed()?;
    let t = view.state.board().tile(i);
    Some((t.pos.x as INT, t.pos.y as INT))
}

/// Strings the action maps use, made once per ruleset (a Rhai string is shared by
/// reference count, so building a map costs no string allocation).
#[derive(Debug)]
pub struct Names {
    types: [ImmutableString; 6],
    expansions: Vec<ImmutableString>,
    verbs: Vec<ImmutableString>,
    figure_kinds: Vec<ImmutableString>,
    /// Tile ids by tile kind.
    tiles: Vec<ImmutableString>,
    /// Tile kinds by id and alias (the first kind of the catalog that has it).
    tile_ids: memo::FxMap<String, TileKindId>,
    /// `on_figure_removed` reasons.
    reasons: [ImmutableString; 2],
    /// Feature kind names by id.
    kinds: Vec<ImmutableString>,
}

impl Names {
    /// The names of a ruleset.
    pub fn new(rules: &Ruleset) -> Names {
        Names {
            types: ["place", "deploy", "move", "pass", "custom", "draw"].map(ImmutableString::from),
            expansions: rules.expansions().iter().map(|e| e.id().into()).collect(),
            verbs: rules
                .verbs()
                .iter()
                .map(|(_, n)| n.as_str().into())
                .collect(),
            figure_kinds: rules
                .figure_kinds()
                .iter()
                .map(|k| k.name.as_str().into())
                .collect(),
            tiles: rules
                .tiles()
                .iter()
                .map(|(_, k)| k.id.as_str().into())
                .collect(),
            tile_ids: {
                let mut ids = memo::FxMap::default();
                for (i, k) in rules.tiles().iter() {
                    for name in std::iter::once(&k.id).chain(&k.aliases) {
                        ids.entry(name.clone()).or_insert(i);
                    }
                }
                ids
            },
            reasons: ["scored", "expansion"].map(ImmutableString::from),
            kinds: rules
                .kinds()
                .iter()
                .map(|k| k.name.as_str().into())
                .collect(),
        }
    }

    /// A feature kind's name.
    pub(crate) fn kind(&self, k: carcassonne_core::FeatureKindId) -> ImmutableString {
        self.kinds[k.0 as usize].clone()
    }

    /// A tile kind's id.
    pub(crate) fn tile_id(&self, k: TileKindId) -> ImmutableString {
        self.tiles[k.0 as usize].clone()
    }

    /// A tile kind by id or alias.
    pub(crate) fn tile(&self, id: &str) -> Option<TileKindId> {
        self.tile_ids.get(id).copied()
    }

    /// The name of a reason a figure left the board.
    pub(crate) fn reason(&self, r: RemovalReason) -> ImmutableString {
        match r {
            RemovalReason::Scored => self.reasons[0].clone(),
            RemovalReason::Expansion => self.reasons[1].clone(),
        }
    }
}

impl Names {
    /// A field of a custom action's map as [`action_value`] makes it, without the map
    /// (`Some(None)`: the map has no such field).
    pub(crate) fn custom_field(&self, c: &CustomAction, field: &str) -> Option<Val> {
        let name = |list: &Vec<ImmutableString>, i: usize| {
            Val::Str(list.get(i).cloned().unwrap_or_default())
        };
        Some(match field {
            "type" => Val::Str(self.types[4].clone()),
            "expansion" => name(&self.expansions, c.expansion.0 as usize),
            "verb" => name(&self.verbs, c.verb.0 as usize),
            "figure" => Val::Int(c.figure.map_or(-1, |f| f.0 as INT)),
            "segment" => Val::Int(c.segment.map_or(-1, |x| x.index() as INT)),
            "value" => Val::Int(c.value as INT),
            _ => return None,
        })
    }
}

/// An action as a script sees it.
pub fn action_to_dynamic(view: View<'_>, names: &Names, a: &Action) -> Dynamic {
    action_value(view.rules, names, a)
}

/// An action as a script sees it (it only depends on the rules).
pub(crate) fn action_value(rules: &Ruleset, names: &Names, a: &Action) -> Dynamic {
    let mut m = Map::new();
    let s = |m: &mut Map, k: &str, v: Dynamic| {
        m.insert(k.into(), v);
    };
    let name = |list: &Vec<ImmutableString>, i: usize| -> Dynamic {
        list.get(i).cloned().unwrap_or_default().into()
    };
    match a {
        Action::Place { pos, rotation } => {
            s(&mut m, "type", names.types[0].clone().into());
            s(&mut m, "x", (pos.x as INT).into());
            s(&mut m, "y", (pos.y as INT).into());
            s(&mut m, "rotation", (rotation.degrees() as INT).into());
        }
        Action::Deploy { figure, segment } => {
            s(&mut m, "type", names.types[1].clone().into());
            s(
                &mut m,
                "figure_kind",
                name(&names.figure_kinds, figure.0 as usize),
            );
            s(&mut m, "segment", (segment.index() as INT).into());
            s(
                &mut m,
                "follower",
                rules.figure_kind(*figure).follower.into(),
            );
        }
        Action::Move { figure, segment } => {
            s(&mut m, "type", names.types[2].clone().into());
            s(&mut m, "figure", (figure.0 as INT).into());
            s(&mut m, "segment", (segment.index() as INT).into());
        }
        Action::Pass => s(&mut m, "type", names.types[3].clone().into()),
        Action::Draw { tile } => {
            s(&mut m, "type", names.types[5].clone().into());
            s(&mut m, "tile", names.tile_id(*tile).into());
        }
        Action::Custom(c) => {
            s(&mut m, "type", names.types[4].clone().into());
            s(
                &mut m,
                "expansion",
                name(&names.expansions, c.expansion.0 as usize),
            );
            s(&mut m, "verb", name(&names.verbs, c.verb.0 as usize));
            s(&mut m, "figure", c.figure.map_or(-1, |f| f.0 as INT).into());
            s(
                &mut m,
                "segment",
                c.segment.map_or(-1, |x| x.index() as INT).into(),
            );
            s(&mut m, "value", (c.value as INT).into());
        }
    }
    Dynamic::from_map(m)
}

/// Whether reading these returned actions depends on the rules only: custom actions and
/// `pass` that name no figure and no segment (those are checked against the game).
pub(crate) fn rules_only(list: &Array) -> bool {
    list.iter().all(|item| {
        item.read_lock::<Map>().is_some_and(|m| {
            let ty = m
                .get("type")
                .and_then(|t| t.read_lock::<ImmutableString>().map(|s| s.clone()));
            let none = |k: &str| m.get(k).is_none_or(|v| v.as_int() == Ok(-1));
            ty.is_some_and(|t| t == "custom" || t == "pass") && none("figure") && none("segment")
        })
    })
}

/// Which actions a hook may hand back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Allow {
    /// Only this expansion's own verbs (deployment-step offers).
    OwnCustom,
    /// Own verbs, legal deployments, moves, pass (prompts).
    Prompt,
    /// Anything (a filter's answer, matched against what was offered).
    Any,
}

fn int_field(m: &Map, k: &str) -> Result<Option<INT>, String> {
    match m.get(k) {
        None => Ok(None),
        Some(v) => v
            .as_int()
            .map(Some)
            .map_err(|t| format!("field `{k}` is a {t}, not an integer")),
    }
}

fn str_field(m: &Map, k: &str) -> Result<String, String> {
    m.get(k)
        .and_then(|v| v.clone().into_string().ok())
        .ok_or_else(|| format!("field `{k}` is missing or not a string"))
}

/// Reads and checks an action a script handed back.
pub fn action_from_dynamic(
    view: View<'_>,
    me: ExpansionIndex,
    decl: &Decl,
    value: Dynamic,
    who: PlayerId,
    allow: Allow,
) -> Result<Action, String> {
    let m = value
        .try_cast::<Map>()
        .ok_or("an action must be an object map")?;
    let ty = str_field(&m, "type")?;
    let state = view.state;
    let seg = |v: Option<INT>| -> Result<Option<SegmentId>, String> {
        match v {
            None | Some(-1) => Ok(None),
            Some(s) => segment(state, s).map(Some).map_err(|e| e.to_string()),
        }
    };
    let fig = |v: Option<INT>| -> Result<Option<FigureId>, String> {
        match v {
            None | Some(-1) => Ok(None),
            Some(f) => figure(state, f).map(Some).map_err(|e| e.to_string()),
        }
    };
    match ty.as_str() {
        "custom" => {
            if let Some(e) = m.get("expansion") {
                let e = e.clone().into_string().unwrap_or_default();
                if allow != Allow::Any
                    && !e.is_empty()
                    && e != view.rules.expansions()[me.0 as usize].id()
                {
                    return Err(format!(
                        "a script may only offer its own verbs, not `{e}`'s"
                    ));
                }
                if allow == Allow::Any && !e.is_empty() {
                    // A filter may keep another expansion's action: match it as offered.
                    let idx = view
                        .rules
                        .expansion_index(&e)
                        .ok_or_else(|| format!("no expansion `{e}`"))?;
                    let verb = str_field(&m, "verb")?;
                    let v = view
                        .rules
                        .verb_named(idx, &verb)
                        .ok_or_else(|| format!("`{e}` has no verb `{verb}`"))?;
                    return Ok(Action::Custom(CustomAction {
                        expansion: idx,
                        verb: v,
                        figure: fig(int_field(&m, "figure")?)?,
                        segment: seg(int_field(&m, "segment")?)?,
                        value: value_i32(int_field(&m, "value")?.unwrap_or(0))?,
                    }));
                }
            }
            let verb = str_field(&m, "verb")?;
            let v = decl
                .verb(&verb)
                .ok_or_else(|| format!("verb `{verb}` was not declared in setup()"))?;
            Ok(Action::Custom(CustomAction {
                expansion: me,
                verb: v,
                figure: fig(int_field(&m, "figure")?)?,
                segment: seg(int_field(&m, "segment")?)?,
                value: value_i32(int_field(&m, "value")?.unwrap_or(0))?,
            }))
        }
        "pass" if allow != Allow::OwnCustom => Ok(Action::Pass),
        "deploy" if allow != Allow::OwnCustom => {
            let kind = str_field(&m, "figure_kind")?;
            let k = view
                .rules
                .figure_named(&kind)
                .ok_or_else(|| format!("no figure kind `{kind}`"))?;
            let s = seg(int_field(&m, "segment")?)?.ok_or("a deploy action needs a segment")?;
            let a = Action::Deploy {
                figure: k,
                segment: s,
            };
            if allow == Allow::Prompt {
                check_deployment(view, who, k, s).map_err(|why| {
                    format!(
                        "deploying a `{kind}` of player {} on segment {} is not legal: {why}",
                        who.0,
                        s.index()
                    )
                })?;
            }
            Ok(a)
        }
        "move" if allow != Allow::OwnCustom => {
            let f = fig(int_field(&m, "figure")?)?.ok_or("a move action needs a figure")?;
            let s = seg(int_field(&m, "segment")?)?.ok_or("a move action needs a segment")?;
            if allow == Allow::Prompt {
                check_move(state, f, s)?;
            }
            Ok(Action::Move {
                figure: f,
                segment: s,
            })
        }
        "place" if allow == Allow::Any => {
            let x = int_field(&m, "x")?.ok_or("a place action needs x")?;
            let y = int_field(&m, "y")?.ok_or("a place action needs y")?;
            let r = int_field(&m, "rotation")?.unwrap_or(0);
            Ok(Action::Place {
                pos: Pos::new(x as i32, y as i32),
                rotation: Rotation::from_degrees(r).ok_or("rotation must be 0, 90, 180 or 270")?,
            })
        }
        other => Err(format!("action type `{other}` is not allowed here")),
    }
}

fn value_i32(v: INT) -> Result<i32, String> {
    i32::try_from(v).map_err(|_| format!("value {v} is out of range"))
}

/// Whether `who` may deploy a figure of kind `k` from supply on segment `s`, and if not,
/// why. A figure players deploy in the action step follows the base rules there (a
/// feature of a placed tile, unoccupied, figure in supply: what `deployments` offers);
/// a figure only the script deploys (`deploy = "script"`) may go wherever its manifest
/// lets it stand ([`check_stand`]).
pub(crate) fn check_deployment(
    view: View<'_>,
    who: PlayerId,
    k: FigureKindId,
    s: SegmentId,
) -> Result<(), String> {
    let def = view.rules.figure_kind(k);
    if def.is_neutral() {
        return Err(format!(
            "`{}` is a neutral figure: place it with `place_neutral`",
            def.name
        ));
    }
    if view.state.in_supply(who, k) == 0 {
        return Err(format!("player {} has no `{}` in supply", who.0, def.name));
    }
    if !def.follower {
        return check_stand(view, k, s);
    }
    let node = view.state.graph().segment(s);
    if node.is_virtual() {
        return Err("players deploy only onto placed tiles".into());
    }
    let mut legal = Vec::new();
    view.deployments_on_tile(who, node.pos, &mut legal);
    if legal.contains(&Action::Deploy {
        figure: k,
        segment: s,
    }) {
        return Ok(());
    }
    // Not offered: say which of the base rules refuses it.
    check_stand(view, k, s)?;
    Err("the base rules offer no such deployment there (A-7: a feature of a placed tile that allows it)".into())
}

/// Whether a figure of kind `k` may stand on segment `s` under what its manifest declares:
/// its feature kind is one of `stands-on`, the feature is not scored, and it holds no
/// figure unless the figure `shares` (neutral figures always do).
pub(crate) fn check_stand(view: View<'_>, k: FigureKindId, s: SegmentId) -> Result<(), String> {
    let def = view.rules.figure_kind(k);
    let g = view.state.graph();
    let kind = g.segment(s).kind;
    if !def.deploy_on.contains(kind) {
        return Err(format!(
            "a `{}` does not stand on a `{}` (its stands-on)",
            def.name,
            view.rules.kind(kind).name
        ));
    }
    check_joinable(view.state, k, s)
}

/// Whether figure `f` may move onto segment `s`: it is in play, and the feature is neither
/// scored nor (unless the figure shares features) occupied.
pub(crate) fn check_move(state: &GameState, f: FigureId, s: SegmentId) -> Result<(), String> {
    let fig = state.figure(f);
    if !matches!(fig.loc, FigureLoc::On(_)) {
        return Err(format!("figure {} is not in play", f.0));
    }
    check_joinable(state, fig.kind, s)
}

/// Whether a figure of kind `k` may join the feature of segment `s`: it is not scored, and
/// holds no occupant unless the figure shares features.
fn check_joinable(state: &GameState, k: FigureKindId, s: SegmentId) -> Result<(), String> {
    let g = state.graph();
    let t = g.totals(g.feature_of(s));
    if t.scored {
        return Err(format!("segment {} is on a scored feature", s.index()));
    }
    if t.occupants > 0 && state.occupies(k) {
        return Err(format!(
            "segment {} is on an occupied feature (only a figure that `shares` may join one)",
            s.index()
        ));
    }
    Ok(())
}

/// A score draft as a script sees it.
pub fn draft_to_dynamic(view: View<'_>, d: &ScoreDraft) -> Dynamic {
    draft_value(d, |k| view.rules.kind(k).name.clone().into(), |_| true)
}

/// A score draft as a script sees it (it only depends on the rules): `kind` names a
/// feature kind, and only the fields `want` accepts are made (a hook that reads only
/// `draft.final` gets no lists it never looks at; see `memo::Shape::only_fields`).
pub(crate) fn draft_value(
    d: &ScoreDraft,
    kind: impl Fn(carcassonne_core::FeatureKindId) -> Dynamic,
    want: impl Fn(&str) -> bool,
) -> Dynamic {
    let mut m = Map::new();
    if want("final") {
        m.insert("final".into(), d.final_scoring.into());
    }
    if want("placer") {
        m.insert("placer".into(), d.placer.map_or(-1, |p| p.0 as INT).into());
    }
    if want("features") {
        let features: Array = d
            .features
            .iter()
            .map(|f| {
                let mut x = Map::new();
                x.insert("kind".into(), kind(f.kind));
                x.insert(
                    "segment".into(),
                    (f.feature.segment().index() as INT).into(),
                );
                x.insert("tiles".into(), (f.tiles as INT).into());
                x.insert("complete".into(), f.complete.into());
                x.insert("value".into(), (f.value as INT).into());
                x.insert("closes".into(), f.closes.into());
                x.insert("forfeit".into(), f.forfeit.into());
                Dynamic::from_map(x)
            })
            .collect();
        m.insert("features".into(), Dynamic::from_array(features));
    }
    if want("awards") {
        let awards: Array = d
            .awards
            .iter()
            .map(|a| {
                let mut x = Map::new();
                x.insert("item".into(), (a.item as INT).into());
                x.insert("player".into(), (a.player.0 as INT).into());
                x.insert("points".into(), (a.points as INT).into());
                x.insert("bonus".into(), a.bonus.into());
                Dynamic::from_map(x)
            })
            .collect();
        m.insert("awards".into(), Dynamic::from_array(awards));
    }
    Dynamic::from_map(m)
}

/// A start tile as scripts see it: `#{tile, x, y, rotation}` (`rotation` in quarter turns).
pub(crate) fn start_tile_value(names: &Names, t: &StartTile) -> Dynamic {
    let mut m = Map::new();
    m.insert("tile".into(), names.tile_id(t.kind).into());
    m.insert("x".into(), (t.pos.x as INT).into());
    m.insert("y".into(), (t.pos.y as INT).into());
    m.insert("rotation".into(), (t.rotation.quarters() as INT).into());
    Dynamic::from_map(m)
}

/// A start tile a script returned (its position is checked by the engine as any start
/// tile's is).
pub(crate) fn start_tile_from(names: &Names, item: Dynamic) -> Result<StartTile, String> {
    let m = item
        .try_cast::<Map>()
        .ok_or("a start tile that is not a map")?;
    let id = str_field(&m, "tile")?;
    let kind = names
        .tile(&id)
        .ok_or_else(|| format!("a start tile of unknown tile `{id}`"))?;
    let coord = |k: &str| -> Result<i32, String> {
        let v = int_field(&m, k)?.ok_or_else(|| format!("a start tile without `{k}`"))?;
        value_i32(v)
    };
    let rotation = int_field(&m, "rotation")?.unwrap_or(0);
    if !(0..4).contains(&rotation) {
        return Err(format!(
            "a start tile with rotation {rotation} (0..3 quarter turns)"
        ));
    }
    Ok(StartTile {
        kind,
        pos: Pos::new(coord("x")?, coord("y")?),
        rotation: Rotation::quarter_turns(rotation as u8),
    })
}

/// At most this many characters of a string a script shows ([`visible_from`]).
const SHOWN_CHARS: usize = 200;

/// One thing a script's `describe` shows: `#{type: "title" | "figure" | "place", …}`.
pub(crate) fn visible_from(view: View<'_>, item: Dynamic) -> Result<Visible, String> {
    let m = item
        .try_cast::<Map>()
        .ok_or("a visible that is not a map")?;
    let text = |k: &str| -> Result<String, String> {
        let s = match m.get(k) {
            None => String::new(),
            Some(_) => str_field(&m, k)?,
        };
        Ok(s.chars()
            .map(|c| if c.is_control() { ' ' } else { c })
            .take(SHOWN_CHARS)
            .collect())
    };
    let seg = || -> Result<SegmentId, String> {
        let s = int_field(&m, "segment")?.ok_or("a visible without `segment`")?;
        segment(view.state, s).map_err(|e| e.to_string())
    };
    match str_field(&m, "type")?.as_str() {
        "title" => {
            let holder = match int_field(&m, "holder")? {
                None | Some(-1) => None,
                Some(p) => Some(player(view.state, p).map_err(|e| e.to_string())?),
            };
            Ok(Visible::Title {
                group: text("group")?,
                name: text("name")?,
                icon: text("icon")?,
                holder,
                detail: text("detail")?,
            })
        }
        "figure" => Ok(Visible::NeutralFigure {
            name: text("name")?,
            icon: text("icon")?,
            segment: seg()?,
            // `stands: "tile"` draws it in its tile's corner; default: on its segment.
            stands: match m.get("stands").map(|v| v.to_string()).as_deref() {
                None | Some("segment") => carcassonne_core::Stands::OnSegment,
                Some("tile") => carcassonne_core::Stands::OnTile,
                Some(other) => {
                    return Err(format!(
                        "`stands` is \"segment\" or \"tile\", not `{other}`"
                    ))
                }
            },
        }),
        "place" => Ok(Visible::Place {
            group: text("group")?,
            name: text("name")?,
            segment: seg()?,
        }),
        "foreign" => Ok(Visible::ForeignName {
            scheme: text("scheme")?,
            segment: seg()?,
            tile: text("tile")?,
            feature: text("feature")?,
            location: text("location")?,
        }),
        other => Err(format!(
            "a visible of type `{other}` (expected \"title\", \"figure\", \"place\" or \"foreign\")"
        )),
    }
}
