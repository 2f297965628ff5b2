//! `Algorithm` and `Options`: which fair-share algorithm to run and its knobs, shared by the
//! CLI (`--algorithm`, `--dampening`, ...), the server (`fairshare_algorithm`) and the binder.

use serde::{Deserialize, Serialize};
use std::collections::HashSet;
use std::fmt;
use std::str::FromStr;

/// The six algorithms fairsort implements.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Algorithm {
    /// PBS: fairshare_perc, fairshare_tree_usage, fairshare_factor as PBS's scheduler computes them.
    Pbs,
    /// Slurm classic multifactor (`PriorityFlags=NO_FAIR_TREE`).
    Classic,
    /// Slurm `PriorityFlags=DEPTH_OBLIVIOUS`.
    DepthOblivious,
    /// Slurm Fair Tree, the default since 19.05.
    FairTree,
    /// Slurm ticket-based (13.12–14.11).
    Ticket,
    /// flux-accounting weighted walk.
    Flux,
}

impl Algorithm {
    /// Every algorithm, in a stable order (for `share --compare`).
    pub const ALL: [Algorithm; 6] = [
        Algorithm::Pbs,
        Algorithm::Classic,
        Algorithm::DepthOblivious,
        Algorithm::FairTree,
        Algorithm::Ticket,
        Algorithm::Flux,
    ];

    /// The name used on the command line, in `fairshare_algorithm` and in JSON.
    pub fn name(self) -> &'static str {
        match self {
            Algorithm::Pbs => "pbs",
            Algorithm::Classic => "classic",
            Algorithm::DepthOblivious => "depth-oblivious",
            Algorithm::FairTree => "fair-tree",
            Algorithm::Ticket => "ticket",
            Algorithm::Flux => "flux",
        }
    }
}

impl fmt::Display for Algorithm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Algorithm {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Algorithm::ALL
            .into_iter()
            .find(|a| a.name() == s)
            .ok_or_else(|| {
                let names: Vec<&str> = Algorithm::ALL.iter().map(|a| a.name()).collect();
                format!(
                    "unknown fair-share algorithm `{s}` (expected one of: {})",
                    names.join(", ")
                )
            })
    }
}

/// Knobs of the algorithms; each ignores the ones that are not its own.
#[derive(Debug, Clone, PartialEq)]
pub struct Options {
    /// Slurm `FairShareDampeningFactor` (classic): factor = 2^(-U/S/d). Default 1.
    pub dampening: f64,
    /// Fair Tree: merge tied sibling accounts as the documentation describes (real Slurm never does).
    pub merge_ties: bool,
    /// flux: truncate sibling usage sums to integers after every addition, as the C++ does.
    pub flux_compat: bool,
    /// Ticket-based: the users with pending jobs (None = every user is active).
    pub active_users: Option<HashSet<String>>,
    /// PBS: entities that jobs name but the tree lacks; they go under `unknown` with 1 share.
    pub extra_entities: Vec<String>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            dampening: 1.0,
            merge_ties: false,
            flux_compat: false,
            active_users: None,
            extra_entities: Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for a in Algorithm::ALL {
            assert_eq!(a.name().parse::<Algorithm>(), Ok(a));
        }
        assert!("fairtree"
            .parse::<Algorithm>()
            .unwrap_err()
            .contains("fair-tree"));
    }
}
