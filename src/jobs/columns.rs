//! The numbers binding reads, column by column: a job set's per-job attributes and resource
//! requests laid out as one vector per attribute (job index order), so that binding a million
//! jobs streams through memory instead of visiting every `Job`. Built on demand
//! (`JobSet::build_columns`, `Binder::bind`), on every worker for a large queue, from the set's
//! parts (this file is below `job.rs`, which holds `JobSet`); `order::run` binds straight from
//! the jobs instead (`order_pass`).

use crate::jobs::job::{Job, Request, ResourceValue};
use crate::jobs::names::{Names, Sym};
use crate::parallel::{self, PARALLEL_MIN_JOBS};

/// One resource of every job as a column (job index order): the bound value, 0 when the job
/// does not request it, and the first job whose value is text (an error if a formula uses it).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ResourceColumn {
    /// Value per job in PBS units (0 = unrequested or text).
    pub values: Vec<f64>,
    /// The first job (index) whose value is not a number, with the text.
    pub first_text: Option<(u32, Box<str>)>,
}

/// The numbers binding reads, column by column (job index order).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Columns {
    /// Queue symbol per job.
    pub queue: Vec<Sym>,
    /// `Priority` per job.
    pub priority: Vec<f64>,
    /// `eligible_time` per job.
    pub eligible_time: Vec<f64>,
    /// `accrue_type` per job.
    pub accrue_type: Vec<f64>,
    /// Whether the job is runnable (queued) per job: the first thing the order sorts by.
    pub runnable: Vec<bool>,
    /// Per resource symbol.
    pub resources: Vec<ResourceColumn>,
}

/// What the columns are read from: a job set's `jobs` and the `requests` their ranges index.
#[derive(Clone, Copy)]
struct Jobs<'s> {
    jobs: &'s [Job],
    requests: &'s [Request],
}

impl<'s> Jobs<'s> {
    /// The resources a job requests (as `JobSet::requests`).
    fn requests(&self, job: &Job) -> &'s [Request] {
        self.requests.get(job.requests()).unwrap_or(&[])
    }
}

/// The columns' slots of a run of jobs, to be filled.
struct Part<'c> {
    queue: &'c mut [Sym],
    priority: &'c mut [f64],
    eligible_time: &'c mut [f64],
    accrue_type: &'c mut [f64],
    runnable: &'c mut [bool],
    resources: Vec<&'c mut [f64]>,
}

