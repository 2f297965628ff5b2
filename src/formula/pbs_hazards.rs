//! Where the real pbs_sched (OpenPBS 23.06) crashes or misbehaves on a formula its server
//! accepted, so fairsort can warn before a site sets it. Seen in captured cycles
//! (`tests/data/pbs_cycles/crash_*`, `formula_dquote*`) and explained by `formula_evaluate`
//! (`src/scheduler/job_info.cpp`): pbs_sched pastes the formula into
//! `_FORMANS_ = eval("FORMULA", globals_dict, locals())` in one Python `__main__` kept for its
//! whole life, then reads `_FORMANS_` back with `PyFloat_AsDouble`, outside the `try`.
//!
//! * A `"` in the formula ends that string: the script does not compile and `_FORMANS_` keeps
//!   what it held. Before any job had a value since pbs_sched started it does not exist: the
//!   look-up leaves a Python error set and pbs_sched crashes (SIGSEGV; it aborts within five
//!   minutes of its start, restarts later). After a good cycle every job silently gets the
//!   previous job's value.
//! * A result that is no real number (complex) or an int beyond the double range: pbs_sched
//!   logs `Formula Evaluation = -1`, the conversion's error stays set, and it dies on the next
//!   job.
//! * An error (the formula raises) on the first job evaluated since pbs_sched started: the job
//!   gets 0, `_FORMANS_` does not exist yet, and pbs_sched crashes as above.
//!
//! [`static_hazards`] reads the formula's text; [`Watch`] (or [`run_hazards`]) follows the
//! per-job results in the order pbs_sched evaluates the jobs.

use crate::formula::program::Program;
use crate::formula::value::Value;

/// The pbs_sched these hazards were seen on.
pub const PBS_SCHED_VERSION: &str = "OpenPBS 23.06";

/// One way the real pbs_sched would crash or misbehave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Hazard {
    /// The formula holds a `"` (at this byte offset).
    DoubleQuote {
        /// Byte offset of the first `"`.
        at: usize,
    },
    /// The formula names `None` (at this byte offset): a job whose result is `None` is no
    /// number either (fairsort's formula language has no `None`, so only the text can tell).
    NoneValue {
        /// Byte offset of `None`.
        at: usize,
    },
    /// The job's result is a complex number.
    NotReal {
        /// The job.
        job: String,
    },
    /// The job's result is an int too large for a double.
    IntBeyondDouble {
        /// The job.
        job: String,
    },
    /// The job, the first evaluated since pbs_sched started, raises.
    FirstJobError {
        /// The job.
        job: String,
        /// Python's message (`str(exception)`).
        message: String,
    },
}

impl Hazard {
    /// The job it names (none for a hazard of the formula's text).
    pub fn job(&self) -> Option<&str> {
        match self {
            Hazard::DoubleQuote { .. } | Hazard::NoneValue { .. } => None,
            Hazard::NotReal { job }
            | Hazard::IntBeyondDouble { job }
            | Hazard::FirstJobError { job, .. } => Some(job),
        }
    }

    /// One line for people, naming the job and the PBS version.
    pub fn render(&self) -> String {
        let v = PBS_SCHED_VERSION;
        match self {
            Hazard::DoubleQuote { at } => format!(
                "{v} pbs_sched: the `\"` at column {} ends the string pbs_sched evaluates the \
                 formula in: it crashes on the first job evaluated after it starts, and after a \
                 good cycle every job gets the previous job's value",
                at + 1
            ),
            Hazard::NoneValue { at } => format!(
                "{v} pbs_sched: the `None` at column {} makes a job's result no number: \
                 pbs_sched logs `Formula Evaluation = -1` for the first such job and dies on \
                 the next job",
                at + 1
            ),
            Hazard::NotReal { job } => format!(
                "{v} pbs_sched: job {job}'s formula result is a complex number: pbs_sched logs \
                 `Formula Evaluation = -1` for it and dies on the next job"
            ),
            Hazard::IntBeyondDouble { job } => format!(
                "{v} pbs_sched: job {job}'s formula result is an int too large for a double: \
                 pbs_sched logs `Formula Evaluation = -1` for it and dies on the next job"
            ),
            Hazard::FirstJobError { job, message } => format!(
                "{v} pbs_sched: job {job}, the first evaluated after pbs_sched starts, raises \
                 ({message}): pbs_sched gives it 0 and then crashes"
            ),
        }
    }
}

/// The hazards of the formula's text alone (a `"`; the name `None`). O(length).
pub fn static_hazards(src: &str) -> Vec<Hazard> {
    let mut out: Vec<Hazard> = src
        .find('"')
        .map(|at| Hazard::DoubleQuote { at })
        .into_iter()
        .collect();
    if let Some(at) = find_word(src, "None") {
        out.push(Hazard::NoneValue { at });
    }
    out
}

