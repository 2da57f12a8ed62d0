//! The native module behind `import gordian` (`gordian._gordian`): the playground's
//! requests, which answer an instance given as text exactly as the command line answers
//! its file (`gordian::playground`). The Python package (`python/gordian/__init__.py`)
//! builds the requests and turns failures into exceptions.
//!
//! Invariants: no logic of its own; a solve runs with the interpreter released, so other
//! Python threads go on meanwhile.

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::Duration;

/// Answers one request (JSON text: `{"text", "system", "name", "timeout_ms", "seed",
/// "results", "max_memory_mib"}`) with the response as JSON text (docs/playground.md).
///
/// The solve runs on a thread of its own while this one waits with the interpreter
/// released, checking for signals every 50 ms: on Ctrl-C (or any signal handler that
/// raises) the requests being answered are interrupted, and once the solve has stopped
/// the handler's exception (`KeyboardInterrupt`) is raised here.
#[pyfunction]
fn solve_request(py: Python<'_>, request: &str) -> PyResult<String> {
    let request = request.to_owned();
    let (tx, rx) = mpsc::channel();
    std::thread::scope(|s| {
        s.spawn(move || {
            let _ = tx.send(gordian::playground::solve(&request));
        });
        // The receiver goes into each wait and comes back out (it may not be shared).
        let mut rx = rx;
        loop {
            let (got, back) = py.detach(move || {
                let got = rx.recv_timeout(Duration::from_millis(50));
                (got, rx)
            });
            rx = back;
            match got {
                Ok(response) => return Ok(response),
                Err(RecvTimeoutError::Timeout) => {
                    if let Err(e) = py.check_signals() {
                        gordian::playground::interrupt();
                        let _ = py.detach(move || rx.recv());
                        return Err(e);
                    }
                }
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(PyRuntimeError::new_err(
                        "the solve ended without an answer (a bug in gordian)",
                    ))
                }
            }
        }
    })
}

/// `gordian gen`'s instances for a request `{"flags": [...]}` (JSON text in and out).
#[pyfunction]
fn generate_request(py: Python<'_>, request: &str) -> String {
    let request = request.to_owned();
    py.detach(move || gordian::playground::generate(&request))
}

/// The instance files under some paths, as `batch` walks them (JSON text in and out).
#[pyfunction]
fn files_request(py: Python<'_>, request: &str) -> String {
    let request = request.to_owned();
    py.detach(move || gordian::playground::files(&request))
}

/// One file's `batch` record (JSON text in and out); the interpreter is released.
#[pyfunction]
fn record_request(py: Python<'_>, request: &str) -> String {
    let request = request.to_owned();
    py.detach(move || gordian::playground::record(&request))
}

/// A setup analysis (JSON text in and out); the interpreter is released.
#[pyfunction]
fn setup_request(py: Python<'_>, request: &str) -> String {
    let request = request.to_owned();
    py.detach(move || gordian::playground::setup_analyse(&request))
}

/// The system an instance is read as: by the extension of `name`, else the first whose
/// format reads `text`; `""` when none does.
#[pyfunction]
fn detect(name: &str, text: &str) -> String {
    gordian::playground::detect(name, text)
}

/// The systems, as JSON text: `[{"id", "noun", "extensions"}]`.
#[pyfunction]
fn systems() -> String {
    gordian::playground::systems()
}

/// The version of gordian this module was built from.
#[pyfunction]
fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

#[pymodule]
fn _gordian(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(solve_request, m)?)?;
    m.add_function(wrap_pyfunction!(generate_request, m)?)?;
    m.add_function(wrap_pyfunction!(files_request, m)?)?;
    m.add_function(wrap_pyfunction!(record_request, m)?)?;
    m.add_function(wrap_pyfunction!(setup_request, m)?)?;
    m.add_function(wrap_pyfunction!(detect, m)?)?;
    m.add_function(wrap_pyfunction!(systems, m)?)?;
    m.add_function(wrap_pyfunction!(version, m)?)?;
    Ok(())
}
