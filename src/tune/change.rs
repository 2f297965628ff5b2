//! The ready change: what an admin runs to put a point into production — the `qmgr` commands
//! of a PBS formula, the `slurm.conf` lines, or flux-accounting's `edit-factor` commands.

use crate::tune::eval::{Policy, Problem, FLUX_FACTORS, HALF_LIFE, SLURM_KNOBS};
use crate::tune::template::number;

/// `s` quoted for a POSIX shell.
fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// Seconds as Slurm writes a time (`D-HH:MM:SS`).
fn slurm_time(secs: f64) -> String {
    let s = secs.round().max(0.0) as u64;
    let (d, h, m, x) = (s / 86_400, s / 3600 % 24, s / 60 % 60, s % 60);
    format!("{d}-{h:02}:{m:02}:{x:02}")
}

/// The lines of the change that sets `values` (one command or setting a line).
pub fn ready_change(problem: &Problem, values: &[f64]) -> Vec<String> {
    let named = || problem.space.params.iter().zip(values.iter().copied());
    let half_life = named().find(|(p, _)| p.name == HALF_LIFE).map(|(_, v)| v);
    let mut out = Vec::new();
    match &problem.policy {
        Policy::Formula(t) => {
            let set = format!("set server job_sort_formula = \"{}\"", t.bind(values));
            out.push(format!("qmgr -c {}", shell_quote(&set)));
            if let Some(h) = half_life {
                // PBS multiplies usage by the factor every period: factor 0.5 every H seconds
                // is the continuous half-life H the replay used.
                out.push(format!(
                    "qmgr -c {}",
                    shell_quote(&format!("set sched fairshare_decay_time = {}", h.round()))
                ));
                out.push(format!(
                    "qmgr -c {}",
                    shell_quote("set sched fairshare_decay_factor = 0.5")
                ));
            }
        }
        Policy::Slurm { .. } => {
            out.push("# slurm.conf (then `scontrol reconfigure`)".into());
            for (p, v) in named() {
                match SLURM_KNOBS.iter().position(|n| *n == p.name) {
                    Some(6 | 7) => out.push(format!("{}={}", p.name, slurm_time(v))),
                    Some(_) => out.push(format!("{}={}", p.name, v.round() as u64)),
                    None if p.name == HALF_LIFE => {
                        out.push(format!("PriorityDecayHalfLife={}", slurm_time(v)))
                    }
                    None => {}
                }
            }
        }
        Policy::Flux(_) => {
            for (p, v) in named() {
                if FLUX_FACTORS.contains(&p.name.as_str()) {
                    out.push(format!(
                        "flux account edit-factor --factor={} --weight={}",
                        p.name,
                        v.round() as i64
                    ));
                }
            }
            if let Some(h) = half_life {
                out.push(format!(
                    "# flux-accounting's config_table: priority_decay_half_life = {}",
                    number(h.round())
                ));
            }
            out.push("flux account-priority-update".into());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting_and_slurm_times() {
        assert_eq!(shell_quote("a'b"), r"'a'\''b'");
        assert_eq!(slurm_time(90_061.0), "1-01:01:01");
        assert_eq!(slurm_time(604_800.0), "7-00:00:00");
    }
}
