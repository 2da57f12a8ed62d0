//! Helpers shared by the integration tests.

use std::path::PathBuf;

/// A fresh directory under the system temp dir (tempfile's), removed when dropped; `.0`
/// is its path.
pub struct TempDir(
    pub PathBuf,
    #[allow(dead_code)] // held only to remove the directory when dropped
    tempfile::TempDir,
);

impl TempDir {
    /// A new directory whose name starts with `gordian-NAME-`.
    pub fn new(name: &str) -> TempDir {
        let dir = tempfile::Builder::new()
            .prefix(&format!("gordian-{name}-"))
            .tempdir()
            .expect("temp dir");
        TempDir(dir.path().to_path_buf(), dir)
    }

    /// Writes `text` to `name` inside the directory (creating subdirectories).
    pub fn write(&self, name: &str, text: impl AsRef<[u8]>) -> PathBuf {
        let p = self.0.join(name);
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent).expect("dir");
        }
        std::fs::write(&p, text).expect("write");
        p
    }
}
