//! What the memo keys and records: hook arguments ([`Param`], [`Key`]), recorded values ([`Val`], [`Arg`]), the natively checked uses ([`Fast`]) and a call's [`Trace`].

use super::*;

/// A hook argument, as the memo keys it and the script sees it.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Param<'x> {
    /// An integer.
    Int(i64),
    /// A tile kind (the script gets its id).
    Tile(TileKindId),
    /// An action (the script gets its map).
    Action(Action),
    /// Why a figure left the board (the script gets `"scored"` or `"expansion"`).
    Reason(RemovalReason),
    /// A score draft (the script gets its map).
    Draft(&'x carcassonne_core::ScoreDraft),
    /// A string (not remembered: hooks with one are not memoized).
    Str(&'x str),
    /// A list of actions (the script gets their maps).
    Actions(&'x [Action]),
    /// Placement candidates (the script gets `#{x, y, rotations}` for each legal cell).
    Cells(&'x [carcassonne_core::PlacementCell]),
    /// Start tiles (the script gets `#{tile, x, y, rotation}` for each).
    Start(&'x [carcassonne_core::StartTile]),
}

impl Param<'_> {
    /// Appends the parameter's key; each encoding says its own length.
    pub(crate) fn encode(&self, k: &mut Key) -> Option<()> {
        match *self {
            Param::Int(v) => k.push(v),
            Param::Tile(t) => k.push(t.0 as i64),
            Param::Reason(r) => k.push(matches!(r, RemovalReason::Expansion) as i64),
            Param::Draft(_)
            | Param::Str(_)
            | Param::Actions(_)
            | Param::Cells(_)
            | Param::Start(_) => None,
            Param::Action(a) => {
                let opt = |v: Option<usize>| v.map_or(-1, |v| v as i64);
                match a {
                    Action::Place { pos, rotation } => {
                        k.push(0)?;
                        k.push(pos.x as i64)?;
                        k.push(pos.y as i64)?;
                        k.push(rotation.degrees() as i64)
                    }
                    Action::Deploy { figure, segment } => {
                        k.push(1)?;
                        k.push(figure.0 as i64)?;
                        k.push(segment.index() as i64)
                    }
                    Action::Move { figure, segment } => {
                        k.push(2)?;
                        k.push(figure.0 as i64)?;
                        k.push(segment.index() as i64)
                    }
                    Action::Pass => k.push(3),
                    Action::Custom(c) => {
                        k.push(4)?;
                        k.push(c.expansion.0 as i64)?;
                        k.push(c.verb.0 as i64)?;
                        k.push(opt(c.figure.map(|f| f.0 as usize)))?;
                        k.push(opt(c.segment.map(|s| s.index())))?;
                        k.push(c.value as i64)
                    }
                    Action::Draw { tile } => {
                        k.push(5)?;
                        k.push(tile.0 as i64)
                    }
                }
            }
        }
    }

    /// A field of the map the script gets, when it is known without making the map
    /// (`Some(None)`: the map has no such field).
    pub(crate) fn field(&self, name: &str, names: &crate::api::Names) -> Option<Option<Val>> {
        match (self, name) {
            (Param::Action(Action::Custom(c)), f) => Some(names.custom_field(c, f)),
            (Param::Draft(d), "final") => Some(Some(Val::Bool(d.final_scoring))),
            (Param::Draft(d), "placer") => {
                Some(Some(Val::Int(d.placer.map_or(-1, |p| p.0 as INT))))
            }
            _ => None,
        }
    }

    /// The value the script gets.
    pub(crate) fn value(&self, rules: Option<&Ruleset>, names: &crate::api::Names) -> Dynamic {
        self.value_with(rules, names, None)
    }

    /// The value the script gets, or for a map when `fields` is given only those fields:
    /// what a hook that only reads these fields of it sees the same ([`Shape::only_fields`]).
    pub(crate) fn value_with(
        &self,
        rules: Option<&Ruleset>,
        names: &crate::api::Names,
        fields: Option<&[(u8, ImmutableString)]>,
    ) -> Dynamic {
        match *self {
            Param::Int(v) => (v as INT).into(),
            Param::Tile(t) => names.tile_id(t).into(),
            Param::Reason(r) => names.reason(r).into(),
            Param::Action(a) => match rules {
                Some(rules) => crate::api::action_value(rules, names, &a),
                None => Dynamic::UNIT,
            },
            Param::Str(s) => s.into(),
            Param::Actions(list) => match rules {
                Some(rules) => Dynamic::from_array(
                    list.iter()
                        .map(|a| crate::api::action_value(rules, names, a))
                        .collect(),
                ),
                None => Dynamic::UNIT,
            },
            Param::Cells(cells) => Dynamic::from_array(
                cells
                    .iter()
                    .filter(|c| c.rotations != 0)
                    .map(|c| {
                        let mut m = rhai::Map::new();
                        m.insert("x".into(), (c.pos.x as INT).into());
                        m.insert("y".into(), (c.pos.y as INT).into());
                        m.insert("rotations".into(), (c.rotations as INT).into());
                        Dynamic::from_map(m)
                    })
                    .collect(),
            ),
            Param::Start(tiles) => Dynamic::from_array(
                tiles
                    .iter()
                    .map(|t| crate::api::start_tile_value(names, t))
                    .collect(),
            ),
            Param::Draft(d) => match rules {
                Some(_) => crate::api::draft_value(
                    d,
                    |k| names.kind(k).into(),
                    |f| fields.is_none_or(|fs| fs.iter().any(|(_, n)| n.as_str() == f)),
                ),
                None => Dynamic::UNIT,
            },
        }
    }
}

/// The key of a hook call (see [`Shape::root`]).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub(crate) struct Key {
    len: u8,
    v: [i64; 12],
    /// The fields read of map parameters (`None`: the map has no such field).
    pub(crate) vals: Option<Vec<Option<Val>>>,
}

impl Key {
    pub(crate) fn push(&mut self, x: i64) -> Option<()> {
        *self.v.get_mut(self.len as usize)? = x;
        self.len += 1;
        Some(())
    }
}

/// A value a game function returned or was given, comparable.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Val {
    Unit,
    Bool(bool),
    Int(INT),
    Str(ImmutableString),
    Array(Box<[Val]>),
    Map(Box<[(ImmutableString, Val)]>),
}

impl Val {
    /// The value of a Rhai value of one of the types game functions use.
    pub(crate) fn of(d: &Dynamic) -> Option<Val> {
        if d.is_unit() {
            Some(Val::Unit)
        } else if let Ok(i) = d.as_int() {
            Some(Val::Int(i))
        } else if let Ok(b) = d.as_bool() {
            Some(Val::Bool(b))
        } else if d.is_string() {
            d.read_lock::<ImmutableString>()
                .map(|s| Val::Str(s.clone()))
        } else if d.is_array() {
            let a = d.read_lock::<Array>()?;
            a.iter().map(Val::of).collect::<Option<_>>().map(Val::Array)
        } else if d.is_map() {
            let m = d.read_lock::<Map>()?;
            m.iter()
                .map(|(k, v)| Some((ImmutableString::from(k.as_str()), Val::of(v)?)))
                .collect::<Option<_>>()
                .map(Val::Map)
        } else {
            None
        }
    }

    /// Whether a Rhai value is this value.
    pub(crate) fn matches(&self, d: &Dynamic) -> bool {
        match self {
            Val::Unit => d.is_unit(),
            Val::Bool(b) => d.as_bool() == Ok(*b),
            Val::Int(i) => d.as_int() == Ok(*i),
            Val::Str(s) => d
                .read_lock::<ImmutableString>()
                .is_some_and(|x| x.as_str() == s.as_str()),
            Val::Array(a) => d.read_lock::<Array>().is_some_and(|x| {
                x.len() == a.len() && a.iter().zip(x.iter()).all(|(v, d)| v.matches(d))
            }),
            Val::Map(m) => d.read_lock::<Map>().is_some_and(|x| {
                x.len() == m.len()
                    && m.iter()
                        .zip(x.iter())
                        .all(|((k, v), (k2, d))| k.as_str() == k2.as_str() && v.matches(d))
            }),
        }
    }

    /// A hash of the value, equal to [`hash_of`] of a Rhai value it [`matches`](Val::matches).
    pub(crate) fn hash(&self) -> u64 {
        let mut h = Fx::default();
        self.feed(&mut h);
        h.finish()
    }

    fn feed(&self, h: &mut Fx) {
        match self {
            Val::Unit => h.write_u8(0),
            Val::Bool(b) => h.write_u64(1 + *b as u64),
            Val::Int(i) => {
                h.write_u8(3);
                h.write_i64(*i)
            }
            Val::Str(s) => {
                h.write_u8(4);
                h.write(s.as_bytes())
            }
            Val::Array(a) => {
                h.write_u8(5);
                h.write_usize(a.len());
                a.iter().for_each(|v| v.feed(h));
            }
            Val::Map(m) => {
                h.write_u8(6);
                h.write_usize(m.len());
                for (k, v) in m.iter() {
                    h.write(k.as_bytes());
                    v.feed(h);
                }
            }
        }
    }

    /// Back to a Rhai value.
    pub(crate) fn dynamic(&self) -> Dynamic {
        match self {
            Val::Unit => Dynamic::UNIT,
            Val::Bool(b) => (*b).into(),
            Val::Int(i) => (*i).into(),
            Val::Str(s) => s.clone().into(),
            Val::Array(a) => Dynamic::from_array(a.iter().map(Val::dynamic).collect()),
            Val::Map(m) => Dynamic::from_map(
                m.iter()
                    .map(|(k, v)| (k.as_str().into(), v.dynamic()))
                    .collect(),
            ),
        }
    }
}

/// The hash of a Rhai value, as [`Val::hash`] of its value (`None`: not a value of the
/// memo's types).
pub(crate) fn hash_of(d: &Dynamic) -> Option<u64> {
    fn feed(d: &Dynamic, h: &mut Fx) -> Option<()> {
        if d.is_unit() {
            h.write_u8(0);
        } else if let Ok(i) = d.as_int() {
            h.write_u8(3);
            h.write_i64(i);
        } else if let Ok(b) = d.as_bool() {
            h.write_u64(1 + b as u64);
        } else if d.is_string() {
            h.write_u8(4);
            h.write(d.read_lock::<ImmutableString>()?.as_bytes());
        } else if d.is_array() {
            let a = d.read_lock::<Array>()?;
            h.write_u8(5);
            h.write_usize(a.len());
            for v in a.iter() {
                feed(v, h)?;
            }
        } else if d.is_map() {
            let m = d.read_lock::<Map>()?;
            h.write_u8(6);
            h.write_usize(m.len());
            for (k, v) in m.iter() {
                h.write(k.as_bytes());
                feed(v, h)?;
            }
        } else {
            return None;
        }
        Some(())
    }
    let mut h = Fx::default();
    feed(d, &mut h)?;
    Some(h.finish())
}

/// An argument of a recorded game-function use.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Arg {
    /// This value.
    Lit(Val),
    /// The hook's parameter i.
    Param(u8),
}

