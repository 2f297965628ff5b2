//! `fairsort tune --submit slurm|pbs|flux DIR`, `tune task DIR --index I` and `tune collect
//! DIR`: the plan written and submitted as one job array, each task's slice replayed and its
//! results file written, and the merge that gives the local run's report.

use super::{output, setup, tune_err, Args, SearchArgs};
use crate::cli::{CliResult, Failure, Global};
use clap::Parser;
use fairsort::tune::array::{self as plan_files, Plan, Scheduler};
use fairsort::tune::search::design;
use fairsort::tune::Method;
use std::path::Path;

/// The `tune` arguments of this process's command line without `--submit`, `--tasks` and
/// `--plan-only` (what every task parses again), and the arguments before `tune`.
fn own_args() -> (Vec<String>, Vec<String>) {
    let all: Vec<String> = std::env::args().skip(1).collect();
    let at = all.iter().position(|a| a == "tune").unwrap_or(all.len());
    let before = all[..at].to_vec();
    let mut out = Vec::new();
    let mut it = all.into_iter().skip(at + 1);
    while let Some(a) = it.next() {
        match a.as_str() {
            "--submit" => {
                it.next();
                it.next();
            }
            "--tasks" => {
                it.next();
            }
            "--plan-only" => {}
            _ if a.starts_with("--tasks=") || a.starts_with("--submit=") => {}
            _ => out.push(a),
        }
    }
    (before, out)
}

/// `path` made absolute against the current directory.
fn absolute(path: &Path) -> Result<std::path::PathBuf, Failure> {
    std::path::absolute(path).map_err(|e| Failure::user(format!("{}: {e}", path.display())))
}

/// The search arguments a plan was made with, parsed again, from the directory it was made in
/// (its relative paths are relative to it): the process moves there.
fn plan_args(plan: &Plan) -> Result<(SearchArgs, Global), Failure> {
    std::env::set_current_dir(&plan.cwd).map_err(|e| {
        Failure::user(format!(
            "cannot enter the plan's directory {}: {e}",
            plan.cwd
        ))
    })?;
    let mut argv = vec!["fairsort".to_string()];
    argv.extend(plan.global.iter().cloned());
    argv.push("tune".into());
    argv.extend(plan.args.iter().cloned());
    let cli = crate::cli::Cli::try_parse_from(&argv).map_err(|e| {
        Failure::user(format!(
            "the plan's command line does not parse: {}",
            e.kind()
        ))
    })?;
    match cli.command {
        crate::cli::Command::Tune(a) => {
            let Args { search, .. } = *a;
            Ok((search, cli.global))
        }
        _ => Err(Failure::user(
            "the plan's command line is not `fairsort tune`",
        )),
    }
}

/// Writes the plan and the script, and submits it (unless `--plan-only`).
pub(super) fn submit(args: &SearchArgs, global: &Global) -> CliResult {
    let (sched, dir) = match args.submit.as_deref() {
        Some([s, d]) => (
            s.parse::<Scheduler>().map_err(Failure::usage)?,
            Path::new(d),
        ),
        _ => return Err(Failure::usage("--submit takes SCHEDULER DIR")),
    };
    if args.search == Some(Method::Optimise) {
        return Err(Failure::usage(
            "--submit runs a fixed design: give --search random or grid (the optimiser's steps depend on each other; run it locally)",
        ));
    }
    let s = setup(args, global)?;
    let points = design(&s.problem, s.method, s.budget, s.seed);
    let tasks = args
        .tasks
        .map_or(10, |t| usize::try_from(t).unwrap_or(usize::MAX))
        .min(points.len())
        .max(1);
    let (before, rest) = own_args();
    let mut global_args = before;
    if let (Some(h), false) = (
        &global.home,
        global_args.iter().any(|a| a.starts_with("--home")),
    ) {
        global_args.extend(["--home".to_string(), h.display().to_string()]);
    }
    let mut rest = rest;
    if args.search.is_none() {
        rest.extend(["--search".to_string(), s.method.name().to_string()]);
    }
    let exe = std::env::current_exe()
        .map_err(|e| Failure::user(format!("cannot find the fairsort binary: {e}")))?;
    let cwd = std::env::current_dir()
        .map_err(|e| Failure::user(format!("cannot read the working directory: {e}")))?;
    let dir = if dir.is_absolute() {
        dir.to_path_buf()
    } else {
        cwd.join(dir)
    };
    let plan = Plan {
        scheduler: sched,
        exe: exe.display().to_string(),
        cwd: cwd.display().to_string(),
        global: global_args,
        args: rest,
        points,
        tasks,
    };
    let script = plan.write(&dir).map_err(tune_err)?;
    crate::outln!(
        "plan: {} points in {} tasks, {}",
        plan.points.len(),
        plan.tasks,
        script.display()
    );
    for cmd in plan.submit_command(&dir, None) {
        if args.plan_only {
            crate::outln!("submit with: {}", shell_line(&cmd));
            continue;
        }
        let mut command = std::process::Command::new(&cmd[0]);
        if sched == Scheduler::Slurm {
            // Only the job id on stdout.
            command.arg("--parsable");
        }
        let out = command
            .args(&cmd[1..])
            .output()
            .map_err(|e| Failure::user(format!("{}: {e}", cmd[0])))?;
        if !out.status.success() {
            return Err(Failure::user(format!(
                "{} failed: {}",
                shell_line(&cmd),
                String::from_utf8_lossy(&out.stderr).trim()
            )));
        }
        crate::outln!(
            "submitted: {} ({})",
            shell_line(&cmd),
            String::from_utf8_lossy(&out.stdout).trim()
        );
    }
    crate::outln!("then: fairsort tune collect {}", dir.display());
    Ok(())
}

