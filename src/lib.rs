// The crate documentation is the README's `## Library` section, kept in its own file so
// that rustdoc can include it (and run its example); a test below checks that the two
// texts are the same.
#![doc = include_str!("../docs/library.md")]
#![warn(missing_docs)]

mod cancel;
mod cli;
mod facade;
mod graph;
mod harness;
mod sat;
mod systems;
mod text;

#[doc(hidden)]
pub use facade::bench_only;
pub use facade::{ar, ff8, fft, foeman, lancer};
pub use facade::{case_seed, Engines, Error, Limits};
#[doc(no_inline)]
pub use num_bigint::BigUint;
#[doc(no_inline)]
pub use num_rational::BigRational;
pub use text::{ParseError, ParseErrors};

/// The playground's requests (the browser page and the npm package): an instance as
/// text in, the CLI's report and `--json` answer out, as JSON (`docs/playground.md`). Not
/// part of the library's API.
#[doc(hidden)]
pub mod playground {
    pub use crate::cli::page::{detect, solve, systems};
}

#[cfg(target_arch = "wasm32")]
mod wasm;

/// The `gordian` command line (`src/main.rs`): parses the arguments, runs the command,
/// returns its exit code. Not part of the library's API.
#[doc(hidden)]
pub fn run_cli() -> std::process::ExitCode {
    cli::run()
}

#[cfg(test)]
mod tests {
    /// The README's `## Library` section, without its heading and HTML comments.
    fn readme_library_section() -> String {
        let readme = include_str!("../README.md");
        let start = readme
            .find("\n## Library\n")
            .expect("README has a Library section");
        let body = &readme[start + "\n## Library\n".len()..];
        let end = body.find("\n## ").unwrap_or(body.len());
        body[..end]
            .lines()
            .filter(|l| !l.starts_with("<!--"))
            .collect::<Vec<_>>()
            .join("\n")
    }

    #[test]
    fn the_crate_doc_is_the_readme_library_section() {
        assert_eq!(
            readme_library_section().trim(),
            include_str!("../docs/library.md").trim(),
            "README.md's `## Library` section and docs/library.md (the crate doc) differ"
        );
    }
}
