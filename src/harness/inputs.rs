//! Finding and reading the input files named on a command line: files as given,
//! directories walked (depth-first, with a stack of their own, not recursion) for the
//! extensions of the systems asked for, `-` for standard input.
//!
//! Invariants: the files come back sorted and without duplicates; a path that cannot be
//! read (missing, unreadable directory, not a regular file) is returned as an error beside
//! the files, never silently dropped; symbolic links to directories are not followed (no
//! cycles); reading never loads more than [`MAX_FILE_BYTES`] + 1 bytes.

use crate::systems::spec::{Budget, Interrupted, System};
use crate::text::{decode_utf8, read_limited, LoadError, ParseErrors, MAX_FILE_BYTES};
use std::io::Read;
use std::path::{Path, PathBuf};

/// The path that stands for standard input.
pub const STDIN: &str = "-";

/// The files found, and the paths that could not be read.
#[derive(Debug, Default)]
pub struct Inputs {
    /// Input files, sorted, no duplicates (`-` kept as given).
    pub files: Vec<PathBuf>,
    /// Paths that could not be read, with why.
    pub errors: Vec<(PathBuf, std::io::Error)>,
}

/// Whether `path` has one of `extensions` (compared without case).
pub fn has_extension(path: &Path, extensions: &[&str]) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| extensions.iter().any(|x| e.eq_ignore_ascii_case(x)))
}

/// Collects the files under `paths`: a file is taken whatever its name, a directory is
/// walked for files with one of `extensions`, `-` is kept (standard input).
pub fn collect(paths: &[PathBuf], extensions: &[&str]) -> Inputs {
    let mut inputs = Inputs::default();
    for p in paths {
        if p.as_os_str() == STDIN {
            inputs.files.push(p.clone());
            continue;
        }
        match std::fs::metadata(p) {
            Ok(m) if m.is_dir() => walk(p, extensions, &mut inputs),
            Ok(m) if m.is_file() => inputs.files.push(p.clone()),
            Ok(_) => inputs.errors.push((p.clone(), not_regular())),
            Err(e) => inputs.errors.push((p.clone(), e)),
        }
    }
    inputs.files.sort();
    inputs.files.dedup();
    inputs
}

fn not_regular() -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::InvalidInput,
        "not a regular file (a FIFO, device or socket is not read)",
    )
}

/// A directory's entries sorted by name, or `None` (with the error recorded).
fn sorted_entries(dir: &Path, inputs: &mut Inputs) -> Option<Vec<std::fs::DirEntry>> {
    let entries = match std::fs::read_dir(dir) {
        Ok(rd) => rd.collect::<Result<Vec<_>, _>>(),
        Err(e) => Err(e),
    };
    match entries {
        Ok(mut v) => {
            v.sort_by_key(|e| e.file_name());
            Some(v)
        }
        Err(e) => {
            inputs.errors.push((dir.to_path_buf(), e));
            None
        }
    }
}

/// Walks `dir` depth-first in name order, with a stack of its own rather than recursion
/// (a directory tree may be as deep as paths allow).
fn walk(dir: &Path, extensions: &[&str], inputs: &mut Inputs) {
    let mut stack: Vec<std::vec::IntoIter<std::fs::DirEntry>> = Vec::new();
    stack.extend(sorted_entries(dir, inputs).map(Vec::into_iter));
    while let Some(level) = stack.last_mut() {
        let Some(entry) = level.next() else {
            stack.pop();
            continue;
        };
        let path = entry.path();
        match entry.file_type() {
            Ok(t) if t.is_dir() => {
                stack.extend(sorted_entries(&path, inputs).map(Vec::into_iter));
            }
            Ok(t) if t.is_symlink() && path.is_dir() => {}
            Ok(_) if has_extension(&path, extensions) => match std::fs::metadata(&path) {
                Ok(m) if m.is_file() => inputs.files.push(path),
                Ok(_) => inputs.errors.push((path, not_regular())),
                Err(e) => inputs.errors.push((path, e)),
            },
            Ok(_) => {}
            Err(e) => inputs.errors.push((path, e)),
        }
    }
}

/// Standard input as a parent process read it and handed over with a job (see
/// [`give_stdin`]).
static GIVEN_STDIN: std::sync::Mutex<Option<Vec<u8>>> = std::sync::Mutex::new(None);