/// A command as a shell line (arguments quoted where needed).
fn shell_line(cmd: &[String]) -> String {
    cmd.iter()
        .map(|a| {
            if a.chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_./=,:{}%".contains(c))
            {
                a.clone()
            } else {
                format!("'{}'", a.replace('\'', r"'\''"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// One task: its slice replayed and its results (or its error) written.
pub(super) fn task(dir: &Path, index: usize) -> CliResult {
    let dir = &absolute(dir)?;
    let plan = Plan::read(dir).map_err(tune_err)?;
    if index >= plan.tasks {
        return Err(Failure::usage(format!(
            "--index {index}: the plan has tasks 0 to {}",
            plan.tasks - 1
        )));
    }
    let outcome = (|| {
        let (args, global) = plan_args(&plan)?;
        let s = setup(&args, &global)?;
        let points = plan.points[plan.slice(index)].to_vec();
        s.problem
            .evaluate_all(points)
            .into_iter()
            .collect::<Result<Vec<_>, _>>()
            .map_err(tune_err)
    })();
    let failed = outcome.as_ref().err().map(|f| f.message.clone());
    plan_files::record_task(dir, &plan, index, outcome.map_err(|f| f.message)).map_err(tune_err)?;
    match failed {
        Some(m) => Err(Failure::user(format!("task {index}: {m}"))),
        None => Ok(()),
    }
}

/// Merges the results: the report when every task is in, else what is missing and how to run
/// it again (exit 1).
pub(super) fn collect(dir: &Path, json: bool, plot: Option<&Path>) -> CliResult {
    let dir = &absolute(dir)?;
    let plot = plot.map(absolute).transpose()?;
    let plot = plot.as_deref();
    let plan = Plan::read(dir).map_err(tune_err)?;
    let got = plan_files::collect(dir, &plan).map_err(tune_err)?;
    let Some(evaluations) = got.complete() else {
        let mut again: Vec<usize> = got.missing.clone();
        again.extend(got.failed.iter().map(|(i, _)| *i));
        again.sort_unstable();
        for (i, e) in &got.failed {
            crate::cli::say::line(format_args!("task {i} failed: {e}"));
        }
        let cmds: Vec<String> = plan
            .submit_command(dir, Some(&again))
            .iter()
            .map(|c| shell_line(c))
            .collect();
        let list: Vec<String> = again.iter().map(usize::to_string).collect();
        return Err(Failure::user(format!(
            "{}: {} of {} tasks have no results (missing: {}; failed: {}): tasks {}; run them again with: {}",
            dir.display(),
            again.len(),
            plan.tasks,
            got.missing.len(),
            got.failed.len(),
            list.join(","),
            cmds.join(" && ")
        )));
    };
    let (args, global) = plan_args(&plan)?;
    let s = setup(&args, &global)?;
    let best = s
        .aim
        .best(&evaluations)
        .ok_or_else(|| Failure::user("the plan has no points"))?;
    output::report(&s, &evaluations, best, None, json, plot)
}
