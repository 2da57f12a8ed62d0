//! Role setups: every night a setup's players may choose, counted up to symmetry, each
//! solved by the engines, and summed into what a designer asks of the setup (how often
//! a night is a paradox or a quasi-paradox, which roles cause it, who dies how often).
//!
//! * [`model`]: the setup (fixed part, choosers and their options, symmetry classes);
//! * [`parse`]: the `.setup` reader;
//! * [`nights`]: enumeration, uniform sampling, and the key a night is counted under;
//! * [`tally`]: each distinct night solved and read, the weighted sums;
//! * [`report`]: the sums as rates, intervals, text, JSON and CSV;
//! * [`html`]: the JSON report as one self-contained HTML page.
//!
//! A layer above the engines' answers: imports the night, the answer and `why` (paradox
//! cores), never an engine (the caller passes the solver in).

pub mod html;
pub mod model;
pub mod nights;
pub mod parse;
pub mod report;
pub mod tally;

#[cfg(test)]
mod tests;
