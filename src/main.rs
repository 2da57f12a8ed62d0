//! The `gordian` command line: parses arguments and hands over to the library's CLI
//! (`gordian::run_cli`).

use std::process::ExitCode;

/// mimalloc: the engines allocate many small, short-lived vectors (frames, labellings,
/// answers); on small nights the system allocator was a fifth of the run.
#[cfg(not(target_arch = "wasm32"))]
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    // Rust ignores SIGPIPE, so printing into a closed pipe (`gordian ... | head`) would
    // panic; take the default action instead and end quietly, like other Unix tools.
    #[cfg(unix)]
    // SAFETY: called first thing in `main`, before any other thread exists; setting a
    // signal's disposition to the default has no other precondition.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    gordian::run_cli()
}
