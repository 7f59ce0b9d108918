//! Checking a plugin library file before it is handed to the dynamic loader.
//!
//! `dlopen` maps a library's segments straight from the file. When the file is shorter
//! than its headers say (a truncated copy, an interrupted download), touching a page past
//! the end of the file raises SIGBUS and the whole process dies silently (issue 13: exit
//! status 135 for any truncation between 680 bytes and the end of the loaded segments).
//! So before loading, [`check_library`] refuses:
//!
//! - anything that is not a regular file (a directory named like the library, a device);
//! - on ELF platforms (Linux, Android, the BSDs, illumos/Solaris): a file that is not ELF,
//!   is not a shared object (`ET_DYN`), or whose program header table, any program
//!   header's file range (`p_offset + p_filesz`, which covers every `PT_LOAD` segment),
//!   section header table, or any section's file range lies beyond the file's size. Both
//!   32- and 64-bit files are read, little- and big-endian;
//! - a complete ELF library built for another machine, class or byte order than this
//!   program ("built for AArch64 (64-bit, little-endian), this program is x86-64 …"),
//!   which the loader would only call "No such file or directory";
//! - a symbolic link that leads nowhere or loops, named as such.
//!
//! On other platforms (macOS, Windows) only the regular-file check is made: the structure
//! check is a no-op there. The check cannot see a file changed between the check and the
//! load; plugins are trusted code in folders the user chose, this only guards against
//! damaged copies.

use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

/// Whether this platform's shared libraries are ELF files (the structure check runs).
pub const CHECKS_ELF: bool = cfg!(any(
    target_os = "linux",
    target_os = "android",
    target_os = "freebsd",
    target_os = "netbsd",
    target_os = "openbsd",
    target_os = "dragonfly",
    target_os = "illumos",
    target_os = "solaris"
));

/// Why a library file was not accepted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LibraryFileError {
    /// It could not be examined at all (missing, no permission): the OS message.
    Unreadable(String),
    /// It is not a complete library: why, without the path (`is truncated: …`).
    Refused(String),
}

/// Checks that `path` is a regular file and, on ELF platforms, a complete ELF shared
/// object.
pub fn check_library(path: &Path) -> Result<(), LibraryFileError> {
    let unreadable = |e: std::io::Error| LibraryFileError::Unreadable(e.to_string());
    let meta = std::fs::metadata(path).map_err(|e| {
        // A link that leads nowhere (or round in a loop) is named as such: it stands where
        // the library should be, so it is refused rather than skipped for another copy.
        match std::fs::symlink_metadata(path) {
            Ok(m) if m.file_type().is_symlink() => LibraryFileError::Refused(format!(
                "is a symbolic link that does not lead to a file ({e})"
            )),
            _ => unreadable(e),
        }
    })?;
    if !meta.is_file() {
        return Err(LibraryFileError::Refused(
            carcassonne_files::fsio::not_regular(&meta).to_string(),
        ));
    }
    if !CHECKS_ELF {
        return Ok(());
    }
    let mut file = std::fs::File::open(path).map_err(unreadable)?;
    let size = file.metadata().map_err(unreadable)?.len();
    let target = check_elf(&mut file, size).map_err(LibraryFileError::Refused)?;
    check_target(target).map_err(LibraryFileError::Refused)
}

/// What an ELF file was built for: its class, byte order and machine (`e_machine`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ElfTarget {
    /// 64-bit (`ELFCLASS64`) rather than 32-bit.
    pub is64: bool,
    /// Big-endian.
    pub big: bool,
    /// `e_machine`.
    pub machine: u16,
}

/// Machines by `e_machine`, with the Rust `target_arch` names they stand for.
const MACHINES: &[(u16, &str, &[&str])] = &[
    (3, "i386", &["x86"]),
    (8, "MIPS", &["mips", "mips64"]),
    (20, "PowerPC", &["powerpc"]),
    (21, "PowerPC64", &["powerpc64"]),
    (22, "S/390", &["s390x"]),
    (40, "ARM", &["arm"]),
    (43, "SPARC V9", &["sparc64"]),
    (62, "x86-64", &["x86_64"]),
    (183, "AArch64", &["aarch64"]),
    (243, "RISC-V", &["riscv32", "riscv64"]),
    (258, "LoongArch", &["loongarch64"]),
];

fn machine_name(machine: u16) -> String {
    MACHINES.iter().find(|(m, _, _)| *m == machine).map_or_else(
        || format!("machine {machine}"),
        |(_, n, _)| (*n).to_string(),
    )
}

