//! The game systems gordian resolves, each with the same file roles (see ARCHITECTURE.md).

pub mod ar;
pub mod ff8;
pub mod fft;
pub mod foeman;
pub mod lancer;
pub mod spec;
