//! The generator flags of every system, in one clap group shared by `fuzz` and `gen`, and
//! the dispatch from a `--system` value to the generic code that runs with that system's
//! generator ([`ForSystem`]). Each system's flags have names no other system uses; a flag
//! of another system's generator is an error naming the system it belongs to.

use super::registry::SystemName;
use crate::systems::ar::system::ArGen;
use crate::systems::ar::Ar;
use crate::systems::ff8::gen::GenArgs as Ff8Gen;
use crate::systems::ff8::system::Ff8;
use crate::systems::fft::system::FftGen;
use crate::systems::fft::Fft;
use crate::systems::foeman::gen::GenArgs as FoemanGen;
use crate::systems::foeman::system::Foeman;
use crate::systems::lancer::gen::GenArgs as LancerGen;
use crate::systems::lancer::system::Lancer;
use crate::systems::spec::System;
use clap::parser::ValueSource;
use clap::{ArgMatches, Args as _};

/// Every system's generator flags.
#[derive(clap::Args, Debug)]
pub struct Generators {
    #[command(flatten, next_help_heading = "?AR generator (--system ar)")]
    ar: ArGen,
    #[command(flatten, next_help_heading = "FFT generator (--system fft)")]
    fft: FftGen,
    #[command(flatten, next_help_heading = "Lancer generator (--system lancer)")]
    lancer: LancerGen,
    #[command(flatten, next_help_heading = "Foeman generator (--system foeman)")]
    foeman: FoemanGen,
    #[command(flatten, next_help_heading = "FF8 generator (--system ff8)")]
    ff8: Ff8Gen,
}

/// Generic code to run with one system's generator arguments.
pub trait ForSystem {
    /// What it returns.
    type Out;
    /// Runs it for system `S`.
    fn run<S: System>(self, gen: &S::GenArgs) -> Self::Out;
}

impl Generators {
    /// Runs `job` with the generator arguments of `system`.
    pub fn dispatch<J: ForSystem>(&self, system: SystemName, job: J) -> J::Out {
        match system {
            SystemName::Ar => job.run::<Ar>(&self.ar),
            SystemName::Fft => job.run::<Fft>(&self.fft),
            SystemName::Lancer => job.run::<Lancer>(&self.lancer),
            SystemName::Foeman => job.run::<Foeman>(&self.foeman),
            SystemName::Ff8 => job.run::<Ff8>(&self.ff8),
        }
    }
}

/// The generator flags of each system: (system, its name, its argument ids).
fn generator_ids() -> Vec<(SystemName, &'static str, Vec<String>)> {
    let ids = |c: clap::Command| -> Vec<String> {
        c.get_arguments().map(|a| a.get_id().to_string()).collect()
    };
    vec![
        (
            SystemName::Ar,
            Ar::NAME,
            ids(ArGen::augment_args(clap::Command::new("ar"))),
        ),
        (
            SystemName::Fft,
            Fft::NAME,
            ids(FftGen::augment_args(clap::Command::new("fft"))),
        ),
        (
            SystemName::Lancer,
            Lancer::NAME,
            ids(LancerGen::augment_args(clap::Command::new("lancer"))),
        ),
        (
            SystemName::Foeman,
            Foeman::NAME,
            ids(FoemanGen::augment_args(clap::Command::new("foeman"))),
        ),
        (
            SystemName::Ff8,
            Ff8::NAME,
            ids(Ff8Gen::augment_args(clap::Command::new("ff8"))),
        ),
    ]
}

/// The error for a flag given on the command line (`m`: the subcommand's matches) that
/// belongs to another system's generator than `system`'s.
pub fn foreign_flag(system: SystemName, m: &ArgMatches) -> Option<String> {
    let flags = generator_ids();
    let own = flags
        .iter()
        .find(|(s, _, _)| *s == system)
        .map_or("", |(_, name, _)| *name);
    for (owner, name, ids) in &flags {
        if *owner == system {
            continue;
        }
        for id in ids {
            if m.value_source(id) == Some(ValueSource::CommandLine) {
                let flag = format!("--{}", id.replace('_', "-"));
                return Some(format!(
                    "error: {flag} is a flag of the {name} generator (--system {name}), not of \
                     --system {own}"
                ));
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_two_generators_share_a_flag() {
        let mut seen = std::collections::HashMap::new();
        for (_, name, ids) in generator_ids() {
            for id in ids {
                if let Some(other) = seen.insert(id.clone(), name) {
                    panic!("flag id `{id}` is used by the {other} and the {name} generators");
                }
            }
        }
        assert!(seen.len() >= 10, "{seen:?}");
    }
}