/// Makes `-` read `bytes` in this process instead of standard input (`None`: standard
/// input again). A worker process, whose standard input carries its requests, is given
/// the parent's standard input this way with each job that reads `-`.
pub fn give_stdin(bytes: Option<Vec<u8>>) {
    *GIVEN_STDIN.lock().unwrap_or_else(|e| e.into_inner()) = bytes;
}

/// Reads at most [`MAX_FILE_BYTES`] from `path`, or from standard input for `-` (or what
/// [`give_stdin`] gave).
pub fn read_bytes(path: &Path, what: &str) -> Result<Vec<u8>, LoadError> {
    if path.as_os_str() != STDIN {
        return read_limited(path, what);
    }
    if let Some(bytes) = GIVEN_STDIN
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .clone()
    {
        return Ok(bytes);
    }
    let mut bytes = Vec::new();
    std::io::stdin()
        .lock()
        .take(MAX_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|source| LoadError::Io {
            file: path.to_path_buf(),
            source,
        })?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(LoadError::Io {
            file: path.to_path_buf(),
            source: std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!(
                    "standard input is larger than {} MiB, the limit for {what}",
                    MAX_FILE_BYTES >> 20
                ),
            ),
        });
    }
    Ok(bytes)
}

/// Parses `bytes` as an instance of `S` (UTF-8 first; errors located in `file`).
pub fn parse_bytes<S: System>(bytes: &[u8], file: &Path) -> Result<S::Instance, ParseErrors> {
    let what = format!("{} files", S::NOUN);
    S::parse(file, decode_utf8(bytes, file, &what)?)
}

/// [`load`] under a budget ([`System::parse_within`]): `Err` if the budget stopped the
/// instance building (a timeout, or the memory bound: see [`Budget::limit_hit`]).
pub fn load_within<S: System>(
    path: &Path,
    budget: &Budget,
) -> Result<Result<S::Instance, LoadError>, Interrupted> {
    let what = format!("{} files", S::NOUN);
    let bytes = match read_bytes(path, &what) {
        Ok(b) => b,
        Err(e) => return Ok(Err(e)),
    };
    budget.check()?;
    let text = match decode_utf8(&bytes, path, &what) {
        Ok(t) => t,
        Err(e) => return Ok(Err(e.into())),
    };
    Ok(S::parse_within(path, text, budget)?.map_err(LoadError::from))
}

/// Reads and parses an instance of `S` from `path` (`-`: standard input).
pub fn load<S: System>(path: &Path) -> Result<S::Instance, LoadError> {
    let what = format!("{} files", S::NOUN);
    Ok(parse_bytes::<S>(&read_bytes(path, &what)?, path)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn walks_directories_and_reports_missing_paths() {
        let dir = std::env::temp_dir().join(format!("gordian-inputs-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("sub")).unwrap();
        for f in ["b.night", "a.JSON", "notes.txt", "sub/c.night"] {
            std::fs::write(dir.join(f), "").unwrap();
        }
        let explicit = dir.join("notes.txt");
        let missing = dir.join("missing.night");
        let got = collect(
            &[dir.clone(), explicit.clone(), missing.clone(), dir.clone()],
            &["night", "json"],
        );
        let want = vec![
            dir.join("a.JSON"),
            dir.join("b.night"),
            explicit,
            dir.join("sub/c.night"),
        ];
        assert_eq!(got.files, want);
        assert_eq!(got.errors.len(), 1);
        assert_eq!(got.errors[0].0, missing);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A tree 500 directories deep: the nights at every level are found.
    #[test]
    fn walks_a_deep_tree() {
        let dir = std::env::temp_dir().join(format!("gordian-deep-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let mut want = Vec::new();
        let mut at = dir.clone();
        for i in 0..500 {
            at.push("d");
            std::fs::create_dir_all(&at).unwrap();
            if i % 100 == 99 {
                want.push(at.join("n.night"));
                std::fs::write(at.join("n.night"), "").unwrap();
            }
        }
        want.sort();
        let got = collect(std::slice::from_ref(&dir), &["night"]);
        assert_eq!(got.files, want);
        assert!(got.errors.is_empty());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
