//! Where each input of a report came from (the home, a file or flag, an example, a trace, a
//! default), so every report (`order`, `share`, `replay`, `plot`) can name them in its header
//! and its JSON: the tree (with what the home records of its import), the usage, the formula or
//! weights, the algorithm and the half-life.

use crate::home::{Provenance, SiteKind};
use serde::Serialize;

/// The kind of place an input came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum From {
    /// The home (its file named in `path`).
    Home,
    /// A file given on the command line (its flag in `flag`).
    File,
    /// A flag's value.
    Flag,
    /// A built-in example.
    Example,
    /// Built from the replayed trace.
    Trace,
    /// fairsort's (or the scheduler's) default.
    Default,
    /// Not given and not used.
    None,
}

/// Where one input came from, and what it is.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Source {
    /// The kind of place.
    pub from: From,
    /// The flag that gave it (`--tree`, `--formula`), when a flag did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub flag: Option<String>,
    /// The file: the home's file, the file given, the trace, the example's name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// What it is, in a word or a number's text (a tree's format, an algorithm's name, a
    /// half-life in seconds, the formula's text).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    /// How the value was derived, when it was (`fairshare_decay_time 86400 s, factor 0.5`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// What the home records of the part's import (`site.toml`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub imported: Option<Provenance>,
}

impl Source {
    /// A source of kind `from` with nothing else known.
    pub fn new(from: From) -> Source {
        Source {
            from,
            flag: None,
            path: None,
            value: None,
            detail: None,
            imported: None,
        }
    }

    /// Not given and not used.
    pub fn none() -> Source {
        Source::new(From::None)
    }

    /// The home's file `path`.
    pub fn home(path: impl Into<String>) -> Source {
        Source::new(From::Home).path(path)
    }

    /// A file given with `flag`.
    pub fn file(flag: &str, path: impl Into<String>) -> Source {
        Source {
            flag: Some(flag.to_string()),
            ..Source::new(From::File).path(path)
        }
    }

    /// A flag's value.
    pub fn flag(flag: &str) -> Source {
        Source {
            flag: Some(flag.to_string()),
            ..Source::new(From::Flag)
        }
    }

    /// A built-in example.
    pub fn example(name: impl Into<String>) -> Source {
        Source::new(From::Example).path(name)
    }

    /// This file.
    pub fn path(mut self, path: impl Into<String>) -> Source {
        self.path = Some(path.into());
        self
    }

    /// This value.
    pub fn value(mut self, value: impl Into<String>) -> Source {
        self.value = Some(value.into());
        self
    }

    /// This derivation.
    pub fn detail(mut self, detail: impl Into<String>) -> Source {
        self.detail = Some(detail.into());
        self
    }

    /// What the home records of the import.
    pub fn imported(mut self, p: Option<Provenance>) -> Source {
        self.imported = p;
        self
    }
}

/// The sources of a report's inputs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Sources {
    /// The scheduler whose path the report took (`pbs`, `slurm`, `flux`).
    pub scheduler: &'static str,
    /// The site the home describes, when a home was read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub site: Option<SiteKind>,
    /// The share tree.
    pub tree: Source,
    /// The usage applied over it.
    pub usage: Source,
    /// The formula (or a Slurm/flux site's weights).
    pub formula: Source,
    /// The fair-share algorithm.
    pub algorithm: Source,
    /// The usage half-life (`value`: seconds).
    pub half_life: Source,
}

impl Default for Sources {
    fn default() -> Self {
        Sources {
            scheduler: "pbs",
            site: None,
            tree: Source::none(),
            usage: Source::none(),
            formula: Source::none(),
            algorithm: Source::new(From::Default),
            half_life: Source::none(),
        }
    }
}

pub use crate::home::site::pbs_half_life;

/// The half-life source of a PBS decay `(period, factor)` taken from `from`.
pub fn pbs_decay_source(from: Source, period: u64, factor: f64) -> Source {
    from.value(format!("{}", pbs_half_life(period as f64, factor)))
        .detail(format!(
            "fairshare_decay_time {period} s, fairshare_decay_factor {factor}"
        ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_halving_each_day_has_a_one_day_half_life() {
        assert!((pbs_half_life(86_400.0, 0.5) - 86_400.0).abs() < 1e-6);
        let s = pbs_decay_source(Source::home("/h/server.toml"), 86_400, 0.5);
        assert_eq!(s.value.as_deref(), Some("86400"));
        let json = serde_json::to_value(&s).unwrap();
        assert_eq!(json["from"], "home");
        assert!(json.get("flag").is_none());
    }
}
