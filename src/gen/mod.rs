//! Random instance generators (for property tests, fuzzing and benchmarks).

pub mod ar;
pub mod fft;