/// This program's own target, when its architecture is one of [`MACHINES`].
pub fn host_target() -> Option<ElfTarget> {
    let arch = std::env::consts::ARCH;
    let &(machine, _, _) = MACHINES.iter().find(|(_, _, a)| a.contains(&arch))?;
    Some(ElfTarget {
        is64: cfg!(target_pointer_width = "64"),
        big: cfg!(target_endian = "big"),
        machine,
    })
}

fn describe(t: ElfTarget) -> String {
    format!(
        "{} ({}-bit, {})",
        machine_name(t.machine),
        if t.is64 { 64 } else { 32 },
        if t.big { "big-endian" } else { "little-endian" }
    )
}

/// A library built for another machine, class or byte order cannot be loaded: the loader
/// would only say "No such file or directory". Says what it was built for instead.
pub fn check_target(found: ElfTarget) -> Result<(), String> {
    match host_target() {
        Some(host) if host != found => Err(format!(
            "was built for {}, this program is {}",
            describe(found),
            describe(host)
        )),
        _ => Ok(()),
    }
}

/// ELF constants.
const ET_DYN: u16 = 3;
const SHT_NULL: u32 = 0;
const SHT_NOBITS: u32 = 8;
const PN_XNUM: u16 = 0xffff;

/// The layout of one ELF class and byte order.
#[derive(Clone, Copy)]
struct Layout {
    is64: bool,
    big: bool,
}

impl Layout {
    fn u16(self, b: &[u8], at: usize) -> u64 {
        let a = [b[at], b[at + 1]];
        u64::from(if self.big {
            u16::from_be_bytes(a)
        } else {
            u16::from_le_bytes(a)
        })
    }
    fn u32(self, b: &[u8], at: usize) -> u64 {
        let a = [b[at], b[at + 1], b[at + 2], b[at + 3]];
        u64::from(if self.big {
            u32::from_be_bytes(a)
        } else {
            u32::from_le_bytes(a)
        })
    }
    fn u64(self, b: &[u8], at: usize) -> u64 {
        let a: [u8; 8] = b[at..at + 8].try_into().expect("8 bytes");
        if self.big {
            u64::from_be_bytes(a)
        } else {
            u64::from_le_bytes(a)
        }
    }
    /// An address-sized field (`Elf32_Off` / `Elf64_Off`, `…_Xword`).
    fn word(self, b: &[u8], at32: usize, at64: usize) -> u64 {
        if self.is64 {
            self.u64(b, at64)
        } else {
            self.u32(b, at32)
        }
    }
    fn header_size(self) -> u64 {
        if self.is64 {
            64
        } else {
            52
        }
    }
    fn phent_size(self) -> u64 {
        if self.is64 {
            56
        } else {
            32
        }
    }
    fn shent_size(self) -> u64 {
        if self.is64 {
            64
        } else {
            40
        }
    }
}

fn segment_name(p_type: u64) -> String {
    match p_type {
        0 => "NULL".into(),
        1 => "LOAD".into(),
        2 => "DYNAMIC".into(),
        3 => "INTERP".into(),
        4 => "NOTE".into(),
        6 => "PHDR".into(),
        7 => "TLS".into(),
        0x6474_e550 => "GNU_EH_FRAME".into(),
        0x6474_e552 => "GNU_RELRO".into(),
        t => format!("type {t:#x}"),
    }
}

/// `offset + len`, or an error when it overflows or passes `size`.
fn within(offset: u64, len: u64, size: u64, what: impl Fn() -> String) -> Result<(), String> {
    match offset.checked_add(len) {
        Some(end) if end <= size => Ok(()),
        Some(end) => Err(format!(
            "is truncated or damaged: {} ends at byte {end}, beyond the file's {size} bytes",
            what()
        )),
        None => Err(format!(
            "is damaged: {} has an impossible offset {offset} and size {len}",
            what()
        )),
    }
}

/// Reads `len` bytes at `offset` (the range was checked against the file's size).
fn read_at<R: Read + Seek>(r: &mut R, offset: u64, len: u64) -> Result<Vec<u8>, String> {
    let mut buf = vec![0u8; usize::try_from(len).map_err(|_| "is too large".to_string())?];
    r.seek(SeekFrom::Start(offset))
        .and_then(|_| r.read_exact(&mut buf))
        .map_err(|e| format!("cannot be read: {e}"))?;
    Ok(buf)
}