/// The byte offset of `word` standing alone (not inside a longer name), if any.
fn find_word(src: &str, word: &str) -> Option<usize> {
    let is_name = |c: char| c.is_alphanumeric() || c == '_';
    src.match_indices(word).map(|(i, _)| i).find(|&i| {
        let before = src[..i].chars().next_back();
        let after = src[i + word.len()..].chars().next();
        !before.is_some_and(is_name) && !after.is_some_and(is_name)
    })
}

/// pbs_sched's state across the jobs it evaluates since it started: whether some job had a
/// value yet (then `_FORMANS_` exists, and an error no longer crashes it).
#[derive(Debug, Clone, Default)]
pub struct Watch {
    had_value: bool,
}

impl Watch {
    /// The state of a pbs_sched that just started.
    pub fn new() -> Self {
        Watch::default()
    }

    /// The state of a pbs_sched that already gave some job a value (a later cycle).
    pub fn after_a_value() -> Self {
        Watch { had_value: true }
    }

    /// The hazard of the next job pbs_sched evaluates, given Python's result of the formula
    /// for it ([`Program::eval_python`]).
    pub fn observe(&mut self, job: &str, result: &Result<Value, String>) -> Option<Hazard> {
        let job = job.to_string();
        match result {
            Ok(Value::Complex(..)) => Some(Hazard::NotReal { job }),
            Ok(v) if v.to_f64().is_err() => Some(Hazard::IntBeyondDouble { job }),
            Ok(_) => {
                self.had_value = true;
                None
            }
            Err(message) if !self.had_value => Some(Hazard::FirstJobError {
                job,
                message: message.clone(),
            }),
            Err(_) => None,
        }
    }
}

/// The hazards of `program` over `jobs` (name and slot values, in the order pbs_sched
/// evaluates them) for a pbs_sched that just started: its text's hazards, then the first job
/// that would crash it (pbs_sched evaluates no further job after that). O(jobs).
pub fn run_hazards<'a>(
    program: &Program,
    jobs: impl IntoIterator<Item = (&'a str, &'a [f64])>,
) -> Vec<Hazard> {
    let mut out = static_hazards(program.source());
    let mut watch = Watch::new();
    for (job, slots) in jobs {
        if let Some(h) = watch.observe(job, &program.eval_python(slots)) {
            out.push(h);
            break;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formula::{compile, ResourceTable};

    fn program(src: &str) -> Program {
        compile(src, &ResourceTable::default()).expect("compiles")
    }

    #[test]
    fn a_double_quote_is_flagged_where_it_is() {
        assert_eq!(
            static_hazards("ncpus + (1 if \"a\" else 0)"),
            vec![Hazard::DoubleQuote { at: 14 }]
        );
        assert!(static_hazards("ncpus * 2").is_empty());
        assert_eq!(
            static_hazards("None if ncpus == 2 else ncpus"),
            vec![Hazard::NoneValue { at: 0 }]
        );
        assert!(static_hazards("Nonetheless + xNone").is_empty());
        assert!(Hazard::DoubleQuote { at: 0 }
            .render()
            .contains("OpenPBS 23.06"));
    }

    #[test]
    fn complex_and_big_results_crash_the_next_job() {
        let p = program("(ncpus - 3)**0.5");
        let h = run_hazards(&p, [("1.h", &[4.0][..]), ("2.h", &[1.0][..])]);
        assert_eq!(h, vec![Hazard::NotReal { job: "2.h".into() }]);
        let p = program("10**(100*ncpus)");
        let h = run_hazards(&p, [("1.h", &[1.0][..]), ("2.h", &[4.0][..])]);
        assert_eq!(h, vec![Hazard::IntBeyondDouble { job: "2.h".into() }]);
        assert!(h[0].render().contains("job 2.h"));
    }

    #[test]
    fn only_an_error_before_any_value_crashes() {
        let p = program("ncpus + 1/(ncpus-1)");
        let first = run_hazards(&p, [("1.h", &[1.0][..]), ("2.h", &[2.0][..])]);
        assert!(matches!(&first[..], [Hazard::FirstJobError { job, .. }] if job == "1.h"));
        let later = run_hazards(&p, [("1.h", &[2.0][..]), ("2.h", &[1.0][..])]);
        assert!(later.is_empty(), "{later:?}");
        let mut warm = Watch::after_a_value();
        assert_eq!(warm.observe("1.h", &Err("division by zero".into())), None);
    }

    #[test]
    fn a_harmless_formula_has_none() {
        let p = program("pow(2, -(fairshare_tree_usage/fairshare_perc))");
        let jobs = [("1.h", &[1.0, 0.5][..]), ("2.h", &[0.0, 0.25][..])];
        assert!(run_hazards(&p, jobs).is_empty());
    }
}
