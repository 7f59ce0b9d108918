//! Rendering (issue 6): every tile of every set renders, figures are drawn on the feature
//! they occupy (checked on the SVG's structure: segment polygons and centre lines against
//! each figure's position), the output is deterministic, PNGs are valid and of the SVG's
//! size, and the `render` / `tiles --render` commands work on records and JCZ saves.

mod common;

use carcassonne_core::{
    binder, Binder, BoundExpansion, Declare, Expansion, FeatureKindDef, FeatureKindId,
    FigureKindDef, FigureLoc, Game, GameSetup, HookResult, KindMask, Rotation, Ruleset, Scoring,
    Shape,
};
use carcassonne_play::bots::make_bot;
use carcassonne_play::record::figure_name;
use carcassonne_raster::{self as png, write_image};
use carcassonne_render::geometry::{self, Area, P};
use carcassonne_render::{render_svg, render_tile_sheet, tile_geometry, RenderOptions};
use carcassonne_rules::{build_ruleset, build_ruleset_with, RulesSpec};
use common::Scratch;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

const OFFICIAL: [&str; 4] = ["count", "king-robber", "river2", "heretics-shrines"];
const ALL: [&str; 7] = [
    "count",
    "king-robber",
    "river2",
    "heretics-shrines",
    "inns-cathedrals",
    "tactician",
    "promotions",
];

fn repo() -> PathBuf {
    // host/cli → the repository root.
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(2)
        .expect("the repository")
        .to_path_buf()
}

/// A ruleset with these expansions, found in the repository (whatever the target dir).
fn rules(expansions: &[&str]) -> Arc<Ruleset> {
    build_ruleset(&RulesSpec {
        expansions: expansions.iter().map(|e| e.to_string()).collect(),
        options: Vec::new(),
        plugin_dirs: vec![repo().join("expansions"), repo().join("fan-expansions")],
    })
    .unwrap_or_else(|e| panic!("{e} (build the workspace first: cargo build --workspace)"))
}

// ---------------------------------------------------------------------------------------
// A fan expansion with kinds the renderer has never heard of.

/// Registers a line kind, a walled kind, a site, a field kind, an off-board kind and a
/// figure kind, with tiles that use them.
struct Oddities;

const ODD_TILES: &str = r#"
schema = 1
set = "oddities"

[[tile]]
id = "OD/lake"
count = 4
edges = "LFLF"
features = [
  { kind = "lake", sides = "NS" },
  { kind = "field", halves = ["NR", "EL", "ER", "SL"] },
  { kind = "field", halves = ["SR", "WL", "WR", "NL"] },
]

[[tile]]
id = "OD/keep"
count = 4
edges = "KFRF"
features = [
  { kind = "keep", sides = "N", pennants = 2 },
  { kind = "tower" },
  { kind = "road", sides = "S" },
  { kind = "field", halves = ["EL", "ER", "SL", "SR", "WL", "WR"], cities = ["N"] },
]

[[tile]]
id = "OD/cross"
count = 2
edges = "KKKK"
features = [
  { kind = "keep", sides = "NS" },
  { kind = "keep", sides = "EW" },
  { kind = "meadow", inner = "I" },
  { kind = "meadow", inner = "II" },
]

[[tile]]
id = "OD/towers"
count = 3
edges = "FRFR"
features = [
  { kind = "tower" },
  { kind = "cloister" },
  { kind = "road", sides = "E" },
  { kind = "road", sides = "W" },
  { kind = "field", halves = ["NL", "NR", "EL", "WR"] },
  { kind = "field", halves = ["ER", "SL", "SR", "WL"] },
]

[[tile]]
id = "OD/empty"
count = 1
edges = "FFFF"
features = []
"#;

impl Expansion for Oddities {
    fn id(&self) -> &str {
        "oddities"
    }

    fn declare(&self, s: &mut Declare<'_>) -> HookResult<Box<dyn Binder>> {
        let kind = |name: &str, shape, scoring| FeatureKindDef::new(name, shape, scoring, true);
        let kinds = [
            kind(
                "lake",
                Shape::Edge {
                    letter: 'L',
                    fields_alongside: true,
                },
                Scoring::Road,
            ),
            kind(
                "keep",
                Shape::Edge {
                    letter: 'K',
                    fields_alongside: false,
                },
                Scoring::City,
            ),
            kind("tower", Shape::Site, Scoring::Cloister),
            kind("meadow", Shape::Field, Scoring::Farm),
        ];
        for k in kinds {
            s.feature_kind(k).map_err(|e| e.to_string())?;
        }
        let portal = s
            .feature_kind(kind("portal", Shape::Virtual, Scoring::Unscored))
            .map_err(|e| e.to_string())?;
        s.figure_kind(FigureKindDef {
            name: "knight".into(),
            per_player: 2,
            strength: 2,
            deploy_on: KindMask::ALL,
            follower: true,
            returns: true,
            look: String::new(),
            neutral: 0,
            shares: false,
            colour: String::new(),
        })
        .map_err(|e| e.to_string())?;
        let tiles = carcassonne_files::tiles::parse_tile_set(ODD_TILES, "oddities")
            .map_err(|e| e.to_string())?;
        s.tiles(tiles);
        Ok(binder(move |_| Ok(OdditiesRules { portal })))
    }
}