/// An integer argument of a [`Fast`] use: a value, or the hook's parameter i.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Ix {
    Lit(i64),
    Param(u8),
}

impl Ix {
    /// Its value in a call with `params` (`None`: the parameter is not a number).
    pub(crate) fn get(self, params: &[Param<'_>]) -> Option<i64> {
        match self {
            Ix::Lit(v) => Some(v),
            Ix::Param(p) => match params.get(p as usize)? {
                Param::Int(v) => Some(*v),
                Param::Tile(t) => Some(t.0 as i64),
                _ => None,
            },
        }
    }
}

/// A game-function use the memo checks without Rhai values (made from a recorded use by
/// `api::prepare`, run by `api::eval`); its result is a code: the integer, 0 or 1 for a
/// bool, the tile kind or -1 for a tile.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Fast {
    /// `state`, `player_state`, `figure_state` of a declared name.
    Slot {
        slot: SlotId,
        scope: SlotScope,
        index: Ix,
    },
    /// `set_state`, `set_player_state`, `set_figure_state` of a declared name to a value.
    Set {
        slot: SlotId,
        scope: SlotScope,
        index: Ix,
        value: Ix,
    },
    /// A function of the rules with given arguments: what it returned when recorded.
    Const,
    /// `tile_has_feature(tile, kind)`: `set` has the tile kinds that have the feature.
    TileHas { tile: Ix, set: [u64; 2] },
    /// `tile_at(x, y)`.
    TileAt { x: Ix, y: Ix },
    /// `players()`.
    Players,
    /// `active_player()`.
    ActivePlayer,
    /// `turn()`.
    Turn,
    /// `score(player)`.
    Score(Ix),
    /// `tiles_left()`.
    TilesLeft,
    /// `in_final_scoring()`.
    InFinalScoring,
    /// A function of a segment (`segment_kind` as the feature kind, `feature_…`).
    Segment(SegmentRead, Ix),
    /// A function of a figure (`figure_owner`, `in_play`, `figure_segment`, `is_follower`).
    Figure(FigureRead, Ix),
}

