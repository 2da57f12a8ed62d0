//! Finding the input files named on a command line: files as given, directories walked
//! recursively for `.night` and `.json` files (or `.fft` scenarios).
//!
//! Invariants: the files come back sorted and without duplicates; a path that cannot be
//! read (missing, unreadable directory) is returned as an error beside the files, never
//! silently dropped; symbolic links to directories are not followed (no cycles).

use std::path::{Path, PathBuf};

/// The files found, and the paths that could not be read.
#[derive(Debug, Default)]
pub struct Inputs {
    /// Night files, sorted, no duplicates.
    pub files: Vec<PathBuf>,
    /// Paths that could not be read, with why.
    pub errors: Vec<(PathBuf, std::io::Error)>,
}

/// Whether a file found inside a directory is a night file (`.night` or `.json`, any case).
pub fn is_night_file(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("night") || e.eq_ignore_ascii_case("json"))
}

/// Whether a file found inside a directory is an FFT scenario (`.fft`, any case).
pub fn is_fft_file(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("fft"))
}

/// Collects the files under `paths`: a file is taken whatever its name, a directory is
/// walked for night files (see [`is_night_file`]).
pub fn collect(paths: &[PathBuf]) -> Inputs {
    collect_with(paths, is_night_file)
}

/// Like [`collect`], walking directories for the files `wanted` accepts.
pub fn collect_with(paths: &[PathBuf], wanted: fn(&Path) -> bool) -> Inputs {
    let mut inputs = Inputs::default();
    for p in paths {
        match std::fs::metadata(p) {
            Ok(m) if m.is_dir() => walk(p, wanted, &mut inputs),
            Ok(_) => inputs.files.push(p.clone()),
            Err(e) => inputs.errors.push((p.clone(), e)),
        }
    }
    inputs.files.sort();
    inputs.files.dedup();
    inputs
}

fn walk(dir: &Path, wanted: fn(&Path) -> bool, inputs: &mut Inputs) {
    let entries = match std::fs::read_dir(dir) {
        Ok(rd) => rd.collect::<Result<Vec<_>, _>>(),
        Err(e) => Err(e),
    };
    let mut entries = match entries {
        Ok(v) => v,
        Err(e) => {
            inputs.errors.push((dir.to_path_buf(), e));
            return;
        }
    };
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let path = entry.path();
        match entry.file_type() {
            Ok(t) if t.is_dir() => walk(&path, wanted, inputs),
            Ok(t) if t.is_symlink() && path.is_dir() => {}
            Ok(_) if wanted(&path) => inputs.files.push(path),
            Ok(_) => {}
            Err(e) => inputs.errors.push((path, e)),
        }
    }
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
        let got = collect(&[dir.clone(), explicit.clone(), missing.clone(), dir.clone()]);
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
}
