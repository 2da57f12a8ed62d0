//! The generator flags of every system, in one clap group shared by `fuzz` and `gen`, and
//! the dispatch from a `--system` value to the generic code that runs with that system's
//! generator ([`ForSystem`]). Each system's flags are a clap struct here that converts
//! into the system's own plain knobs (`System::GenArgs`; the systems know nothing of
//! clap), and have names no other system uses; a flag of another system's generator is an
//! error naming the system it belongs to.

use super::registry::SystemName;
use crate::systems::ar::night::model::ActionKind;
use crate::systems::ar::system::ArGen;
use crate::systems::ar::Ar;
use crate::systems::ff8::gen::GenArgs as Ff8Gen;
use crate::systems::ff8::system::Ff8;
use crate::systems::fft::gen::ScenarioParams as FftGen;
use crate::systems::fft::Fft;
use crate::systems::foeman::gen::GenArgs as FoemanGen;
use crate::systems::foeman::model::{MAX_FIGURES, MAX_SIDES};
use crate::systems::foeman::parse::{MAX_PLAN, MAX_SET};
use crate::systems::foeman::system::Foeman;
use crate::systems::lancer::gen::GenArgs as LancerGen;
use crate::systems::lancer::system::Lancer;
use crate::systems::spec::System;
use clap::parser::ValueSource;
use clap::{ArgMatches, Args as _};

/// A count flag from `min` to `max` (out of range: refused by the argument parser, exit 2).
fn count(min: usize, max: usize) -> clap::builder::RangedU64ValueParser<usize> {
    clap::builder::RangedU64ValueParser::new().range(min as u64..=max as u64)
}

/// Every system's generator flags.
#[derive(clap::Args, Debug)]
pub struct Generators {
    #[command(flatten, next_help_heading = "?AR generator (--system ar)")]
    ar: ArFlags,
    #[command(flatten, next_help_heading = "FFT generator (--system fft)")]
    fft: FftFlags,
    #[command(flatten, next_help_heading = "Lancer generator (--system lancer)")]
    lancer: LancerFlags,
    #[command(flatten, next_help_heading = "Foeman generator (--system foeman)")]
    foeman: FoemanFlags,
    #[command(flatten, next_help_heading = "FF8 generator (--system ff8)")]
    ff8: Ff8Flags,
}

/// The night generator's flags (`gordian fuzz|gen --system ar`): [`ArGen`].
#[derive(clap::Args, Clone, Debug)]
struct ArFlags {
    /// Players per night.
    #[arg(long, default_value_t = 6, value_parser = clap::value_parser!(u64).range(1..=1000))]
    players: u64,
    /// Each night has between 1 and this many effects.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..=10_000))]
    max_effects: u64,
    /// Action kinds to draw from, comma-separated (also `jail`, `commute`, `swap`, `redirect`,
    /// `guard`, `hide`, `babysit`).
    #[arg(long, value_delimiter = ',', value_parser = parse_kind,
          default_value = "visit,block,stop,protect,kill,deflect")]
    kinds: Vec<ActionKind>,
    /// Probability that an effect carries a modifier (a filter such as `block[kill]`,
    /// `strongkill`, an information kind such as `track`, a two-target `deflect X to Y`),
    /// that a passive is an `immune[...]` one, and that a reflexive passive fires on a
    /// visit (`visited:K`) rather than a success.
    #[arg(long, default_value_t = 0.0, value_parser = parse_rate)]
    modifier_rate: f64,
    /// Probability that an effect is a passive.
    #[arg(long, default_value_t = 0.15, value_parser = parse_rate)]
    passive_rate: f64,
    /// Number of distinct priority levels drawn at random (0: the kinds' defaults).
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..=1000))]
    priority_levels: u32,
}

fn parse_kind(s: &str) -> Result<ActionKind, String> {
    ActionKind::from_name(s.trim()).ok_or_else(|| {
        let all: Vec<&str> = ActionKind::ALL.iter().map(|k| k.name()).collect();
        format!("unknown action kind `{s}` (one of {})", all.join(", "))
    })
}

fn parse_rate(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(r) if (0.0..=1.0).contains(&r) => Ok(r),
        _ => Err(format!("`{s}` is not a probability between 0 and 1")),
    }
}

impl From<&ArFlags> for ArGen {
    fn from(f: &ArFlags) -> ArGen {
        ArGen {
            players: f.players as usize,
            max_effects: f.max_effects as usize,
            effects: None,
            kinds: f.kinds.clone(),
            passive_rate: f.passive_rate,
            priority_levels: f.priority_levels,
            modifier_rate: f.modifier_rate,
        }
    }
}

/// The scenario generator's flags (`gordian fuzz|gen --system fft`): three of [`FftGen`]'s
/// knobs, the others at their defaults.
#[derive(clap::Args, Clone, Debug)]
struct FftFlags {
    /// Characters per scenario.
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u64).range(1..=26))]
    characters: u64,
    /// Slow actions per scenario.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u64).range(0..=26))]
    slow_actions: u64,
    /// Most quick turns per phase.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u64).range(0..=32))]
    bound: u64,
}

impl From<&FftFlags> for FftGen {
    fn from(f: &FftFlags) -> FftGen {
        FftGen {
            characters: f.characters as usize,
            slow: f.slow_actions as usize,
            bound: f.bound as usize,
            ..FftGen::default()
        }
    }
}

/// The Lancer generator's flags: [`LancerGen`].
#[derive(clap::Args, Clone, Debug)]
struct LancerFlags {
    /// Lancer: most units in a random scenario (2..=5).
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u8).range(2..=5))]
    lancer_units: u8,
    /// Lancer: most reactions in a random scenario.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u8).range(0..=8))]
    lancer_reactions: u8,
    /// Lancer: largest reaction nesting bound in a random scenario.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u8).range(0..=4))]
    lancer_depth: u8,
}