impl<'c> Part<'c> {
    fn of(cols: &'c mut Columns) -> Part<'c> {
        Part {
            queue: &mut cols.queue,
            priority: &mut cols.priority,
            eligible_time: &mut cols.eligible_time,
            accrue_type: &mut cols.accrue_type,
            runnable: &mut cols.runnable,
            resources: cols
                .resources
                .iter_mut()
                .map(|c| &mut c.values[..])
                .collect(),
        }
    }

    /// The slots of the first `at` jobs, and of the rest.
    fn split_at(self, at: usize) -> (Part<'c>, Part<'c>) {
        let (q0, q1) = self.queue.split_at_mut(at);
        let (p0, p1) = self.priority.split_at_mut(at);
        let (e0, e1) = self.eligible_time.split_at_mut(at);
        let (a0, a1) = self.accrue_type.split_at_mut(at);
        let (r0, r1) = self.runnable.split_at_mut(at);
        let (res0, res1) = self
            .resources
            .into_iter()
            .map(|c| c.split_at_mut(at))
            .unzip();
        (
            Part {
                queue: q0,
                priority: p0,
                eligible_time: e0,
                accrue_type: a0,
                runnable: r0,
                resources: res0,
            },
            Part {
                queue: q1,
                priority: p1,
                eligible_time: e1,
                accrue_type: a1,
                runnable: r1,
                resources: res1,
            },
        )
    }

    /// Fills the slots from the jobs starting at `first`; returns, per resource, the first job
    /// (index in the whole set) whose value is text, with the text's symbol.
    fn fill(mut self, set: Jobs<'_>, first: usize) -> Vec<Option<(u32, Sym)>> {
        let mut texts = vec![None; self.resources.len()];
        let jobs = set.jobs.get(first..).unwrap_or(&[]);
        let slots = (self.queue.iter_mut())
            .zip(self.priority.iter_mut())
            .zip(self.eligible_time.iter_mut())
            .zip(self.accrue_type.iter_mut())
            .zip(self.runnable.iter_mut());
        for (k, ((((queue, priority), eligible), accrue), runnable), j) in
            slots.zip(jobs).enumerate().map(|(k, (s, j))| (k, s, j))
        {
            *queue = j.queue;
            *priority = j.priority as f64;
            *eligible = j.eligible_time;
            *accrue = j.accrue_type as f64;
            *runnable = j.state.is_runnable();
            for r in set.requests(j) {
                let (sym, v) = (r.sym(), r.value());
                match v {
                    ResourceValue::Number(x) => {
                        let column = self.resources.get_mut(sym as usize);
                        if let Some(slot) = column.and_then(|c| c.get_mut(k)) {
                            *slot = x;
                        }
                    }
                    ResourceValue::Text(t) => {
                        if let Some(first_text @ None) = texts.get_mut(sym as usize) {
                            *first_text = Some(((first + k) as u32, t));
                        }
                    }
                }
            }
        }
        texts
    }
}

impl Columns {
    /// Builds the columns of a job set's jobs from its parts (`JobSet::build_columns` passes
    /// them): in parts on every worker for a large set.
    pub fn build(jobs: &[Job], requests: &[Request], resources: &Names, texts: &Names) -> Columns {
        let set = Jobs { jobs, requests };
        let n = set.jobs.len();
        let mut cols = Columns {
            queue: vec![0; n],
            priority: vec![0.0; n],
            eligible_time: vec![0.0; n],
            accrue_type: vec![0.0; n],
            runnable: vec![false; n],
            resources: (0..resources.len())
                .map(|_| ResourceColumn {
                    values: vec![0.0; n],
                    first_text: None,
                })
                .collect(),
        };
        let mut rest = Part::of(&mut cols);
        let mut parts = Vec::new();
        for r in parallel::ranges(n, PARALLEL_MIN_JOBS, 1) {
            let (part, tail) = rest.split_at(r.len());
            parts.push((r.start, part));
            rest = tail;
        }
        // Per resource, the first job whose value is text: the first part's that has one.
        let found = parallel::run_parts(parts, |(start, part)| part.fill(set, start));
        let mut first_texts = vec![None; cols.resources.len()];
        for part in found {
            for (first, text) in first_texts.iter_mut().zip(part) {
                if first.is_none() {
                    *first = text;
                }
            }
        }
        for (col, text) in cols.resources.iter_mut().zip(first_texts) {
            col.first_text = text.map(|(job, t)| (job, texts.name(t).into()));
        }
        cols
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jobs::job_set::JobSet;
    use crate::native::read_job_list_csv;

    /// The columns of a set, built job by job (the reference for the build in parts).
    fn one_by_one(set: &JobSet) -> Columns {
        let mut cols = Columns::default();
        let r = set.resources.len();
        cols.resources = vec![ResourceColumn::default(); r];
        for (i, j) in set.jobs.iter().enumerate() {
            cols.queue.push(j.queue);
            cols.priority.push(j.priority as f64);
            cols.eligible_time.push(j.eligible_time);
            cols.accrue_type.push(j.accrue_type as f64);
            cols.runnable.push(j.state.is_runnable());
            for c in &mut cols.resources {
                c.values.push(0.0);
            }
            for r in set.requests(j) {
                let (sym, v) = (r.sym(), r.value());
                let c = &mut cols.resources[sym as usize];
                match v {
                    ResourceValue::Number(x) => c.values[i] = x,
                    ResourceValue::Text(_) if c.first_text.is_none() => {
                        c.first_text = Some((i as u32, set.text(v).into()))
                    }
                    ResourceValue::Text(_) => {}
                }
            }
        }
        cols
    }

    #[test]
    fn parts_build_the_same_columns() {
        for n in [0, 3, PARALLEL_MIN_JOBS + 7, PARALLEL_MIN_JOBS * 3 + 5] {
            let mut csv = String::from("id,user,queue,state,priority,ncpus,place,mem\n");
            for i in 0..n {
                let place = if i % 50_000 == 40_000 { "free" } else { "" };
                let state = if i % 3 == 0 { "R" } else { "Q" };
                csv.push_str(&format!(
                    "{i},u{},q{},{state},{},{},{place},{}gb\n",
                    i % 7,
                    i % 3,
                    i % 11,
                    i % 5,
                    i % 4
                ));
            }
            let set = read_job_list_csv(csv.as_bytes()).unwrap();
            let columns = set.build_columns();
            assert_eq!(columns, one_by_one(&set), "{n} jobs");
            if n > PARALLEL_MIN_JOBS {
                let place = set.resources.get("place").unwrap() as usize;
                assert_eq!(
                    columns.resources[place].first_text.as_ref().unwrap().0,
                    40_000
                );
            }
        }
    }
}
