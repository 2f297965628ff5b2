//! The reasons a job waits, as PBS's scheduler writes them in the job's `comment`
//! (`job_info.cpp`'s messages, `check.cpp`'s `(R: A: T:)` figures, `misc.cpp`'s sizes).

use crate::replay::Why;

/// PBS's comment for a job that did not start for `why`.
pub fn pbs_comment(why: &Why) -> String {
    match *why {
        Why::Insufficient {
            resource,
            need,
            free,
            total,
        } => format!(
            "Not Running: Insufficient amount of resource: {resource} (R: {} A: {} T: {})",
            amount(resource, need),
            amount(resource, free),
            amount(resource, total)
        ),
        Why::NoFreeNodes => "Not Running: Not enough free nodes available".to_string(),
        Why::Conflict => "Not Running: Job would conflict with reservation or top job".to_string(),
        Why::StrictOrder => "Not Running: Job would break strict sorted order".to_string(),
        // Slurm's limit on the jobs one backfill cycle tests: PBS has none
        Why::NotTested => "Not Running: not reached this cycle".to_string(),
    }
}

/// PBS's comment for a job larger than the whole complex.
pub fn pbs_never(resource: &str, need: u64, total: u64) -> String {
    format!(
        "Can Never Run: Insufficient amount of resource: {resource} (R: {} A: {} T: {})",
        amount(resource, need),
        amount(resource, total),
        amount(resource, total)
    )
}

/// An amount as PBS prints it: sizes (KB) in the largest unit that divides them.
fn amount(resource: &str, v: u64) -> String {
    if resource != "mem" {
        return v.to_string();
    }
    const K: u64 = 1024;
    match v {
        0 => "0kb".to_string(),
        v if v % (K * K * K) == 0 => format!("{}tb", v / (K * K * K)),
        v if v % (K * K) == 0 => format!("{}gb", v / (K * K)),
        v if v % K == 0 => format!("{}mb", v / K),
        v => format!("{v}kb"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The comments of the real cycles in `tests/data/pbs_forecast`.
    #[test]
    fn comments_are_pbs_sched_s() {
        let mem = Why::Insufficient {
            resource: "mem",
            need: 30 << 20,
            free: 24 << 20,
            total: 32 << 20,
        };
        assert_eq!(
            pbs_comment(&mem),
            "Not Running: Insufficient amount of resource: mem (R: 30gb A: 24gb T: 32gb)"
        );
        assert_eq!(
            pbs_never("ncpus", 16, 8),
            "Can Never Run: Insufficient amount of resource: ncpus (R: 16 A: 8 T: 8)"
        );
        assert_eq!(amount("mem", 8388608 + 1024), "8193mb");
        assert_eq!(amount("mem", 1), "1kb");
        assert_eq!(amount("mem", 0), "0kb");
    }
}