/// [`Oddities`] bound to a ruleset: the portal kind it declared.
struct OdditiesRules {
    portal: FeatureKindId,
}

impl BoundExpansion for OdditiesRules {
    fn start_game(&self, ctx: &mut carcassonne_core::Ctx<'_>) -> HookResult {
        for slot in 0..2 {
            ctx.add_virtual_feature(self.portal, slot, false);
        }
        Ok(())
    }
}

fn odd_rules() -> Arc<Ruleset> {
    build_ruleset_with(
        &RulesSpec::default(),
        &[Arc::new(Oddities) as Arc<dyn Expansion>],
    )
    .expect("the oddities build")
}

// ---------------------------------------------------------------------------------------
// Reading the SVG.

/// A `path.seg` element: a segment's area or centre line.
#[derive(Debug)]
struct SegEl {
    cell: Option<String>,
    segment: Option<String>,
    kind: String,
    line: bool,
    width: f64,
    polys: Vec<Vec<P>>,
}

/// A `g.figure` element.
#[derive(Debug)]
struct FigEl {
    name: String,
    owner: String,
    feature: String,
    cell: Option<String>,
    segment: String,
    at: P,
}

/// `M x y L x y … Z` (absolute, the only commands the renderer writes for segments).
fn parse_d(d: &str) -> Vec<Vec<P>> {
    let mut out: Vec<Vec<P>> = Vec::new();
    let mut nums: Vec<f64> = Vec::new();
    let flush = |nums: &mut Vec<f64>, out: &mut Vec<Vec<P>>| {
        if let Some(cur) = out.last_mut() {
            cur.extend(
                nums.chunks(2)
                    .filter(|c| c.len() == 2)
                    .map(|c| (c[0], c[1])),
            );
        }
        nums.clear();
    };
    for tok in d.split_whitespace() {
        let (cmd, rest) = match tok.chars().next() {
            Some(c @ ('M' | 'L' | 'Z')) => (Some(c), &tok[1..]),
            _ => (None, tok),
        };
        if let Some(c) = cmd {
            flush(&mut nums, &mut out);
            if c == 'M' {
                out.push(Vec::new());
            }
        }
        if !rest.is_empty() {
            nums.push(
                rest.parse()
                    .unwrap_or_else(|_| panic!("number `{rest}` in {d}")),
            );
        }
    }
    flush(&mut nums, &mut out);
    out
}

fn parse_svg(svg: &str) -> (Vec<SegEl>, Vec<FigEl>) {
    let doc = roxmltree::Document::parse(svg).expect("the SVG is well-formed XML");
    let mut segs = Vec::new();
    let mut figs = Vec::new();
    for n in doc.descendants() {
        let attr = |a: &str| n.attribute(a).map(str::to_string);
        if n.has_tag_name("path") && n.attribute("class") == Some("seg") {
            segs.push(SegEl {
                cell: attr("data-cell"),
                segment: attr("data-segment"),
                kind: attr("data-kind").expect("data-kind"),
                line: n.attribute("data-shape") == Some("line"),
                width: n
                    .attribute("data-width")
                    .map_or(0.0, |w| w.parse().expect("width")),
                polys: parse_d(n.attribute("d").expect("d")),
            });
        }
        if n.has_tag_name("g") && n.attribute("class") == Some("figure") {
            let num = |a: &str| -> f64 { attr(a).expect(a).parse().expect("number") };
            figs.push(FigEl {
                name: attr("data-figure").expect("data-figure"),
                owner: attr("data-owner").expect("data-owner"),
                feature: attr("data-feature").expect("data-feature"),
                cell: attr("data-cell"),
                segment: attr("data-segment").expect("data-segment"),
                at: (num("data-x"), num("data-y")),
            });
        }
    }
    (segs, figs)
}

fn covers(s: &SegEl, p: P) -> bool {
    if s.line {
        s.polys
            .iter()
            .any(|l| geometry::dist_to_polyline(p, l) <= s.width / 2.0 + 0.15)
    } else {
        s.polys
            .iter()
            .any(|poly| geometry::point_in_polygon(p, poly))
    }
}

