//! FFT turn flow (contract: `fft-turn-flow.md`): quick flags, mime cycles and the
//! quick-safety in one SR phase, replayed against logs, compared across rule variants, and
//! enumerated by the direct simulator and by SAT bounded model checking.

pub mod dot;
pub mod encode;
pub mod engine;
pub mod gen;
pub mod model;
pub mod parse;
pub mod replay;
pub mod report;
pub mod search;
pub mod simulate;
pub mod system;
#[cfg(test)]
mod tests;
pub mod variants;

pub use system::Fft;
