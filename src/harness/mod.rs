//! The harness: everything that works the same for every game system, generic over
//! [`System`](crate::systems::spec::System) and naming none of them. Differential comparison
//! of a system's engines and the race between them ([`differential`]), fuzzing with
//! shrinking ([`fuzz`]), outside resolvers run by a command ([`external`]), compared
//! with gordian's answer field by field ([`protocol`]) on given or random instances
//! ([`against`]), batch runs with resume, shards and timeouts ([`batch`]), shards given
//! as `K/N` or read from a Slurm job array's or Kubernetes Indexed Job's environment
//! ([`shard`]), shard reports merged and checked ([`merge`]), input discovery and
//! loading by extension ([`inputs`]), and worker processes under limits the parent
//! enforces ([`isolate`]). For tests only, the one seeded differential loop the systems'
//! tests run (`seeded`, compiled in tests only).
//!
//! Only the command line runs outside resolvers, batches, shards and workers: those modules
//! are compiled with the `cli` feature; the library's solving needs [`differential`],
//! [`fuzz`] (its seeds) and [`inputs`].
//!
//! Boundary: nothing here imports `crate::systems::<system>`; a system reaches the harness
//! only through its `System` implementation, and the CLI chooses the system.

#[cfg(feature = "cli")]
pub mod against;
#[cfg(feature = "cli")]
pub mod batch;
pub mod differential;
#[cfg(feature = "cli")]
pub mod external;
pub mod fuzz;
pub mod inputs;
#[cfg(feature = "cli")]
pub mod isolate;
#[cfg(feature = "cli")]
pub mod merge;
#[cfg(feature = "cli")]
pub mod protocol;
#[cfg(feature = "cli")]
pub mod shard;

pub use differential::{Comparison, Differential, Verdict};

#[cfg(test)]
pub(crate) mod seeded;
#[cfg(test)]
pub(crate) mod toy;
