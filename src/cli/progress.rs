//! Progress bars on standard error (indicatif), hidden when standard error is not a
//! terminal, so logs and pipes stay clean.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::time::Duration;

/// A bar counting `what` (with its rate per second), of `len` items when known.
pub fn bar(len: Option<u64>, what: &str) -> ProgressBar {
    let target = if std::io::stderr().is_terminal() {
        ProgressDrawTarget::stderr()
    } else {
        ProgressDrawTarget::hidden()
    };
    let template = match len {
        Some(_) => format!(
            "{{spinner}} [{{elapsed_precise}}] {{wide_bar}} {{pos}}/{{len}} {what} ({{per_sec}}, eta {{eta}})"
        ),
        None => format!("{{spinner}} [{{elapsed_precise}}] {{pos}} {what} ({{per_sec}}) {{msg}}"),
    };
    let style =
        ProgressStyle::with_template(&template).unwrap_or_else(|_| ProgressStyle::default_bar());
    let pb = ProgressBar::with_draw_target(len, target).with_style(style);
    pb.enable_steady_tick(Duration::from_millis(200));
    pb
}

/// A spinner with the elapsed time and a message, for work whose size is unknown.
pub fn spinner(msg: &str) -> ProgressBar {
    let pb = bar(None, "");
    let style = ProgressStyle::with_template("{spinner} [{elapsed_precise}] {msg}")
        .unwrap_or_else(|_| ProgressStyle::default_spinner());
    pb.set_style(style);
    pb.set_message(msg.to_string());
    pb
}