/// Checks every figure of `game` in its SVG: one element per figure on the board, with its
/// owner and segment, drawn inside that segment's area (on its line) and — for a figure in
/// a field or on a road — on no city, site or road drawn over it. Returns the figures seen.
fn check_figures(svg: &str, game: &Game) -> usize {
    let rules = game.rules();
    let st = game.state();
    let (segs, figs) = parse_svg(svg);
    let mut by_name: BTreeMap<String, &FigEl> = BTreeMap::new();
    for f in &figs {
        assert!(
            by_name.insert(f.name.clone(), f).is_none(),
            "figure {} drawn twice",
            f.name
        );
    }
    let mut on_board = 0;
    for (i, fig) in st.figures().iter().enumerate() {
        let FigureLoc::On(seg) = fig.loc else {
            continue;
        };
        on_board += 1;
        let name = figure_name(rules, st, carcassonne_core::FigureId(i as u16));
        let el = by_name
            .get(&name)
            .unwrap_or_else(|| panic!("figure {name} is not drawn"));
        assert_eq!(el.owner, fig.owner.0.to_string(), "{name}: owner");
        assert_eq!(el.segment, seg.index().to_string(), "{name}: segment");
        let node = st.graph().segment(seg);
        assert_eq!(el.feature, rules.kind(node.kind).name, "{name}: feature");
        let own: Vec<&SegEl> = segs
            .iter()
            .filter(|s| s.segment.as_deref() == Some(el.segment.as_str()))
            .collect();
        assert_eq!(
            own.len(),
            1,
            "{name}: one element for segment {}",
            el.segment
        );
        assert!(
            covers(own[0], el.at),
            "{name} at {:?} is outside its {} segment {} on {:?}",
            el.at,
            el.feature,
            el.segment,
            el.cell
        );
        if node.is_virtual() {
            assert!(el.cell.is_none(), "{name}: a virtual feature has no cell");
            continue;
        }
        // Nothing drawn over its own feature hides it.
        let me = rules.kind(node.kind).shape;
        for other in segs
            .iter()
            .filter(|s| s.cell == el.cell && s.segment != own[0].segment)
        {
            let shape = rules
                .kind_named(&other.kind)
                .map(|k| rules.kind(k).shape)
                .expect("a known kind");
            let over = match (me, shape) {
                (Shape::Field, Shape::Field) => false,
                (Shape::Field, _) => true,
                (Shape::Edge { .. }, Shape::Site) => true,
                (
                    Shape::Edge {
                        fields_alongside: true,
                        ..
                    },
                    Shape::Edge {
                        fields_alongside: false,
                        ..
                    },
                ) => true,
                _ => false,
            };
            if over && !other.line {
                assert!(
                    !covers(other, el.at),
                    "{name} ({}) at {:?} stands on a {} of the same tile",
                    el.feature,
                    el.at,
                    other.kind
                );
            }
            if over && other.line && me == Shape::Field {
                assert!(
                    other
                        .polys
                        .iter()
                        .all(|l| geometry::dist_to_polyline(el.at, l) > other.width / 2.0),
                    "{name} (field) at {:?} stands on a {}",
                    el.at,
                    other.kind
                );
            }
        }
    }
    assert_eq!(
        figs.len(),
        on_board,
        "one figure element per figure in play"
    );
    on_board
}

/// Plays a game with bots, calling `each` every `every` actions and at the end.
fn play(
    rules: &Arc<Ruleset>,
    players: usize,
    seed: u64,
    every: usize,
    each: &mut dyn FnMut(&Game),
) {
    let names = (0..players).map(|i| format!("P{}", i + 1)).collect();
    let mut game = Game::new(Arc::clone(rules), &GameSetup::new(names, seed)).expect("a game");
    let mut bots: Vec<_> = (0..players)
        .map(|i| {
            make_bot(
                if i % 2 == 0 { "greedy" } else { "random" },
                seed + i as u64,
            )
        })
        .map(|b| b.expect("bot"))
        .collect();
    let mut n = 0;
    while !game.is_over() {
        let who = game.decision().player.index();
        let i = bots[who % players].choose(&game);
        game.apply_offered(i).expect("an offered action");
        n += 1;
        if n % every == 0 {
            each(&game);
        }
    }
    each(&game);
}

// ---------------------------------------------------------------------------------------
// Tests.

