//! The library's closed sets of names (`Algorithm`, `TreeFormat`, `InputFormat`) as clap
//! arguments: the library gives the names (`FromStr`/`Display`), the binary the help texts.

use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use fairsort::fairshare::Algorithm;
use fairsort::inputs::InputFormat;
use fairsort::inputs::TreeFormat;
use std::str::FromStr;

/// A library enum that a flag takes by name, with the one-line help `--help` lists.
pub trait Choice: Copy + Clone + Send + Sync + FromStr<Err = String> + 'static {
    /// Every value, in `--help` order.
    fn all() -> &'static [Self];
    /// The name typed on the command line.
    fn name(self) -> &'static str;
    /// What the value means, for `--help`.
    fn help(self) -> &'static str;
}

/// The clap value parser of a [`Choice`]: the possible values with their help, then `FromStr`.
pub fn parser<T: Choice>() -> impl TypedValueParser<Value = T> {
    PossibleValuesParser::new(
        T::all()
            .iter()
            .map(|v| PossibleValue::new(v.name()).help(v.help())),
    )
    .try_map(|s| s.parse::<T>())
}

impl Choice for Algorithm {
    fn all() -> &'static [Self] {
        &Algorithm::ALL
    }
    fn name(self) -> &'static str {
        Algorithm::name(self)
    }
    fn help(self) -> &'static str {
        match self {
            Algorithm::Pbs => {
                "PBS Professional / OpenPBS: fairshare_perc, fairshare_tree_usage and fairshare_factor as the scheduler computes them"
            }
            Algorithm::Classic => "Slurm classic multifactor (`PriorityFlags=NO_FAIR_TREE`)",
            Algorithm::DepthOblivious => "Slurm multifactor with `PriorityFlags=DEPTH_OBLIVIOUS` (deep accounts not penalised)",
            Algorithm::FairTree => "Slurm Fair Tree (`PriorityFlags=FAIR_TREE`), the default since Slurm 19.05",
            Algorithm::Ticket => "Slurm ticket-based fair share (`PriorityFlags=TICKET_BASED`, Slurm 13.12–14.11)",
            Algorithm::Flux => "flux-accounting: the weighted tree walk of `flux account-update-fshare`",
        }
    }
}

impl Choice for TreeFormat {
    fn all() -> &'static [Self] {
        &TreeFormat::ALL
    }
    fn name(self) -> &'static str {
        TreeFormat::name(self)
    }
    fn help(self) -> &'static str {
        match self {
            TreeFormat::Pbs => "PBS `resource_group`",
            TreeFormat::Sshare => "Slurm `sshare -a -l -P` or `-p`",
            TreeFormat::Sacctmgr => "Slurm `sacctmgr show assoc -P` with ParentName",
            TreeFormat::SacctmgrDump => "Slurm `sacctmgr dump CLUSTER file=FILE`",
            TreeFormat::FluxDb => "flux-accounting SQLite database",
            TreeFormat::Toml => "fairsort TOML",
            TreeFormat::Json => "fairsort JSON",
        }
    }
}

impl Choice for InputFormat {
    fn all() -> &'static [Self] {
        &InputFormat::ALL
    }
    fn name(self) -> &'static str {
        InputFormat::name(self)
    }
    fn help(self) -> &'static str {
        match self {
            InputFormat::Pbs => "PBS accounting log (file or directory of daily files)",
            InputFormat::Slurm => "Slurm `sacct -P` output with a header line",
            InputFormat::Flux => "flux-accounting SQLite database (`jobs` table)",
        }
    }
}

impl Choice for fairsort::tune::Method {
    fn all() -> &'static [Self] {
        &fairsort::tune::Method::ALL
    }
    fn name(self) -> &'static str {
        fairsort::tune::Method::name(self)
    }
    fn help(self) -> &'static str {
        match self {
            fairsort::tune::Method::Optimise => "a Latin hypercube of 40% of the budget, then Nelder–Mead (argmin) from its two best points",
            fairsort::tune::Method::Random => "a Latin hypercube of the whole budget (seeded)",
            fairsort::tune::Method::Grid => "evenly spaced levels of every parameter, as many as the budget allows",
        }
    }
}
