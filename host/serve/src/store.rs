//! The files of a game on disk: `games/<id>.json` (its record) and `games/<id>.seats.json`
//! (seats, tokens, who created it), both readable by their owner only (the tokens let anyone
//! play a seat; the record holds the seed, from which the draws follow). Archived games move
//! to `archive/`.

use serde::{Deserialize, Serialize};
use std::io::Write;
use std::path::{Path, PathBuf};

/// A seat as kept on disk.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Seat {
    pub name: String,
    #[serde(default)]
    pub bot: Option<String>,
    #[serde(default)]
    pub token: Option<String>,
    /// The person who held this seat resigned; a bot plays it since.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub resigned: bool,
}

/// `games/<id>.seats.json`: the seats, and what the server needs to know about the game.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SeatsFile {
    pub seats: Vec<Seat>,
    /// Who created the game (see `Creator`); games of older servers have none.
    #[serde(default)]
    pub creator: Option<String>,
    /// The creator chose the seed: the draws are known to them.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub fixed_seed: bool,
}

/// Older servers wrote the bare list of seats.
#[derive(Deserialize)]
#[serde(untagged)]
enum AnySeatsFile {
    Now(SeatsFile),
    Old(Vec<Seat>),
}

/// Reads a seats file; the error names it.
pub fn load_seats(path: &Path) -> Result<SeatsFile, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let any: AnySeatsFile = serde_json::from_str(&text).map_err(|_| {
        // The untagged error says nothing useful; the object form's does.
        let e = serde_json::from_str::<SeatsFile>(&text)
            .err()
            .map_or_else(String::new, |e| e.to_string());
        format!("{}: not a seats file: {e}", path.display())
    })?;
    Ok(match any {
        AnySeatsFile::Now(f) => f,
        AnySeatsFile::Old(seats) => SeatsFile {
            seats,
            creator: None,
            fixed_seed: false,
        },
    })
}

/// Writes `text` to `path` through a temporary file, readable and writable by the owner only.
pub fn write_private(path: &Path, text: &str) -> std::io::Result<()> {
    let tmp = path.with_extension("tmp");
    let mut opts = std::fs::OpenOptions::new();
    opts.write(true).create(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        opts.mode(0o600);
    }
    let mut f = opts.open(&tmp)?;
    // An older server may have left the file with wider rights: narrow them.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        f.set_permissions(std::fs::Permissions::from_mode(0o600))?;
    }
    f.write_all(text.as_bytes())?;
    f.sync_all()?;
    drop(f);
    std::fs::rename(&tmp, path)
}

/// Creates a folder readable by its owner only.
pub fn private_dir(dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))?;
    }
    Ok(())
}

/// The two files of game `id` in `dir`.
pub fn files(dir: &Path, id: &str) -> [PathBuf; 2] {
    [
        dir.join(format!("{id}.json")),
        dir.join(format!("{id}.seats.json")),
    ]
}

/// Moves game `id`'s files from `games` to `archive`.
pub fn archive(games: &Path, archive: &Path, id: &str) -> std::io::Result<()> {
    private_dir(archive)?;
    for (from, to) in files(games, id).iter().zip(files(archive, id)) {
        if from.exists() {
            std::fs::rename(from, to)?;
        }
    }
    Ok(())
}

/// Whether a name shows something: at least one character that is not white space, a
/// control or a character drawn as nothing (zero-width spaces and joiners, direction
/// marks, fillers, variation selectors, tags).
pub fn visible_name(name: &str) -> bool {
    name.chars()
        .any(|c| !c.is_whitespace() && !c.is_control() && !invisible(c))
}

fn invisible(c: char) -> bool {
    matches!(c as u32,
        0x00AD | 0x034F | 0x061C | 0x115F | 0x1160 | 0x17B4 | 0x17B5 | 0x180B..=0x180F
        | 0x200B..=0x200F | 0x202A..=0x202E | 0x2060..=0x206F | 0x2800 | 0x3164
        | 0xFE00..=0xFE0F | 0xFEFF | 0xFFA0 | 0xFFF0..=0xFFF8 | 0x1D173..=0x1D17A
        | 0xE0000..=0xE0FFF)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_must_show_something() {
        assert!(visible_name("Ann"));
        assert!(visible_name(" Zoë "));
        assert!(visible_name("李"));
        for blank in [
            "",
            "   ",
            "\u{200B}",
            "\u{200B}\u{200D}\u{FEFF}",
            "\u{3164}",
            "\u{2800} ",
        ] {
            assert!(!visible_name(blank), "{blank:?}");
        }
    }

    #[test]
    fn files_are_private_and_damage_is_named() {
        let dir = std::env::temp_dir().join(format!("carcassonne-store-{}", std::process::id()));
        private_dir(&dir).unwrap();
        let p = dir.join("x.seats.json");
        write_private(&p, "[{\"name\": \"A\"}]").unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&p).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode, 0o600);
        }
        assert_eq!(load_seats(&p).unwrap().seats[0].name, "A");
        write_private(&p, "garbage").unwrap();
        let e = load_seats(&p).unwrap_err();
        assert!(e.contains("x.seats.json"), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
