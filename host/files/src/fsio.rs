//! Reading the files a user names: only regular files, and only up to a size limit.
//!
//! Every text file the host reads on a user's behalf (manifests, script entries, tile
//! files, game records, JCloisterZone saves) goes through [`read_text`], so that a path to
//! `/dev/zero`, a FIFO or a directory, or a huge file, is a one-line error instead of a
//! read that ends when memory does (issue 13). The limits:
//!
//! | file | limit |
//! |---|---|
//! | manifest (`expansion.toml`) | [`MANIFEST_LIMIT`] = 1 MiB |
//! | tile file, game record, JCZ save | [`DATA_LIMIT`] = 16 MiB |
//! | script entry | set by `carcassonne-script` (`LOAD_LIMITS`) |
//!
//! The type of the file is checked before it is opened (so a FIFO is never opened and
//! cannot block), again on the open handle, and the read stops at `limit + 1` bytes, so a
//! file that grows after the check is still refused.

use std::fmt;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

/// Largest manifest (`expansion.toml`) read: 1 MiB (real ones are a few KiB).
pub const MANIFEST_LIMIT: u64 = 1 << 20;

/// Largest tile file, game record or JCloisterZone save read: 16 MiB (a long recorded game
/// is well under 1 MiB).
pub const DATA_LIMIT: u64 = 16 << 20;

/// A file that could not be read: the file and why, shown as `path: why` on one line.
#[derive(Debug)]
pub struct FileError {
    /// The file.
    pub path: PathBuf,
    /// Why, without the path: the OS error, or one of ours (`InvalidInput` for a file
    /// that is not a regular file, `InvalidData` for one too large or not UTF-8).
    pub source: io::Error,
}

impl fmt::Display for FileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path.display(), self.source)
    }
}

impl std::error::Error for FileError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.source)
    }
}

/// Reads a UTF-8 text file of at most `limit` bytes. Refuses anything that is not a
/// regular file (directories, devices such as `/dev/zero`, FIFOs, sockets), files larger
/// than `limit`, and text that is not UTF-8. The error names the file and says why, e.g.
/// `x.json: is not a regular file (it is a character device)` or
/// `x.json: is 20 MiB, more than the 16 MiB limit`.
pub fn read_text(path: &Path, limit: u64) -> Result<String, FileError> {
    read_bytes(path, limit).and_then(|bytes| {
        String::from_utf8(bytes).map_err(|e| FileError {
            path: path.to_path_buf(),
            source: io::Error::new(
                io::ErrorKind::InvalidData,
                format!(
                    "is not UTF-8 text (invalid byte at offset {})",
                    e.utf8_error().valid_up_to()
                ),
            ),
        })
    })
}

/// [`read_text`] without the UTF-8 check.
pub fn read_bytes(path: &Path, limit: u64) -> Result<Vec<u8>, FileError> {
    let err = |source: io::Error| FileError {
        path: path.to_path_buf(),
        source,
    };
    // Before opening: opening a FIFO would block, opening a device may have side effects.
    let meta = std::fs::metadata(path).map_err(err)?;
    check_meta(&meta, limit).map_err(err)?;
    let file = std::fs::File::open(path).map_err(err)?;
    // Again on the handle: the path may have been replaced in between.
    let meta = file.metadata().map_err(err)?;
    check_meta(&meta, limit).map_err(err)?;
    let mut bytes = Vec::with_capacity(meta.len().min(limit) as usize);
    file.take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(err)?;
    if bytes.len() as u64 > limit {
        return Err(err(too_large(None, limit)));
    }
    Ok(bytes)
}

/// Whether `meta` describes a regular file of at most `limit` bytes.
fn check_meta(meta: &std::fs::Metadata, limit: u64) -> io::Result<()> {
    if !meta.is_file() {
        return Err(not_regular(meta));
    }
    if meta.len() > limit {
        return Err(too_large(Some(meta.len()), limit));
    }
    Ok(())
}

