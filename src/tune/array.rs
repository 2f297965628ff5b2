//! A tune run as the site's own job array: the plan (the command line, the points, how they are
//! cut into tasks) and its script for `sbatch --array`, `qsub -J` or `flux bulksubmit`; each
//! task's results file, written atomically; and the merge of whatever results are there
//! (idempotent: each point is counted once, from the task that owns it; a missing or failed
//! task is named so it can be run again). No distribution layer of fairsort's own: the
//! scheduler runs the tasks, the shared directory carries the files.

use crate::files::atomic::write_atomic;
use crate::tune::error::TuneError;
use crate::tune::eval::Evaluation;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The plan's file in the run's directory.
pub const PLAN: &str = "plan.json";
/// The results' directory in the run's directory.
pub const RESULTS: &str = "results";
/// The tasks' logs.
pub const LOGS: &str = "logs";

/// Which scheduler runs the array.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Scheduler {
    /// `sbatch --array`.
    Slurm,
    /// `qsub -J`.
    Pbs,
    /// `flux bulksubmit`.
    Flux,
}

impl std::str::FromStr for Scheduler {
    type Err = String;
    fn from_str(s: &str) -> Result<Scheduler, String> {
        match s {
            "slurm" => Ok(Scheduler::Slurm),
            "pbs" => Ok(Scheduler::Pbs),
            "flux" => Ok(Scheduler::Flux),
            _ => Err(format!(
                "unknown scheduler `{s}` (expected slurm, pbs or flux)"
            )),
        }
    }
}

/// What every task and the merge read: the tune command line (without `--submit`), where it
/// was run from, the points in the order of the local run and the tasks' count.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Plan {
    /// The scheduler.
    pub scheduler: Scheduler,
    /// The fairsort binary the tasks run.
    pub exe: String,
    /// The working directory the command was given in (relative paths are relative to it).
    pub cwd: String,
    /// The arguments before `tune` (`--home DIR`).
    pub global: Vec<String>,
    /// The `fairsort tune` arguments (after `tune`), without `--submit`.
    pub args: Vec<String>,
    /// The points (values, in the space's order), in the order of the local run.
    pub points: Vec<Vec<f64>>,
    /// How many tasks share the points.
    pub tasks: usize,
}

/// One task's results file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskResults {
    /// The plan's digest: results of another plan in the same directory are not mixed in.
    pub plan: String,
    /// The task.
    pub task: usize,
    /// The index of its first point.
    pub first: usize,
    /// Its points' evaluations, in order.
    pub evaluations: Vec<Evaluation>,
}

/// A task that failed: its error, kept for the merge to report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskFailure {
    /// The plan's digest.
    pub plan: String,
    /// The task.
    pub task: usize,
    /// The error.
    pub error: String,
}

fn file_err(path: &Path, e: impl std::fmt::Display) -> TuneError {
    TuneError::File {
        path: path.display().to_string(),
        why: e.to_string(),
    }
}

impl Plan {
    /// The points of task `i`: a range of the point indices.
    pub fn slice(&self, i: usize) -> std::ops::Range<usize> {
        let n = self.points.len();
        let per = n.div_ceil(self.tasks.max(1)).max(1);
        let a = (i * per).min(n);
        a..((i + 1) * per).min(n)
    }

    /// The plan's digest (BLAKE3 of its JSON).
    pub fn digest(&self) -> String {
        let json = serde_json::to_vec(self).unwrap_or_default();
        blake3::hash(&json).to_hex()[..16].to_string()
    }

    /// Reads `dir`'s plan.
    pub fn read(dir: &Path) -> Result<Plan, TuneError> {
        let path = dir.join(PLAN);
        let text = std::fs::read_to_string(&path).map_err(|e| file_err(&path, e))?;
        let plan: Plan = serde_json::from_str(&text).map_err(|e| file_err(&path, e))?;
        if plan.tasks == 0 || plan.tasks > plan.points.len().max(1) {
            return Err(file_err(&path, "the task count does not fit the points"));
        }
        Ok(plan)
    }

    /// Writes the plan and its script into `dir` (created; an existing different plan there is
    /// an error, the same plan is rewritten as it was). Returns the script's path.
    pub fn write(&self, dir: &Path) -> Result<PathBuf, TuneError> {
        std::fs::create_dir_all(dir.join(RESULTS)).map_err(|e| file_err(dir, e))?;
        std::fs::create_dir_all(dir.join(LOGS)).map_err(|e| file_err(dir, e))?;
        let path = dir.join(PLAN);
        if path.exists() {
            let old = Plan::read(dir)?;
            if old.digest() != self.digest() {
                return Err(file_err(
                    &path,
                    "holds another plan: collect it, or give another directory",
                ));
            }
        }
        let json = serde_json::to_vec_pretty(self).map_err(|e| file_err(&path, e))?;
        write_atomic(&path, &json).map_err(|e| file_err(&path, e))?;
        let (name, text) = self.script(dir);
        let script = dir.join(name);
        write_atomic(&script, text.as_bytes()).map_err(|e| file_err(&script, e))?;
        Ok(script)
    }

