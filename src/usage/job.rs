//! `FinishedJob`: one charged job as every record reader produces it, and the key that makes
//! recording idempotent.

use serde::Serialize;

/// Which scheduler's records a job came from (the ledger keeps them apart).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Source {
    /// PBS accounting log `E` record.
    Pbs,
    /// Slurm `sacct -P` row.
    Slurm,
    /// flux-accounting `jobs` table row.
    Flux,
}

impl Source {
    /// The ledger's spelling.
    pub fn name(self) -> &'static str {
        match self {
            Source::Pbs => "pbs",
            Source::Slurm => "slurm",
            Source::Flux => "flux",
        }
    }

    /// Parses the ledger's spelling.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "pbs" => Some(Source::Pbs),
            "slurm" => Some(Source::Slurm),
            "flux" => Some(Source::Flux),
            _ => None,
        }
    }
}

/// A finished job with its charge, ready to be added to an entity's usage once.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FinishedJob {
    /// Where it came from.
    pub source: Source,
    /// The scheduler's job id.
    pub id: String,
    /// End time (epoch seconds): with the id, the job's identity (ids can be reused).
    pub end: i64,
    /// The fair-share entity charged (PBS: per `fairshare_entity`; Slurm/flux: the user).
    pub entity: String,
    /// The account/bank for Slurm and flux associations; None for PBS.
    pub account: Option<String>,
    /// The usage charged.
    pub charge: f64,
}

impl FinishedJob {
    /// A job from a PBS accounting log: PBS charges an entity, never an account.
    pub fn pbs(id: impl Into<String>, end: i64, entity: impl Into<String>, charge: f64) -> Self {
        FinishedJob {
            source: Source::Pbs,
            id: id.into(),
            end,
            entity: entity.into(),
            account: None,
            charge,
        }
    }
}

/// A job whose charge was checked and whose ledger line was formatted on a parsing thread, as
/// charging sees it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PreparedCharge<'a> {
    /// [`fingerprint`] of (pbs, id, end).
    pub fp: u128,
    /// The charge (checked: finite, >= 0).
    pub charge: f64,
    /// Its ledger line, with the `\n`.
    pub line: &'a str,
    /// The entity (checked: a valid name).
    pub entity: &'a str,
}

/// A 128-bit FNV-1a fingerprint of (source, id, end): the ledger's in-memory key.
pub(crate) fn fingerprint(source: Source, id: &str, end: i64) -> u128 {
    const OFFSET: u128 = 0x6c62272e07bb014262b821756295c58d;
    const PRIME: u128 = 0x0000000001000000000000000000013B;
    let mut h = OFFSET;
    let mut eat = |bytes: &[u8]| {
        for b in bytes {
            h ^= u128::from(*b);
            h = h.wrapping_mul(PRIME);
        }
    };
    eat(source.name().as_bytes());
    eat(&[0]);
    eat(id.as_bytes());
    eat(&[0]);
    eat(&end.to_le_bytes());
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fingerprints_differ_by_each_part() {
        let a = fingerprint(Source::Pbs, "1.srv", 10);
        assert_eq!(a, fingerprint(Source::Pbs, "1.srv", 10));
        assert_ne!(a, fingerprint(Source::Slurm, "1.srv", 10));
        assert_ne!(a, fingerprint(Source::Pbs, "1.srv", 11));
        assert_ne!(a, fingerprint(Source::Pbs, "2.srv", 10));
    }
}
