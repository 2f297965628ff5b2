//! `PlotKind`: which picture to draw; a new kind is a new variant with its name and summary.

use std::fmt;
use std::str::FromStr;

/// The pictures `fairsort plot` draws.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PlotKind {
    /// One user's fair-share factor against its usage, one curve per algorithm.
    Factors,
    /// The share tree as an icicle: widths are shares, the strip under each row is usage.
    Tree,
    /// Rank under the current formula against rank under another, one point per job.
    Against,
    /// A replay's share attainment per account over time (`fairsort replay`'s picture).
    Attainment,
    /// A replay's distribution of waits, one line per policy (`fairsort replay`'s picture).
    Waits,
}

impl PlotKind {
    /// Every kind, in the order help texts list them.
    pub const ALL: [PlotKind; 5] = [
        PlotKind::Factors,
        PlotKind::Tree,
        PlotKind::Against,
        PlotKind::Attainment,
        PlotKind::Waits,
    ];

    /// Whether the picture is of a replay (`--trace`) rather than of a tree or a queue.
    pub fn is_replay(self) -> bool {
        matches!(self, PlotKind::Attainment | PlotKind::Waits)
    }

    /// The name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            PlotKind::Factors => "factors",
            PlotKind::Tree => "tree",
            PlotKind::Against => "against",
            PlotKind::Attainment => "attainment",
            PlotKind::Waits => "waits",
        }
    }

    /// One line saying what the picture shows (for help texts).
    pub fn summary(self) -> &'static str {
        match self {
            PlotKind::Factors => "one user's fair-share factor against its usage, per algorithm",
            PlotKind::Tree => "the share tree as an icicle, usage against shares",
            PlotKind::Against => "each job's rank under two formulas (needs --against)",
            PlotKind::Attainment => {
                "a replay's share of usage against share of shares per account over time (needs --trace)"
            }
            PlotKind::Waits => {
                "a replay's distribution of waits, per policy with --against (needs --trace)"
            }
        }
    }
}

impl fmt::Display for PlotKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for PlotKind {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        PlotKind::ALL
            .into_iter()
            .find(|k| k.name() == s)
            .ok_or_else(|| {
                let names: Vec<&str> = PlotKind::ALL.iter().map(|k| k.name()).collect();
                format!("unknown plot `{s}` (expected one of: {})", names.join(", "))
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for k in PlotKind::ALL {
            assert_eq!(k.name().parse::<PlotKind>(), Ok(k));
        }
        assert!("pie".parse::<PlotKind>().unwrap_err().contains("factors"));
    }
}