    /// The script's file name and text.
    fn script(&self, dir: &Path) -> (&'static str, String) {
        let q = |s: &str| format!("'{}'", s.replace('\'', r"'\''"));
        let dir_s = dir.display().to_string();
        let logs = dir.join(LOGS).display().to_string();
        let task = |index: &str| {
            format!(
                "cd {} && exec {}{} tune task {} --index {index}\n",
                q(&self.cwd),
                q(&self.exe),
                self.global
                    .iter()
                    .map(|g| format!(" {}", q(g)))
                    .collect::<String>(),
                q(&dir_s)
            )
        };
        match self.scheduler {
            Scheduler::Slurm => (
                "tune.sbatch",
                format!(
                    "#!/bin/sh\n#SBATCH --job-name=fairsort-tune\n#SBATCH --array=0-{}\n#SBATCH --output={}/task-%a.out\n#SBATCH --ntasks=1\n{}",
                    self.tasks - 1,
                    logs,
                    task("\"$SLURM_ARRAY_TASK_ID\"")
                ),
            ),
            Scheduler::Pbs => (
                "tune.pbs",
                format!(
                    "#!/bin/sh\n#PBS -N fairsort-tune\n#PBS -j oe\n#PBS -o {logs}/\n# A subjob of `qsub -J`, or one task again with `qsub -v FAIRSORT_TUNE_INDEX=I`.\n{}",
                    task("\"${PBS_ARRAY_INDEX:-$FAIRSORT_TUNE_INDEX}\"")
                ),
            ),
            Scheduler::Flux => (
                "tune.flux",
                format!("#!/bin/sh\n# One task of `flux bulksubmit` (its index is the argument).\n{}", task("\"$1\"")),
            ),
        }
    }

    /// The command that submits `indices` (all tasks when `None`), as an argument vector.
    pub fn submit_command(&self, dir: &Path, indices: Option<&[usize]>) -> Vec<Vec<String>> {
        let all: Vec<usize> = (0..self.tasks).collect();
        let ids = indices.unwrap_or(&all);
        let s = |x: &str| x.to_string();
        let logs = dir.join(LOGS).display().to_string();
        match self.scheduler {
            Scheduler::Slurm => {
                let script = dir.join("tune.sbatch").display().to_string();
                let mut c = vec![s("sbatch")];
                if indices.is_some() {
                    let list: Vec<String> = ids.iter().map(usize::to_string).collect();
                    c.push(format!("--array={}", list.join(",")));
                }
                c.push(script);
                vec![c]
            }
            Scheduler::Pbs => {
                let script = dir.join("tune.pbs").display().to_string();
                if indices.is_none() && self.tasks > 1 {
                    return vec![vec![
                        s("qsub"),
                        s("-J"),
                        format!("0-{}", self.tasks - 1),
                        script,
                    ]];
                }
                ids.iter()
                    .map(|i| {
                        vec![
                            s("qsub"),
                            s("-v"),
                            format!("FAIRSORT_TUNE_INDEX={i}"),
                            script.clone(),
                        ]
                    })
                    .collect()
            }
            Scheduler::Flux => {
                let script = dir.join("tune.flux").display().to_string();
                let mut c = vec![
                    s("flux"),
                    s("bulksubmit"),
                    format!("--output={logs}/task-{{}}.out"),
                    s("sh"),
                    script,
                    s("{}"),
                    s(":::"),
                ];
                c.extend(ids.iter().map(usize::to_string));
                vec![c]
            }
        }
    }
}

/// The results file of task `i`.
fn results_path(dir: &Path, i: usize) -> PathBuf {
    dir.join(RESULTS).join(format!("task-{i}.json"))
}

/// The failure file of task `i`.
fn failure_path(dir: &Path, i: usize) -> PathBuf {
    dir.join(RESULTS).join(format!("task-{i}.failed"))
}

/// Records task `i`'s outcome in `dir`, atomically: its evaluations, or its error.
pub fn record_task(
    dir: &Path,
    plan: &Plan,
    i: usize,
    outcome: Result<Vec<Evaluation>, String>,
) -> Result<(), TuneError> {
    let digest = plan.digest();
    match outcome {
        Ok(evaluations) => {
            let r = TaskResults {
                plan: digest,
                task: i,
                first: plan.slice(i).start,
                evaluations,
            };
            let path = results_path(dir, i);
            let json = serde_json::to_vec(&r).map_err(|e| file_err(&path, e))?;
            write_atomic(&path, &json).map_err(|e| file_err(&path, e))?;
            let failed = failure_path(dir, i);
            if failed.exists() {
                std::fs::remove_file(&failed).map_err(|e| file_err(&failed, e))?;
            }
        }
        Err(error) => {
            let f = TaskFailure {
                plan: digest,
                task: i,
                error,
            };
            let path = failure_path(dir, i);
            let json = serde_json::to_vec(&f).map_err(|e| file_err(&path, e))?;
            write_atomic(&path, &json).map_err(|e| file_err(&path, e))?;
        }
    }
    Ok(())
}

