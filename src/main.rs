//! The `gordian` command line: parses arguments and hands over to `gordian::cli`.

use std::process::ExitCode;

fn main() -> ExitCode {
    gordian::cli::run()
}