/// What a [`Fast::Segment`] reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SegmentRead {
    Kind,
    FeatureOf,
    Complete,
    Scored,
    Tiles,
    Pennants,
}

/// What a [`Fast::Figure`] reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FigureRead {
    Owner,
    InPlay,
    Segment,
    IsFollower,
}

/// One use of a traced game function.
#[derive(Debug)]
pub(crate) struct Event {
    pub(crate) native: &'static Native,
    pub(crate) args: Box<[Arg]>,
    pub(crate) result: Val,
}

/// The game functions a recorded call used, in order.
#[derive(Debug, Default)]
pub(crate) struct Trace {
    pub(crate) events: Vec<Event>,
    /// The call did something that cannot be replayed after the events so far.
    pub(crate) spoiled: bool,
}

impl Trace {
    /// Whether uses are still written down.
    pub(crate) fn open(&self) -> bool {
        !self.spoiled
    }

    /// The call cannot be replayed from here on.
    pub(crate) fn spoil(&mut self) {
        self.spoiled = true;
    }

    /// Writes down a use: `native(args) = result`; `param(i)` says which arguments are
    /// the hook's own parameters.
    pub(crate) fn push(
        &mut self,
        native: &'static Native,
        args: Vec<Dynamic>,
        param: impl Fn(usize) -> Option<u8>,
        result: &Dynamic,
    ) {
        if self.spoiled {
            return;
        }
        if self.events.len() >= MAX_EVENTS {
            return self.spoil();
        }
        let Some(result) = Val::of(result) else {
            return self.spoil();
        };
        let mut a = Vec::with_capacity(args.len());
        for (i, d) in args.iter().enumerate() {
            match param(i) {
                Some(p) => a.push(Arg::Param(p)),
                None => match Val::of(d) {
                    Some(v) => a.push(Arg::Lit(v)),
                    None => return self.spoil(),
                },
            }
        }
        self.events.push(Event {
            native,
            args: a.into(),
            result,
        });
    }
}

/// The square of cells a `forbidden_cells` item forbids, and the rule it names.
#[derive(Debug)]
pub(crate) struct Square {
    pub(crate) x: i32,
    pub(crate) y: i32,
    pub(crate) radius: i32,
    pub(crate) reason: Option<String>,
}

impl Square {
    /// Whether a cell is in the square.
    pub(crate) fn holds(&self, x: i32, y: i32) -> bool {
        let near = |a: i32, b: i32| (a as i64 - b as i64).abs() <= self.radius as i64;
        near(x, self.x) && near(y, self.y)
    }
}
