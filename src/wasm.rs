//! The WebAssembly module's exports (wasm-bindgen), built only for `wasm32`: what the
//! browser page's worker and the npm package call. Strings in, strings out (JSON); every
//! answer is `cli::page`'s (`docs/playground.md`).
//!
//! Invariant: a panic cannot be caught in WebAssembly (the module aborts); its message is
//! kept first, so that the caller can read it with [`last_panic`] and start a fresh
//! module.

use std::sync::Mutex;
use wasm_bindgen::prelude::wasm_bindgen;

static LAST_PANIC: Mutex<String> = Mutex::new(String::new());

fn keep_panics() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        std::panic::set_hook(Box::new(|info| {
            if let Ok(mut m) = LAST_PANIC.lock() {
                *m = info.to_string();
            }
        }));
    });
}

/// Answers one request (JSON: `{"text", "system"?, "name"?, "timeout_ms"?, "seed"?}`)
/// with one response (JSON).
#[wasm_bindgen]
pub fn solve(request: &str) -> String {
    keep_panics();
    crate::cli::page::solve(request)
}

/// The systems, as JSON: `[{"id", "noun", "extensions"}]`.
#[wasm_bindgen]
pub fn systems() -> String {
    crate::cli::page::systems()
}

/// The id of the system an instance is for, by the name's extension, else by the text;
/// `""` when none.
#[wasm_bindgen]
pub fn detect(name: &str, text: &str) -> String {
    keep_panics();
    crate::cli::page::detect(name, text)
}

/// gordian's version.
#[wasm_bindgen]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").to_string()
}

/// The message of the panic that aborted the module, or `""`.
#[wasm_bindgen]
pub fn last_panic() -> String {
    LAST_PANIC.lock().map(|m| m.clone()).unwrap_or_default()
}