#[test]
fn every_tile_of_every_set_renders_at_every_rotation() {
    for rules in [rules(&ALL), odd_rules()] {
        let mut sets: Vec<String> = Vec::new();
        for (_, k) in rules.tiles().iter() {
            if !sets.contains(&k.set) {
                sets.push(k.set.clone());
            }
            for r in Rotation::ALL {
                let g = tile_geometry(&rules, k, r);
                assert_eq!(g.segs.len(), k.segments.len(), "{}", k.id);
                for (i, seg) in k.segments.iter().enumerate() {
                    let def = rules.kind(seg.kind);
                    if def.shape == Shape::Virtual || !def.occupiable || !k.deploy {
                        continue;
                    }
                    let spot = g.figure_spot(i, 0).unwrap_or_else(|| {
                        panic!("{} at {r}: segment {i} ({}) has no spot", k.id, def.name)
                    });
                    assert!(
                        g.contains(i, spot),
                        "{} at {r}: segment {i} ({}) spot {spot:?} outside its area",
                        k.id,
                        def.name
                    );
                    // A figure's spot is on no city or site drawn over its segment.
                    for (j, other) in g.segs.iter().enumerate() {
                        let oshape = rules.kind(k.segments[j].kind).shape;
                        let covers_walls = matches!(
                            oshape,
                            Shape::Site
                                | Shape::Edge {
                                    fields_alongside: false,
                                    ..
                                }
                        );
                        if j != i
                            && covers_walls
                            && def.shape == Shape::Field
                            && matches!(other.area, Area::Polygons(_))
                        {
                            assert!(
                                !g.contains(j, spot),
                                "{} at {r}: field {i} spot {spot:?} is under segment {j}",
                                k.id
                            );
                        }
                    }
                }
                // The fields of a tile never overlap (their triangles partition it).
                let fields: Vec<usize> = (0..k.segments.len())
                    .filter(|&i| {
                        rules.kind(k.segments[i].kind).shape == Shape::Field
                            && !k.segments[i].halves.is_empty()
                    })
                    .collect();
                for a in 0..fields.len() {
                    for b in a + 1..fields.len() {
                        for p in [
                            (0.25, 0.1),
                            (0.75, 0.1),
                            (0.9, 0.25),
                            (0.9, 0.75),
                            (0.75, 0.9),
                            (0.25, 0.9),
                            (0.1, 0.75),
                            (0.1, 0.25),
                        ] {
                            assert!(
                                !(g.contains(fields[a], p) && g.contains(fields[b], p)),
                                "{} at {r}: fields overlap at {p:?}",
                                k.id
                            );
                        }
                    }
                }
            }
        }
        for set in &sets {
            let svg = render_tile_sheet(&rules, set, 96.0).expect("a sheet");
            let doc = roxmltree::Document::parse(&svg).expect("well-formed");
            let drawn: Vec<(String, String)> = doc
                .descendants()
                .filter(|n| n.attribute("class") == Some("tile"))
                .map(|n| {
                    (
                        n.attribute("data-tile").unwrap_or("").to_string(),
                        n.attribute("data-count").unwrap_or("").to_string(),
                    )
                })
                .collect();
            let want: Vec<(String, String)> = rules
                .tiles()
                .iter()
                .filter(|(_, k)| &k.set == set)
                .map(|(_, k)| (k.id.clone(), k.count.to_string()))
                .collect();
            assert_eq!(
                drawn, want,
                "set {set}: every kind once, in file order, with its count"
            );
            for (id, _) in &want {
                assert!(
                    svg.contains(&format!(">{id}  ×")),
                    "set {set}: label of {id}"
                );
            }
            // Every non-virtual segment of every kind is drawn (by its local index).
            let segs = doc
                .descendants()
                .filter(|n| n.attribute("class") == Some("seg"))
                .count();
            let expected: usize = rules
                .tiles()
                .iter()
                .filter(|(_, k)| &k.set == set)
                .map(|(_, k)| k.segments.len())
                .sum();
            assert_eq!(segs, expected, "set {set}: one element per segment");
        }
        let e = render_tile_sheet(&rules, "nope", 96.0).expect_err("unknown set");
        assert!(e.to_string().contains("base"), "{e}");
    }
}

