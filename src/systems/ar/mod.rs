//! ?AR ("??? Action Resolution") night resolution, as stated in `docs/ar.md`.
//!
//! In layers, one folder each; a file imports only files of its own folder (never in a
//! circle) and of the layers below it (checked by tests/layers.rs):
//!
//! * [`night`]: the ensemble, its parser, the universe, what a resolution is;
//! * [`judge`]: the rules evaluated literally, and brute force (imports the night);
//! * [`answer`]: the factorised answer both engines return, and its writers (imports
//!   the night);
//! * [`direct`] and [`sat`]: the two engines (each imports the night and the answer, never
//!   the other engine nor the judge);
//! * [`why`]: explanations, paradox cores, DOT (imports everything below);
//! * [`setup`]: role setups, every night a setup allows (imports the night, the answer
//!   and `why`; the caller passes the engines in);
//! * [`engine`] and [`system`] on top.

pub mod answer;
pub mod direct;
pub mod engine;
pub mod judge;
pub mod night;
pub mod sat;
pub mod setup;
pub mod system;
pub mod why;

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_why;

pub use answer::factor::{Factored, Night, Part};
pub use engine::self_check;
pub use night::resolution::{Analysis, Classification, Cut, Resolution};
pub use night::universe::Universe;
pub use system::Ar;