/// `is not a regular file (it is a directory)`.
pub fn not_regular(meta: &std::fs::Metadata) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidInput,
        format!("is not a regular file (it is {})", file_kind(meta)),
    )
}

fn too_large(size: Option<u64>, limit: u64) -> io::Error {
    let message = match size {
        Some(size) => format!(
            "is {}, more than the {} limit",
            human_size(size),
            human_size(limit)
        ),
        None => format!("is more than the {} limit", human_size(limit)),
    };
    io::Error::new(io::ErrorKind::InvalidData, message)
}

/// What kind of file `meta` describes, with its article (`a directory`).
pub fn file_kind(meta: &std::fs::Metadata) -> &'static str {
    let t = meta.file_type();
    if t.is_dir() {
        return "a directory";
    }
    if t.is_file() {
        return "a regular file";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_char_device() {
            return "a character device";
        }
        if t.is_block_device() {
            return "a block device";
        }
        if t.is_fifo() {
            return "a FIFO";
        }
        if t.is_socket() {
            return "a socket";
        }
    }
    "a special file"
}

/// A byte count for messages: `512 bytes`, `1 MiB`, `20.5 MiB`.
pub fn human_size(n: u64) -> String {
    const UNITS: [(u64, &str); 3] = [(1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")];
    for (unit, name) in UNITS {
        if n >= unit {
            return if n % unit == 0 {
                format!("{} {name}", n / unit)
            } else {
                format!("{:.1} {name}", n as f64 / unit as f64)
            };
        }
    }
    if n == 1 {
        "1 byte".into()
    } else {
        format!("{n} bytes")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("fsio-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn reads_a_small_file() {
        let d = scratch("small");
        let f = d.join("a.txt");
        std::fs::write(&f, "hello").unwrap();
        assert_eq!(read_text(&f, 5).unwrap(), "hello");
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn refuses_a_file_over_the_limit() {
        let d = scratch("large");
        let f = d.join("a.txt");
        std::fs::write(&f, vec![b'x'; 3000]).unwrap();
        let e = read_text(&f, 2048).unwrap_err().to_string();
        assert!(
            e.ends_with(": is 2.9 KiB, more than the 2 KiB limit"),
            "{e}"
        );
        assert!(e.starts_with(&f.display().to_string()), "{e}");
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn refuses_a_directory() {
        let d = scratch("dir");
        let e = read_text(&d, DATA_LIMIT).unwrap_err().to_string();
        assert!(
            e.ends_with(": is not a regular file (it is a directory)"),
            "{e}"
        );
        let _ = std::fs::remove_dir_all(&d);
    }

    #[cfg(unix)]
    #[test]
    fn refuses_dev_zero() {
        let e = read_text(Path::new("/dev/zero"), DATA_LIMIT)
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "/dev/zero: is not a regular file (it is a character device)"
        );
    }

    #[test]
    fn refuses_text_that_is_not_utf8() {
        let d = scratch("utf8");
        let f = d.join("a.txt");
        std::fs::write(&f, b"ab\xffcd").unwrap();
        let e = read_text(&f, 100).unwrap_err().to_string();
        assert!(
            e.ends_with(": is not UTF-8 text (invalid byte at offset 2)"),
            "{e}"
        );
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn a_missing_file_is_the_os_error() {
        let e = read_text(Path::new("/nonexistent/x.toml"), 10)
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("/nonexistent/x.toml: "), "{e}");
    }

    #[test]
    fn sizes_read_well() {
        assert_eq!(human_size(1), "1 byte");
        assert_eq!(human_size(512), "512 bytes");
        assert_eq!(human_size(MANIFEST_LIMIT), "1 MiB");
        assert_eq!(human_size(DATA_LIMIT), "16 MiB");
        assert_eq!(human_size(20 * (1 << 20) + (1 << 19)), "20.5 MiB");
    }
}