#[test]
fn figures_are_drawn_on_the_feature_they_occupy() {
    let rules = rules(&OFFICIAL);
    let mut figures = 0;
    let mut quarters = 0;
    for (players, seed) in [(2, 1), (3, 2), (5, 3)] {
        play(&rules, players, seed, 15, &mut |game| {
            let svg = render_svg(game, &RenderOptions::default());
            figures += check_figures(&svg, game);
            quarters += svg.matches(r#"data-kind="quarter""#).count();
            // The Count stands in the quarter its slot names.
            assert_eq!(svg.matches(r#"<g class="count""#).count(), 1);
            // The King and the Robber are shown, with their holders.
            assert!(svg.contains(r#"data-title="king""#) && svg.contains(r#"data-title="robber""#));
        });
    }
    assert!(
        figures > 50,
        "the games put figures on the board ({figures})"
    );
    assert!(quarters > 0);
}

#[test]
fn unknown_kinds_of_a_fan_expansion_render() {
    let rules = odd_rules();
    let mut figures = 0;
    let mut last = String::new();
    for seed in 0..4 {
        play(&rules, 3, seed, 20, &mut |game| {
            last = render_svg(game, &RenderOptions::default());
            figures += check_figures(&last, game);
        });
    }
    assert!(figures > 20, "{figures}");
    // The off-board kind gets a panel of its own, the new figure kind a legend entry.
    assert!(last.contains("portal (off the board)"), "portal panel");
    assert!(last.contains(">knight<"), "knight in the legend");
    for kind in ["lake", "keep", "tower", "meadow"] {
        assert!(last.contains(&format!("{kind} (")), "{kind} in the legend");
    }
}

#[test]
fn rendering_is_deterministic_and_png_is_valid() {
    let rules = rules(&OFFICIAL);
    let mut svgs = Vec::new();
    for _ in 0..2 {
        play(&rules, 4, 11, usize::MAX, &mut |game| {
            svgs.push(render_svg(
                game,
                &RenderOptions {
                    caption: Some("test & <check>".into()),
                    ..RenderOptions::default()
                },
            ));
        });
    }
    assert_eq!(svgs[0], svgs[1], "same game, same bytes");
    let svg = &svgs[0];
    assert!(
        svg.contains("test &amp; &lt;check&gt;"),
        "the caption is escaped"
    );
    let doc = roxmltree::Document::parse(svg).expect("well-formed");
    let root = doc.root_element();
    let w: f64 = root.attribute("width").expect("width").parse().expect("w");
    let h: f64 = root
        .attribute("height")
        .expect("height")
        .parse()
        .expect("h");
    // A 4-player game with all four expansions fits a reasonable picture at 80 px a tile.
    assert!(w < 4000.0 && h < 4000.0, "{w}×{h}");

    // Rasterising is slow in debug builds: the PNG checks use a mid-game position with
    // small tiles.
    let mut small = String::new();
    play(&rules, 2, 5, 40, &mut |game| {
        if small.is_empty() {
            small = render_svg(
                game,
                &RenderOptions {
                    tile_size: 32.0,
                    ..RenderOptions::default()
                },
            );
        }
    });
    let svg = &small;
    let doc = roxmltree::Document::parse(svg).expect("well-formed");
    let root = doc.root_element();
    let attr = |a: &str| -> f64 { root.attribute(a).expect(a).parse().expect("a number") };
    let (w, h) = (attr("width"), attr("height"));
    let bytes = png::svg_to_png(svg, 1.0).expect("a PNG");
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n", "PNG signature");
    assert_eq!(&bytes[12..16], b"IHDR");
    let be = |b: &[u8]| u32::from_be_bytes([b[0], b[1], b[2], b[3]]);
    assert_eq!(
        (be(&bytes[16..20]), be(&bytes[20..24])),
        (w.ceil() as u32, h.ceil() as u32),
        "the PNG has the SVG's size"
    );
    // The title is text: it must be in the picture (the fonts are embedded).
    let pix = png::rasterise(svg, 1.0).expect("pixels");
    let dark = (10..300)
        .flat_map(|x| (8..30).map(move |y| (x, y)))
        .filter(|&(x, y)| {
            pix.pixel(x, y)
                .is_some_and(|c| c.red() < 90 && c.green() < 90)
        })
        .count();
    assert!(
        dark > 100,
        "the title's letters are drawn ({dark} dark pixels)"
    );
}

// ---------------------------------------------------------------------------------------
// The commands.

fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_carcassonne"));
    // The repository root, so the expansions are found whatever the target dir.
    c.current_dir(repo());
    c
}

fn run(args: &[&str]) -> (bool, String) {
    let out = bin().args(args).output().expect("runs");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

fn png_size(path: &Path) -> (u32, u32) {
    let b = std::fs::read(path).expect("the PNG");
    assert_eq!(&b[..8], b"\x89PNG\r\n\x1a\n", "{}", path.display());
    let be = |b: &[u8]| u32::from_be_bytes([b[0], b[1], b[2], b[3]]);
    (be(&b[16..20]), be(&b[20..24]))
}

#[test]
fn render_command_draws_records_and_jcz_saves() {
    let dir = Scratch::new("render", "cli");
    let (ok, err) = run(&[
        "simulate",
        "--games",
        "1",
        "--seed",
        "3",
        "--expansions",
        &OFFICIAL.join(","),
        "--record",
        &dir.arg("rec"),
    ]);
    assert!(ok, "{err}");
    let record = dir.arg("rec/game-0.json");
    let (ok, err) = run(&["render", &record, "-o", &dir.arg("end.svg")]);
    assert!(ok, "{err}");
    let (ok, err) = run(&[
        "render",
        &record,
        "--move",
        "30",
        "--tile-size",
        "24",
        "-o",
        &dir.arg("m30.png"),
    ]);
    assert!(ok, "{err}");
    let (ok, err) = run(&[
        "render",
        &record,
        "--move",
        "30",
        "--tile-size",
        "40",
        "-o",
        &dir.arg("m30.svg"),
    ]);
    assert!(ok, "{err}");
    let end = std::fs::read_to_string(dir.path("end.svg")).expect("svg");
    let m30 = std::fs::read_to_string(dir.path("m30.svg")).expect("svg");
    let tiles = |s: &str| s.matches(r#"<g class="tile""#).count();
    assert!(
        tiles(&end) > tiles(&m30),
        "the end has more tiles than move 30"
    );
    assert!(m30.contains("after move 30"));
    let (w, h) = png_size(&dir.path("m30.png"));
    assert!(
        (300..2000).contains(&w) && (300..2000).contains(&h),
        "{w}×{h}"
    );

    // Mistakes: one line, non-zero exit.
    for (args, says) in [
        (
            vec!["render", record.as_str(), "-o", "x.gif"],
            ".svg or .png",
        ),
        (
            vec!["render", "missing.json", "-o", &dir.arg("x.svg")],
            "missing.json",
        ),
    ] {
        let (ok, err) = run(&args);
        assert!(!ok, "{args:?} should fail");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.starts_with("error: ") && err.contains(says), "{err}");
    }

    // The JCloisterZone samples (shared/ beside the repository).
    let samples = repo().join("../shared/formats/jcz-samples");
    let Ok(list) = std::fs::read_dir(&samples) else {
        eprintln!("skipped the JCZ samples: {} not found", samples.display());
        return;
    };
    let mut saves: Vec<PathBuf> = list
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "jcz"))
        .collect();
    saves.sort();
    assert!(!saves.is_empty());
    for save in saves {
        let out = dir.path("save.png");
        let (ok, err) = run(&[
            "render",
            &save.display().to_string(),
            "--tile-size",
            "32",
            "-o",
            &out.display().to_string(),
        ]);
        assert!(ok, "{}: {err}", save.display());
        png_size(&out);
        // The same position as SVG shows the save's players.
        let svg = dir.path("save.svg");
        let (ok, err) = run(&[
            "render",
            &save.display().to_string(),
            "-o",
            &svg.display().to_string(),
        ]);
        assert!(ok, "{}: {err}", save.display());
        let text = std::fs::read_to_string(&svg).expect("svg");
        assert!(text.contains(r#"class="player""#), "{}", save.display());
    }
}

/// Inns & Cathedrals: segment tags `inn` and `cathedral` are drawn as symbols (on the
/// contact sheet: one per tagged segment, 6 inns and 1 cathedral kind, and in the legend), and
/// a big follower in a game has its own figure kind.
#[test]
fn inns_cathedrals_symbols_and_the_big_follower_are_drawn() {
    let rules = rules(&["inns-cathedrals"]);
    let svg = render_tile_sheet(&rules, "inns-cathedrals", 96.0).expect("a sheet");
    let doc = roxmltree::Document::parse(&svg).expect("well-formed");
    let tagged = |tag: &str| {
        doc.descendants()
            .filter(|n| n.attribute("data-tag") == Some(tag))
            .count()
    };
    // One per tagged segment on the sheet, plus the legend row.
    assert_eq!(tagged("inn"), 6 + 1, "inns");
    assert_eq!(tagged("cathedral"), 1 + 1, "cathedrals");
    let dir = Scratch::new("render", "inns");
    let out = dir.arg("cathedral.svg");
    let save = repo().join("tests/jcz/inns-cathedral-big-follower.jcz");
    let (ok, err) = run(&[
        "render",
        &save.display().to_string(),
        "--move",
        "3",
        "-o",
        &out,
    ]);
    assert!(ok, "{err}");
    let text = std::fs::read_to_string(&out).expect("svg");
    assert!(text.contains(r#"data-tag="cathedral""#), "cathedral symbol");
    let doc = roxmltree::Document::parse(&text).expect("well-formed");
    assert!(
        doc.descendants()
            .any(|n| n.attribute("class") == Some("figure")
                && n.attribute("data-kind") == Some("big-follower")),
        "Alice's big follower on the cathedral"
    );
}

#[test]
fn tiles_command_draws_a_contact_sheet_of_any_set() {
    let dir = Scratch::new("render", "sheet");
    let out = dir.arg("king-robber.png");
    let (ok, err) = run(&["tiles", "--set", "king-robber", "--render", &out]);
    assert!(ok, "{err}");
    let (w, h) = png_size(Path::new(&out));
    assert!(w > 300 && h > 150, "{w}×{h}");
    for set in ["base", "river2", "count"] {
        let out = dir.arg(&format!("{set}.svg"));
        let (ok, err) = run(&["tiles", "--set", set, "--render", &out]);
        assert!(ok, "{set}: {err}");
        let text = std::fs::read_to_string(&out).expect("svg");
        assert!(text.contains(&format!(r#"data-set="{set}""#)), "{set}");
    }
    let svg = dir.arg("hs.svg");
    let (ok, err) = run(&["tiles", "--set", "heretics-shrines", "--render", &svg]);
    assert!(ok, "{err}");
    let text = std::fs::read_to_string(&svg).expect("svg");
    assert!(text.contains(r#"data-tile="CU/SCFR""#));
    let (ok, err) = run(&["tiles", "--set", "river2", "--json"]);
    assert!(ok, "{err}");
    let (ok, err) = run(&["tiles", "--set", "nope", "--render", &dir.arg("x.png")]);
    assert!(!ok && err.contains("nope"), "{err}");
}

/// A fan expansion (a script) with a tile file of its own: its sheet and its games render.
#[test]
fn a_fan_expansions_tiles_render_from_the_command_line() {
    let dir = Scratch::new("render", "fan");
    let exp = dir.path("fanx");
    std::fs::create_dir_all(&exp).expect("dir");
    let write = |name: &str, text: &str| std::fs::write(exp.join(name), text).expect("write");
    write(
        "expansion.toml",
        r#"[expansion]
id = "fanx"
name = "Fan X"
version = "0.1.0"
api = "1.0"
kind = "script"
entry = "fanx.rhai"
description = "tiles only"

[assets]
tiles = ["tiles.toml"]
"#,
    );
    write("fanx.rhai", "fn setup() {}\n");
    write(
        "tiles.toml",
        r#"schema = 1
set = "fanx"

[[tile]]
id = "FX/CLR+"
count = 6
edges = "CFRF"
features = [
  { kind = "city", sides = "N", pennants = 1 },
  { kind = "cloister" },
  { kind = "road", sides = "S" },
  { kind = "field", halves = ["EL", "ER", "SL", "SR", "WL", "WR"], cities = ["N"] },
]

[[tile]]
id = "FX/CCCC.4"
count = 3
edges = "CCCC"
features = [
  { kind = "city", sides = "N" },
  { kind = "city", sides = "E" },
  { kind = "city", sides = "S" },
  { kind = "city", sides = "W" },
  { kind = "field", inner = "I", cities = ["N", "E", "S", "W"] },
]
"#,
    );
    let root = dir.dir().display().to_string();
    let sheet = dir.arg("fanx.svg");
    let (ok, err) = run(&[
        "tiles",
        "--set",
        "fanx",
        "--expansion-dir",
        &root,
        "--render",
        &sheet,
    ]);
    assert!(ok, "{err}");
    let text = std::fs::read_to_string(&sheet).expect("svg");
    assert!(text.contains(r#"data-tile="FX/CLR+""#) && text.contains(r#"data-tile="FX/CCCC.4""#));
    let (ok, err) = run(&[
        "simulate",
        "--expansion-dir",
        &root,
        "--expansions",
        "fanx",
        "--seed",
        "2",
        "--record",
        &dir.arg("rec"),
    ]);
    assert!(ok, "{err}");
    let board = dir.arg("board.svg");
    let (ok, err) = run(&[
        "render",
        &dir.arg("rec/game-0.json"),
        "--expansion-dir",
        &root,
        "-o",
        &board,
    ]);
    assert!(ok, "{err}");
    let text = std::fs::read_to_string(&board).expect("svg");
    assert!(text.contains(r#"data-tile="FX/"#), "fan tiles on the board");
}

#[test]
fn write_image_refuses_other_formats() {
    let e = write_image(Path::new("out.bmp"), "<svg/>").expect_err("bmp");
    assert!(e.to_string().contains(".svg or .png"), "{e}");
}

/// Traders & Builders: goods symbols on their city segments (from the tiles' tags), a legend
/// row per symbol, builders and pigs drawn on their features like any figure, and every
/// player's goods in the score panel (player state slots).
#[test]
fn traders_and_builders_goods_builders_and_pigs() {
    let rules = rules(&["traders-builders"]);
    let mut symbols = 0;
    let mut specials = 0;
    let mut last = String::new();
    for seed in 0..3 {
        play(&rules, 3, seed, 10, &mut |game| {
            let svg = render_svg(game, &RenderOptions::default());
            check_figures(&svg, game);
            symbols += svg.matches(r#"class="symbol""#).count();
            specials += svg.matches(r#"data-kind="builder""#).count()
                + svg.matches(r#"data-kind="pig""#).count();
            last = svg;
        });
    }
    assert!(symbols > 0, "goods symbols are drawn");
    assert!(specials > 0, "builders or pigs are drawn ({specials})");
    for good in ["wine", "grain", "cloth"] {
        assert!(
            last.contains(&format!("{good} (goods symbol)")),
            "{good} legend"
        );
        // The panel names the slot by its own name and count (`wine 3`), not its key.
        assert!(
            (0..=40).any(|n| last.contains(&format!("{good} {n}"))),
            "{good} panel"
        );
    }
}

/// Abbey & Mayor (issue 18): the abbey is drawn as a walled tile, the mayor, the wagon and
/// the barn each with their own outline, and the barn on the corner where its four tiles
/// meet (AM-19: the plugin keeps the corner in its figure slot `barn-corner`), standing, not
/// lying like a farmer; the legend names the abbey and the three figures.
#[test]
fn abbey_mayor_abbey_mayor_wagon_and_barn_are_drawn() {
    let dir = Scratch::new("render", "abbey-mayor");
    let out = dir.arg("am.svg");
    let save = repo().join("tests/jcz/abbey-mayor-all-pieces.jcz");
    let (ok, err) = run(&["render", &save.display().to_string(), "-o", &out]);
    assert!(ok, "{err}");
    let text = std::fs::read_to_string(&out).expect("svg");
    let doc = roxmltree::Document::parse(&text).expect("well-formed");
    // The abbey at [0,-1]: its tile group holds the wall.
    let abbey = doc
        .descendants()
        .find(|n| n.attribute("class") == Some("tile") && n.attribute("data-cell") == Some("0,-1"))
        .expect("the abbey's tile");
    assert_eq!(abbey.attribute("data-tile"), Some("AM/A"));
    assert_eq!(
        abbey
            .descendants()
            .filter(|n| n.attribute("class") == Some("barrier-wall"))
            .count(),
        1,
        "one wall round the abbey"
    );
    assert_eq!(
        doc.descendants()
            .filter(|n| n.attribute("class") == Some("barrier-wall"))
            .count(),
        1,
        "no other tile is walled"
    );
    let figure = |kind: &str| {
        let v: Vec<_> = doc
            .descendants()
            .filter(|n| {
                n.attribute("class") == Some("figure") && n.attribute("data-kind") == Some(kind)
            })
            .collect();
        assert_eq!(v.len(), 1, "one {kind}");
        v[0]
    };
    let num = |n: roxmltree::Node, a: &str| -> f64 { n.attribute(a).expect(a).parse().expect(a) };
    let (mayor, wagon, barn) = (figure("mayor"), figure("wagon"), figure("barn"));
    assert_eq!(mayor.attribute("data-cell"), Some("3,0"));
    assert_eq!(mayor.attribute("data-feature"), Some("city"));
    assert_eq!(wagon.attribute("data-cell"), Some("0,-1"));
    assert_eq!(wagon.attribute("data-feature"), Some("cloister"));
    // Each kind has its own outline.
    let outline = |n: roxmltree::Node| {
        n.descendants()
            .find(|c| c.has_tag_name("path"))
            .and_then(|c| c.attribute("d"))
            .map(|d| {
                d.split_whitespace()
                    .filter(|w| w.starts_with(['M', 'L', 'C']))
                    .count()
            })
            .expect("an outline")
    };
    let counts = [outline(mayor), outline(wagon), outline(barn)];
    assert!(
        counts[0] != counts[1] && counts[1] != counts[2] && counts[0] != counts[2],
        "{counts:?}"
    );
    // The barn: on the field of [2,-2] at its SW corner, i.e. the NW corner of [2,-1]; the
    // figure stands exactly on that point of the board.
    assert_eq!(barn.attribute("data-corner"), Some("SW"));
    let cell = doc
        .descendants()
        .find(|n| n.attribute("class") == Some("tile") && n.attribute("data-cell") == Some("2,-1"))
        .expect("tile [2,-1]");
    let ground = cell
        .descendants()
        .find(|n| n.has_tag_name("rect"))
        .expect("the tile's ground");
    // Each tile and its figures are drawn in the tile's coordinates, in a group translated
    // to its cell: compare the two points on the board.
    let shift = |n: roxmltree::Node| -> (f64, f64) {
        let g = n
            .ancestors()
            .find(|a| a.attribute("transform").is_some())
            .expect("a group translated to its cell");
        let t = g.attribute("transform").expect("transform");
        let inner = t
            .strip_prefix("translate(")
            .and_then(|r| r.strip_suffix(')'))
            .expect("translate(x,y)");
        let (x, y) = inner.split_once(',').expect("x,y");
        (x.parse().expect("x"), y.parse().expect("y"))
    };
    let (bx, by) = shift(barn);
    let (gx, gy) = shift(ground);
    assert_eq!(num(barn, "data-x") + bx, num(ground, "x") + gx);
    assert_eq!(num(barn, "data-y") + by, num(ground, "y") + gy);
    // Its corner slot is shown by position, not as a state marker.
    assert!(
        barn.attribute("data-state").is_none(),
        "the corner is shown by position"
    );
    // Legend rows.
    let legend = doc
        .descendants()
        .find(|n| n.attribute("id") == Some("legend"))
        .expect("legend");
    let labels: Vec<&str> = legend
        .descendants()
        .filter(|n| n.is_text())
        .filter_map(|n| n.text())
        .collect();
    for want in ["abbey (closes every edge)", "mayor", "wagon", "barn"] {
        assert!(labels.contains(&want), "legend lacks `{want}`: {labels:?}");
    }
    assert!(
        !labels.contains(&"no feature (City of Carcassonne)"),
        "the abbey is not the City of Carcassonne"
    );
}

/// The Black Tower (BW-4, BW-6; `tower.blackTower`): a tower whose top piece is black gets
/// a dark height badge, one topped by a white piece a thick grey ring, a normal one the
/// plain badge (the Tower's `describe` groups, `Black tower heights` / `White tower
/// heights` / `Tower heights`).
#[test]
fn black_and_white_tower_tops_are_badged_distinctly() {
    let rules = build_ruleset(&RulesSpec {
        expansions: vec!["tower".into()],
        options: vec![("tower.blackTower".into(), "true".into())],
        plugin_dirs: vec![repo().join("expansions")],
    })
    .unwrap_or_else(|e| panic!("{e} (build the tower plugin first)"));
    let (mut black, mut white, mut normal) = (0, 0, 0);
    for seed in 0..2 {
        play(&rules, 3, seed, 1000, &mut |game| {
            let svg = render_svg(game, &RenderOptions::default());
            black += svg.matches(r##"data-group="Black tower heights""##).count();
            white += svg.matches(r##"data-group="White tower heights""##).count();
            normal += svg.matches(r##"data-group="Tower heights""##).count();
            for line in svg.lines().filter(|l| l.contains(r#"class="place""#)) {
                let dark = line.contains(r##"fill="#222222ee""##);
                let ring = line.contains(r##"stroke="#999999" stroke-width="2.4""##);
                assert_eq!(dark, line.contains("Black tower heights"), "{line}");
                assert_eq!(ring, line.contains("White tower heights"), "{line}");
            }
        });
    }
    assert!(
        black > 0 && white > 0 && normal > 0,
        "black {black}, white {white}, normal {normal}"
    );
}
