//! Expansion manifests: parsing with positioned errors, and deterministic resolution.

use carcassonne_files::manifest::{parse_manifest, resolve, Kind, Manifest, ManifestError};
use std::path::Path;

fn manifest(id: &str, extra: &str) -> String {
    format!(
        "[expansion]\nid = \"{id}\"\nname = \"{id}\"\nversion = \"1.2.0\"\napi = \"1.0\"\nkind = \"native\"\nlibrary = \"carcassonne_{}\"\n{extra}",
        id.replace('-', "_")
    )
}

fn parse(id: &str, extra: &str) -> Result<Manifest, ManifestError> {
    parse_manifest(
        &manifest(id, extra),
        Path::new(&format!("expansions/{id}/expansion.toml")),
    )
}

fn ok(id: &str, extra: &str) -> Manifest {
    parse(id, extra).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn a_full_manifest_parses() {
    let m = ok(
        "king-robber",
        r#"
[dependencies]
requires = [{ id = "base", version = ">=0.1" }]
[assets]
tiles = ["tiles.toml"]
[options.kingRobberAward]
type = "choice"
values = ["per-feature", "10/20", "15/40", "continuously"]
default = "per-feature"
description = "KR-7 award mode"
[options.bonus]
type = "int"
default = 3
range = [0, 10]
"#,
    );
    assert_eq!(
        (m.id.as_str(), m.kind, m.version.to_string().as_str()),
        ("king-robber", Kind::Native, "1.2.0")
    );
    assert_eq!(
        m.tiles,
        vec![Path::new("expansions/king-robber/tiles.toml").to_path_buf()]
    );
    assert_eq!(m.options.len(), 2);
    assert_eq!(m.options[1].key, "kingRobberAward");
}

#[test]
fn bad_fields_are_reported_with_file_line_and_field() {
    let cases = [
        (manifest("Bad_Id", ""), "expansion.id", 2),
        (
            manifest("x", "").replace("1.2.0", "one"),
            "expansion.version",
            4,
        ),
        (
            manifest("x", "").replace("api = \"1.0\"", "api = \"2.0\""),
            "expansion.api",
            5,
        ),
        (
            manifest("x", "[options.o]\ntype = \"bool\"\ndefault = 3\n"),
            "options.o",
            8,
        ),
        (
            manifest(
                "x",
                "[options.o]\ntype = \"int\"\ndefault = 30\nrange = [0, 10]\n",
            ),
            "options.o",
            8,
        ),
    ];
    for (text, field, line) in cases {
        match parse_manifest(&text, Path::new("m.toml")) {
            Err(ManifestError::Field {
                path,
                line: l,
                field: f,
                ..
            }) => {
                assert_eq!(
                    (path.as_str(), f.as_str(), l),
                    ("m.toml", field, line),
                    "{text}"
                );
            }
            other => panic!("{field}: {other:?}"),
        }
    }
}

#[test]
fn syntax_errors_and_unknown_fields_name_the_position() {
    let err = parse("x", "colour = \"red\"\n").unwrap_err();
    let text = err.to_string();
    assert!(
        text.contains("expansions/x/expansion.toml")
            && text.contains("colour")
            && text.contains("line 8"),
        "{text}"
    );
    let err = parse_manifest("[expansion\n", Path::new("m.toml")).unwrap_err();
    assert!(matches!(err, ManifestError::Syntax { .. }), "{err}");
    let err = parse_manifest(
        &manifest("x", "").replace("library = \"carcassonne_x\"\n", ""),
        Path::new("m.toml"),
    )
    .unwrap_err();
    assert!(err.to_string().contains("needs `library`"), "{err}");
}

#[test]
fn resolution_is_deterministic_and_follows_dependencies_and_soft_order() {
    let all = vec![
        ok("river2", "[load]\nbefore = [\"count\"]\n"),
        ok("count", ""),
        ok(
            "tactician",
            "[dependencies]\noptional = [{ id = \"count\" }]\n",
        ),
        ok(
            "promotions",
            "[dependencies]\nrequires = [{ id = \"king-robber\", version = \"^1\" }]\n",
        ),
        ok("king-robber", ""),
    ];
    let ids = |r: Vec<&Manifest>| r.into_iter().map(|m| m.id.clone()).collect::<Vec<_>>();
    let want = vec!["king-robber", "promotions", "river2", "count", "tactician"];
    let a = ids(resolve(
        &[
            "tactician".into(),
            "promotions".into(),
            "count".into(),
            "river2".into(),
        ],
        &all,
    )
    .unwrap());
    let mut reversed = all.clone();
    reversed.reverse();
    let b = ids(resolve(
        &[
            "river2".into(),
            "count".into(),
            "promotions".into(),
            "tactician".into(),
        ],
        &reversed,
    )
    .unwrap());
    assert_eq!(a, want);
    assert_eq!(b, want, "order of request and discovery does not matter");
}

#[test]
fn resolution_errors_name_the_expansions() {
    let all = vec![
        ok(
            "a",
            "[dependencies]\nrequires = [{ id = \"b\", version = \">=2\" }]\n",
        ),
        ok("b", ""),
        ok("c", "[dependencies]\nrequires = [{ id = \"zzz\" }]\n"),
        ok("d", "[dependencies]\nconflicts = [{ id = \"b\" }]\n"),
        ok("e", "[load]\nafter = [\"f\"]\n"),
        ok("f", "[load]\nafter = [\"e\"]\n"),
    ];
    let e = resolve(&["a".into()], &all).unwrap_err();
    assert_eq!(
        e.to_string(),
        "expansions/a/expansion.toml:9: `dependencies`: `a` requires `b` >=2, but version 1.2.0 is available"
    );
    let e = resolve(&["c".into()], &all).unwrap_err();
    assert_eq!(
        e.to_string(),
        "expansions/c/expansion.toml:9: `dependencies.requires`: expansion `zzz` is not available (required by `c`)"
    );
    let e = resolve(&["d".into(), "b".into()], &all).unwrap_err();
    assert_eq!(
        e.to_string(),
        "expansions/d/expansion.toml:9: `dependencies.conflicts`: `d` conflicts with `b`"
    );
    let e = resolve(&["e".into(), "f".into()], &all).unwrap_err();
    assert_eq!(
        e.to_string(),
        "load order cycle among: e, f (expansions/e/expansion.toml:9: `load.after` → f; \
         expansions/f/expansion.toml:9: `load.after` → e)"
    );
    let e = resolve(&["nope".into()], &all).unwrap_err();
    assert_eq!(e.to_string(), "expansion `nope` is not available");
    let dup = vec![
        ok("b", ""),
        parse_manifest(&manifest("b", ""), Path::new("other/expansion.toml")).unwrap(),
    ];
    assert!(matches!(
        resolve(&["b".into()], &dup),
        Err(ManifestError::Duplicate { .. })
    ));
}

/// Option keys (`[options.<key>]`) are an ASCII letter, then ASCII letters, digits, `-` or
/// `_`: camelCase or kebab-case identifiers, which players write after the expansion id
/// (`--option id.key=value`) and scripts pass to `option(key)`.
#[test]
fn option_keys_must_be_identifiers() {
    let option = |key: &str| format!("[options.{key}]\ntype = \"bool\"\ndefault = true\n");
    for key in ["perPlayer", "count-move", "stake_2", "X", "a-B_9"] {
        let m = ok("x", &option(key));
        assert_eq!(m.options[0].key, key);
    }
    for (key, name) in [
        ("\"points per tile\"", "points per tile"),
        ("\"2nd\"", "2nd"),
        ("\"per.player\"", "per.player"),
        ("\"\"", ""),
        ("\"-x\"", "-x"),
        ("_x", "_x"),
        ("\"pèlerin\"", "pèlerin"),
        ("\"a=b\"", "a=b"),
    ] {
        // A valid option first (line 8), then the bad one (line 11): the bad one is named.
        let text = manifest("x", &format!("{}{}", option("good"), option(key)));
        match parse_manifest(&text, Path::new("fan/x/expansion.toml")) {
            Err(e @ ManifestError::Field { .. }) => {
                let ManifestError::Field {
                    path,
                    line,
                    field,
                    message,
                } = &e
                else {
                    unreachable!()
                };
                assert_eq!(
                    (path.as_str(), *line, field.as_str()),
                    (
                        "fan/x/expansion.toml",
                        11,
                        format!("options.{name}").as_str()
                    ),
                    "{e}"
                );
                assert!(
                    message.contains(&format!("`{name}` is not a valid option key"))
                        && message.contains("^[A-Za-z][A-Za-z0-9_-]*$"),
                    "{e}"
                );
                assert_eq!(
                    e.to_string(),
                    format!(
                        "fan/x/expansion.toml:11: `options.{name}`: `{name}` is not a valid option \
                         key: it must match ^[A-Za-z][A-Za-z0-9_-]*$ (an ASCII letter, then ASCII \
                         letters, digits, `-` or `_`)"
                    )
                );
            }
            other => panic!("option key {key:?} accepted or wrong error: {other:?}"),
        }
    }
}

/// Every manifest shipped in this repository (official and fan expansions, the guide's
/// example) satisfies the manifest rules, option keys included.
#[test]
fn every_shipped_manifest_parses() {
    // host/files → the repository root.
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(2)
        .expect("host/files has a grandparent");
    let mut seen = 0;
    for top in ["expansions", "fan-expansions", "docs/examples"] {
        let mut dirs: Vec<_> = std::fs::read_dir(repo.join(top))
            .unwrap_or_else(|e| panic!("{top}: {e}"))
            .map(|d| d.expect("directory entry").path())
            .collect();
        dirs.sort();
        for dir in dirs {
            let path = dir.join("expansion.toml");
            let Ok(text) = std::fs::read_to_string(&path) else {
                continue;
            };
            let m = parse_manifest(&text, &path).unwrap_or_else(|e| panic!("{e}"));
            assert!(
                m.options
                    .iter()
                    .all(|o| carcassonne_files::manifest::valid_option_key(&o.key)),
                "{}",
                path.display()
            );
            seen += 1;
        }
    }
    assert!(seen >= 7, "only {seen} manifests found");
}