/// What the merge found.
#[derive(Debug, Clone, PartialEq)]
pub struct Collected {
    /// Every point's evaluation, in the plan's order, where its task has finished.
    pub evaluations: Vec<Option<Evaluation>>,
    /// Tasks with neither results nor a failure (not run yet, running, or lost).
    pub missing: Vec<usize>,
    /// Tasks that failed, with their errors.
    pub failed: Vec<(usize, String)>,
}

impl Collected {
    /// Every evaluation, when all tasks have finished.
    pub fn complete(&self) -> Option<Vec<Evaluation>> {
        self.evaluations.iter().cloned().collect()
    }
}

/// Merges the results in `dir`: each task's file is read (only a file of this plan whose
/// points are exactly its task's slice counts); reading changes nothing, so it can be run
/// again at any time.
pub fn collect(dir: &Path, plan: &Plan) -> Result<Collected, TuneError> {
    let digest = plan.digest();
    let mut evaluations: Vec<Option<Evaluation>> = vec![None; plan.points.len()];
    let (mut missing, mut failed) = (Vec::new(), Vec::new());
    for i in 0..plan.tasks {
        let slice = plan.slice(i);
        let path = results_path(dir, i);
        let results: Option<TaskResults> = match std::fs::read_to_string(&path) {
            Ok(t) => Some(serde_json::from_str(&t).map_err(|e| file_err(&path, e))?),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => return Err(file_err(&path, e)),
        };
        match results {
            Some(r) if r.plan == digest => {
                let fits = r.task == i
                    && r.first == slice.start
                    && r.evaluations.len() == slice.len()
                    && r.evaluations
                        .iter()
                        .zip(&plan.points[slice.clone()])
                        .all(|(e, p)| e.values == *p);
                if !fits {
                    return Err(file_err(
                        &path,
                        "its points are not the plan's for this task",
                    ));
                }
                for (slot, e) in evaluations[slice].iter_mut().zip(r.evaluations) {
                    *slot = Some(e);
                }
            }
            Some(_) => return Err(file_err(&path, "belongs to another plan")),
            None => {
                let fpath = failure_path(dir, i);
                match std::fs::read_to_string(&fpath) {
                    Ok(t) => {
                        let f: TaskFailure =
                            serde_json::from_str(&t).map_err(|e| file_err(&fpath, e))?;
                        failed.push((i, f.error));
                    }
                    Err(_) => missing.push(i),
                }
            }
        }
    }
    Ok(Collected {
        evaluations,
        missing,
        failed,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn plan(n: usize, tasks: usize) -> Plan {
        Plan {
            scheduler: Scheduler::Slurm,
            exe: "/usr/bin/fairsort".into(),
            cwd: "/tmp".into(),
            global: Vec::new(),
            args: vec!["--trace".into(), "t.swf".into()],
            points: (0..n).map(|i| vec![i as f64]).collect(),
            tasks,
        }
    }

    fn ev(v: f64) -> Evaluation {
        Evaluation {
            values: vec![v],
            objectives: BTreeMap::from([("share-error".to_string(), v)]),
        }
    }

    #[test]
    fn slices_cover_every_point_once() {
        let p = plan(10, 4);
        let covered: Vec<usize> = (0..4).flat_map(|i| p.slice(i)).collect();
        assert_eq!(covered, (0..10).collect::<Vec<_>>());
        assert_eq!(p.slice(3), 9..10);
    }

    #[test]
    fn collect_is_idempotent_and_names_what_is_missing() {
        let dir = tempfile::tempdir().unwrap();
        let p = plan(5, 3);
        p.write(dir.path()).unwrap();
        // The same plan again is fine; another is refused.
        p.write(dir.path()).unwrap();
        assert!(plan(6, 3).write(dir.path()).is_err());
        let evals = |i: usize| Ok(p.slice(i).map(|k| ev(k as f64)).collect());
        record_task(dir.path(), &p, 0, evals(0)).unwrap();
        record_task(dir.path(), &p, 2, Err("boom".into())).unwrap();
        let c = collect(dir.path(), &p).unwrap();
        assert_eq!(c.missing, vec![1]);
        assert_eq!(c.failed, vec![(2, "boom".to_string())]);
        assert!(c.complete().is_none());
        // Resubmitted: task 0 again (the same file, counted once), 1 and 2 now succeed.
        for i in 0..3 {
            record_task(dir.path(), &p, i, evals(i)).unwrap();
        }
        let c = collect(dir.path(), &p).unwrap();
        assert_eq!(c, collect(dir.path(), &p).unwrap());
        let all = c.complete().unwrap();
        assert_eq!(all.len(), 5);
        assert!(all
            .iter()
            .enumerate()
            .all(|(i, e)| e.values == vec![i as f64]));
        assert!(c.failed.is_empty() && c.missing.is_empty());
        assert_eq!(
            p.submit_command(dir.path(), Some(&[1, 2]))[0][1],
            "--array=1,2"
        );
    }

    #[test]
    fn results_of_the_wrong_points_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let p = plan(4, 2);
        p.write(dir.path()).unwrap();
        record_task(dir.path(), &p, 1, Ok(vec![ev(0.0), ev(1.0)])).unwrap();
        assert!(collect(dir.path(), &p).is_err());
    }
}
