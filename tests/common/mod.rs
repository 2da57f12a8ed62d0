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
    #[allow(dead_code)] // not every test binary writes its files through it
    pub fn write(&self, name: &str, text: impl AsRef<[u8]>) -> PathBuf {
        let p = self.0.join(name);
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent).expect("dir");
        }
        std::fs::write(&p, text).expect("write");
        p
    }
}

/// Waits for `child` to exit, reading its peak resident memory (`VmHWM` of
/// `/proc/PID/status`) every 20 ms; returns it in KiB (Linux only). The caller reads the
/// child's output on another thread, so that a writer is never stalled.
#[cfg(target_os = "linux")]
#[allow(dead_code)] // only the tests that bound memory use it
pub fn peak_resident_kib(child: &mut std::process::Child) -> u64 {
    let pid = child.id();
    let mut peak_kib = 0u64;
    while child.try_wait().expect("wait").is_none() {
        if let Ok(status) = std::fs::read_to_string(format!("/proc/{pid}/status")) {
            for line in status.lines() {
                if let Some(v) = line.strip_prefix("VmHWM:") {
                    let kib: u64 = v.trim().trim_end_matches("kB").trim().parse().unwrap_or(0);
                    peak_kib = peak_kib.max(kib);
                }
            }
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    peak_kib
}