impl From<&LancerFlags> for LancerGen {
    fn from(f: &LancerFlags) -> LancerGen {
        LancerGen {
            units: f.lancer_units,
            reactions: f.lancer_reactions,
            depth: f.lancer_depth,
        }
    }
}

/// The Foeman generator's flags (names prefixed `foeman-`, so they never clash):
/// [`FoemanGen`].
#[derive(clap::Args, Clone, Debug)]
struct FoemanFlags {
    /// Most sides (1..=8).
    #[arg(id = "foeman_sides", long = "foeman-sides", default_value_t = 3,
          value_parser = count(1, MAX_SIDES))]
    sides: usize,
    /// Most figures (0..=16).
    #[arg(id = "foeman_figures", long = "foeman-figures", default_value_t = 4,
          value_parser = count(0, MAX_FIGURES))]
    figures: usize,
    /// modDX values are drawn from 10..10+spread (small spreads give ties).
    #[arg(
        id = "foeman_dx_spread",
        long = "foeman-dx-spread",
        default_value_t = 2
    )]
    dx_spread: i32,
    /// Most declarations in a choice set (1..=8).
    #[arg(id = "foeman_menu", long = "foeman-menu", default_value_t = 2,
          value_parser = count(1, MAX_SET))]
    menu: usize,
    /// Most choice sets in a plan (1..=16).
    #[arg(id = "foeman_plan", long = "foeman-plan", default_value_t = 2,
          value_parser = count(1, MAX_PLAN))]
    plan: usize,
    /// Percentage of figures with a menu (more than one choice); the rest get fixed plans.
    #[arg(
        id = "foeman_menu_rate",
        long = "foeman-menu-rate",
        default_value_t = 40
    )]
    menu_rate: u32,
    /// Percentage of declarations carrying a modDX adjustment (`@+N`/`@-N`, N in 1..=2):
    /// options that change the figure's modDX, which exercises FigSeq re-zeroing.
    #[arg(id = "foeman_adj_rate", long = "foeman-adj-rate", default_value_t = 30)]
    adj_rate: u32,
}

impl From<&FoemanFlags> for FoemanGen {
    fn from(f: &FoemanFlags) -> FoemanGen {
        FoemanGen {
            sides: f.sides,
            figures: f.figures,
            dx_spread: f.dx_spread,
            menu: f.menu,
            plan: f.plan,
            menu_rate: f.menu_rate,
            adj_rate: f.adj_rate,
        }
    }
}

/// The FF8 generator's flags: [`Ff8Gen`].
#[derive(clap::Args, Clone, Debug)]
struct Ff8Flags {
    /// Most regions the player may challenge in (1..=8).
    #[arg(id = "ff8_regions", long = "ff8-regions", default_value_t = 2,
          value_parser = count(1, 8))]
    regions: usize,
    /// Most challenges (the bound k of reachability), 1 to 64.
    #[arg(id = "ff8_bound", long = "ff8-bound", default_value_t = 2,
          value_parser = count(1, crate::systems::ff8::parse::MAX_BOUND))]
    bound: usize,
    /// Percent of scenarios with a fixed challenge sequence (bytes free) instead of free
    /// choices.
    #[arg(id = "ff8_fixed", long = "ff8-fixed", default_value_t = 40)]
    fixed_percent: u32,
}

impl From<&Ff8Flags> for Ff8Gen {
    fn from(f: &Ff8Flags) -> Ff8Gen {
        Ff8Gen {
            regions: f.regions,
            bound: f.bound,
            fixed_percent: f.fixed_percent,
        }
    }
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
            SystemName::Ar => job.run::<Ar>(&(&self.ar).into()),
            SystemName::Fft => job.run::<Fft>(&(&self.fft).into()),
            SystemName::Lancer => job.run::<Lancer>(&(&self.lancer).into()),
            SystemName::Foeman => job.run::<Foeman>(&(&self.foeman).into()),
            SystemName::Ff8 => job.run::<Ff8>(&(&self.ff8).into()),
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
            ids(ArFlags::augment_args(clap::Command::new("ar"))),
        ),
        (
            SystemName::Fft,
            Fft::NAME,
            ids(FftFlags::augment_args(clap::Command::new("fft"))),
        ),
        (
            SystemName::Lancer,
            Lancer::NAME,
            ids(LancerFlags::augment_args(clap::Command::new("lancer"))),
        ),
        (
            SystemName::Foeman,
            Foeman::NAME,
            ids(FoemanFlags::augment_args(clap::Command::new("foeman"))),
        ),
        (
            SystemName::Ff8,
            Ff8::NAME,
            ids(Ff8Flags::augment_args(clap::Command::new("ff8"))),
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

    #[test]
    fn the_default_flags_are_the_systems_default_knobs() {
        #[derive(clap::Parser)]
        struct Flags {
            #[command(flatten)]
            g: Generators,
        }
        let g = <Flags as clap::Parser>::try_parse_from(["gordian"])
            .unwrap()
            .g;
        assert_eq!(ArGen::from(&g.ar), ArGen::default());
        assert_eq!(FftGen::from(&g.fft), FftGen::default());
        assert_eq!(LancerGen::from(&g.lancer), LancerGen::default());
        assert_eq!(FoemanGen::from(&g.foeman), FoemanGen::default());
        assert_eq!(Ff8Gen::from(&g.ff8), Ff8Gen::default());
    }
}