/// Checks an ELF image of `size` bytes read from `r`: the header, then every table and
/// range it points to, against `size`. Returns what the file was built for.
pub fn check_elf<R: Read + Seek>(r: &mut R, size: u64) -> Result<ElfTarget, String> {
    let mut ident = [0u8; 16];
    if size < 16 {
        return Err(format!(
            "is not a shared library: {size} bytes, shorter than an ELF header"
        ));
    }
    r.seek(SeekFrom::Start(0))
        .and_then(|_| r.read_exact(&mut ident))
        .map_err(|e| format!("cannot be read: {e}"))?;
    if ident[..4] != *b"\x7fELF" {
        return Err("is not a shared library (not an ELF file)".into());
    }
    let is64 = match ident[4] {
        1 => false,
        2 => true,
        c => return Err(format!("is damaged: unknown ELF class {c}")),
    };
    let big = match ident[5] {
        1 => false,
        2 => true,
        d => return Err(format!("is damaged: unknown ELF data encoding {d}")),
    };
    let l = Layout { is64, big };
    if size < l.header_size() {
        return Err(format!(
            "is truncated: {size} bytes, shorter than its {}-byte ELF header",
            l.header_size()
        ));
    }
    let h = read_at(r, 0, l.header_size())?;
    let e_type = l.u16(&h, 16);
    if e_type as u16 != ET_DYN {
        return Err(format!(
            "is an ELF file but not a shared library (type {e_type})"
        ));
    }
    let phoff = l.word(&h, 28, 32);
    let shoff = l.word(&h, 32, 40);
    let (phentsize, mut phnum, shentsize, mut shnum) = if is64 {
        (l.u16(&h, 54), l.u16(&h, 56), l.u16(&h, 58), l.u16(&h, 60))
    } else {
        (l.u16(&h, 42), l.u16(&h, 44), l.u16(&h, 46), l.u16(&h, 48))
    };
    // With more than 0xff00 sections or 0xfffe program headers, the counts are in section
    // header 0 (`sh_size`, `sh_info`).
    let first_section = |r: &mut R| -> Result<Vec<u8>, String> {
        if shentsize < l.shent_size() {
            return Err(format!(
                "is damaged: section header size {shentsize}, less than {}",
                l.shent_size()
            ));
        }
        within(shoff, shentsize, size, || "the section header table".into())?;
        read_at(r, shoff, l.shent_size())
    };
    if phnum == u64::from(PN_XNUM) {
        if shoff == 0 {
            return Err("is damaged: extended program header count without sections".into());
        }
        phnum = l.u32(&first_section(r)?, if is64 { 44 } else { 28 });
    }
    // Program headers first: their ranges are what the loader maps.
    if phnum > 0 {
        if phentsize < l.phent_size() {
            return Err(format!(
                "is damaged: program header size {phentsize}, less than {}",
                l.phent_size()
            ));
        }
        let table = phentsize
            .checked_mul(phnum)
            .ok_or("is damaged: impossible program header count")?;
        within(phoff, table, size, || {
            format!("the program header table ({phnum} entries)")
        })?;
        let t = read_at(r, phoff, table)?;
        for i in 0..phnum {
            let at = (i * phentsize) as usize;
            let p = &t[at..at + l.phent_size() as usize];
            let p_type = l.u32(p, 0);
            let offset = l.word(p, 4, 8);
            let filesz = l.word(p, 16, 32);
            within(offset, filesz, size, || {
                format!("segment {i} ({})", segment_name(p_type))
            })?;
        }
    }
    // Then the section header table and every section with bytes in the file.
    if shoff != 0 {
        let first = first_section(r)?;
        if shnum == 0 {
            shnum = l.word(&first, 20, 32);
        }
        let table = shentsize
            .checked_mul(shnum)
            .ok_or("is damaged: impossible section count")?;
        within(shoff, table, size, || {
            format!("the section header table ({shnum} entries)")
        })?;
    }
    if shoff != 0 && shnum > 0 {
        let t = read_at(r, shoff, shentsize * shnum)?;
        for i in 0..shnum {
            let at = (i * shentsize) as usize;
            let s = &t[at..at + l.shent_size() as usize];
            let sh_type = l.u32(s, 4);
            if sh_type == u64::from(SHT_NULL) || sh_type == u64::from(SHT_NOBITS) {
                continue;
            }
            let offset = l.word(s, 16, 24);
            let len = l.word(s, 20, 32);
            within(offset, len, size, || format!("section {i}"))?;
        }
    }
    Ok(ElfTarget {
        is64,
        big,
        machine: l.u16(&h, 18) as u16,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;

    /// A minimal ELF shared object: header, program headers, `data` bytes, section headers
    /// (a null section and one `PROGBITS` over the data).
    fn image(is64: bool, big: bool, data: usize) -> Vec<u8> {
        let l = Layout { is64, big };
        let (eh, ph, sh) = (l.header_size(), l.phent_size(), l.shent_size());
        let phnum = 2u64;
        let phoff = eh;
        let data_off = phoff + phnum * ph;
        let shoff = data_off + data as u64;
        let shnum = 2u64;
        let mut b = vec![0u8; (shoff + shnum * sh) as usize];
        let put = |b: &mut Vec<u8>, at: u64, v: u64, n: usize| {
            let bytes = v.to_le_bytes();
            let mut s = bytes[..n].to_vec();
            if big {
                s.reverse();
            }
            b[at as usize..at as usize + n].copy_from_slice(&s);
        };
        let w = if is64 { 8 } else { 4 };
        b[..4].copy_from_slice(b"\x7fELF");
        b[4] = if is64 { 2 } else { 1 };
        b[5] = if big { 2 } else { 1 };
        b[6] = 1;
        put(&mut b, 16, u64::from(ET_DYN), 2);
        put(&mut b, 20, 1, 4);
        let (o_phoff, o_shoff, o_sizes) = if is64 { (32, 40, 52) } else { (28, 32, 40) };
        put(&mut b, o_phoff, phoff, w);
        put(&mut b, o_shoff, shoff, w);
        put(&mut b, o_sizes, eh, 2);
        put(&mut b, o_sizes + 2, ph, 2);
        put(&mut b, o_sizes + 4, phnum, 2);
        put(&mut b, o_sizes + 6, sh, 2);
        put(&mut b, o_sizes + 8, shnum, 2);
        // PT_PHDR over the table, PT_LOAD over everything up to the section headers.
        for (i, (ty, off, len)) in [(6u64, phoff, phnum * ph), (1, 0, shoff)]
            .into_iter()
            .enumerate()
        {
            let at = phoff + i as u64 * ph;
            put(&mut b, at, ty, 4);
            let (o_off, o_filesz) = if is64 { (8, 32) } else { (4, 16) };
            put(&mut b, at + o_off, off, w);
            put(&mut b, at + o_filesz, len, w);
        }
        // Section 1: PROGBITS over the data.
        let at = shoff + sh;
        put(&mut b, at + 4, 1, 4);
        let (o_off, o_size) = if is64 { (24, 32) } else { (16, 20) };
        put(&mut b, at + o_off, data_off, w);
        put(&mut b, at + o_size, data as u64, w);
        b
    }

    fn check(b: &[u8]) -> Result<(), String> {
        check_elf(&mut Cursor::new(b), b.len() as u64).map(|_| ())
    }

    const KINDS: [(bool, bool); 4] = [(true, false), (true, true), (false, false), (false, true)];

    #[test]
    fn a_complete_image_passes_in_every_class_and_byte_order() {
        for (is64, big) in KINDS {
            assert_eq!(
                check(&image(is64, big, 300)),
                Ok(()),
                "64-bit {is64}, BE {big}"
            );
        }
    }

    #[test]
    fn every_truncation_is_refused_in_every_class_and_byte_order() {
        for (is64, big) in KINDS {
            let full = image(is64, big, 300);
            for n in 0..full.len() {
                let e = check(&full[..n]).expect_err(&format!("{n} bytes passed"));
                assert!(
                    e.contains("truncated") || e.contains("shorter"),
                    "64-bit {is64}, BE {big}, {n} bytes: {e}"
                );
            }
        }
    }

    #[test]
    fn a_truncated_segment_is_named() {
        let mut b = image(true, false, 300);
        // Make the LOAD segment claim 1000 bytes more than the file has, keeping the
        // section headers inside.
        let at = 64 + 56 + 32;
        let len = u64::from_le_bytes(b[at..at + 8].try_into().unwrap()) + 1000;
        b[at..at + 8].copy_from_slice(&len.to_le_bytes());
        let e = check(&b).unwrap_err();
        assert!(e.contains("segment 1 (LOAD) ends at byte"), "{e}");
    }

    #[test]
    fn overflowing_offsets_are_refused() {
        let mut b = image(true, false, 10);
        b[40..48].copy_from_slice(&u64::MAX.to_le_bytes());
        assert!(check(&b).unwrap_err().contains("impossible"));
    }

    #[test]
    fn other_files_are_refused() {
        assert!(check(b"#!/bin/sh\necho hello\n")
            .unwrap_err()
            .contains("not an ELF file"));
        assert!(check(b"")
            .unwrap_err()
            .contains("shorter than an ELF header"));
        let mut exe = image(true, false, 10);
        exe[16] = 2; // ET_EXEC
        assert!(check(&exe)
            .unwrap_err()
            .contains("not a shared library (type 2)"));
        let mut odd = image(true, false, 10);
        odd[4] = 3;
        assert!(check(&odd).unwrap_err().contains("unknown ELF class"));
    }

    /// Issue 33 C: the machine, class and byte order are read from the header and
    /// compared with this program's, so a library for another architecture is named as
    /// such instead of the loader's "No such file or directory".
    #[test]
    fn a_library_for_another_machine_says_so() {
        let host = host_target().expect("the tests run on a known architecture");
        let mut b = image(host.is64, host.big, 40);
        let machine = |v: u16| {
            if host.big {
                v.to_be_bytes()
            } else {
                v.to_le_bytes()
            }
        };
        b[18..20].copy_from_slice(&machine(host.machine));
        let t = check_elf(&mut Cursor::new(&b), b.len() as u64).unwrap();
        assert_eq!(t, host);
        assert_eq!(check_target(t), Ok(()));
        let other = if host.machine == 183 { 62 } else { 183 };
        let name = if other == 183 { "AArch64" } else { "x86-64" };
        b[18..20].copy_from_slice(&machine(other));
        let t = check_elf(&mut Cursor::new(&b), b.len() as u64).unwrap();
        let e = check_target(t).unwrap_err();
        assert!(e.starts_with(&format!("was built for {name} (")), "{e}");
        assert!(e.contains(", this program is "), "{e}");
        for (is64, big) in KINDS {
            let t = ElfTarget {
                is64,
                big,
                machine: host.machine,
            };
            assert_eq!(check_target(t).is_ok(), t == host, "{t:?}");
        }
        assert!(check_target(ElfTarget {
            machine: 243,
            ..host
        })
        .unwrap_err()
        .contains("RISC-V"));
    }

    /// Issue 33 B: a dangling or looping link where the library should be is refused,
    /// naming the link, not reported as missing.
    #[cfg(unix)]
    #[test]
    fn a_broken_or_looping_link_is_refused() {
        let d = std::env::temp_dir().join(format!("plugin-file-links-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        let dangling = d.join("libdangling.so");
        std::os::unix::fs::symlink(d.join("nowhere.so"), &dangling).unwrap();
        let looping = d.join("libloop.so");
        std::os::unix::fs::symlink(&looping, &looping).unwrap();
        for link in [&dangling, &looping] {
            match check_library(link) {
                Err(LibraryFileError::Refused(m)) => {
                    assert!(
                        m.starts_with("is a symbolic link that does not lead"),
                        "{m}"
                    )
                }
                other => panic!("{}: {other:?}", link.display()),
            }
        }
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn a_directory_is_not_a_library() {
        let d = std::env::temp_dir();
        assert_eq!(
            check_library(&d),
            Err(LibraryFileError::Refused(
                "is not a regular file (it is a directory)".into()
            ))
        );
        assert!(matches!(
            check_library(Path::new("/nonexistent/libx.so")),
            Err(LibraryFileError::Unreadable(_))
        ));
    }

    /// The program's own plugins, when built, pass; their truncations do not.
    #[cfg(target_os = "linux")]
    #[test]
    fn the_built_plugins_pass_and_their_truncations_fail() {
        let exe = std::env::current_exe().unwrap();
        let dir = exe.parent().and_then(Path::parent).unwrap();
        let lib = dir.join("libcarcassonne_count.so");
        let Ok(bytes) = std::fs::read(&lib) else {
            return; // not built yet (the CLI tests check it through the binary)
        };
        assert_eq!(check_library(&lib), Ok(()));
        for n in [0, 64, 680, 4096, 100_000, bytes.len() / 2, bytes.len() - 1] {
            assert!(check(&bytes[..n]).is_err(), "{n} bytes passed");
        }
    }
}
