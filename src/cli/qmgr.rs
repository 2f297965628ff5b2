//! `fairsort qmgr`: set and print server, scheduler, queue and resource attributes in PBS qmgr's
//! language, with `-c 'COMMAND'` or a script on standard input (one request per line, `#`
//! comments). A thin layer over `fairsort::qmgr`.

use super::{CliResult, Failure, Global};
use fairsort::home::{current_host, current_user, Home};
use fairsort::qmgr::{run_request, script_requests, KeptNote, Reply, RequestError};
use std::io::{BufRead, IsTerminal, Read, Write};

/// Arguments of `fairsort qmgr`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Run this one request and exit (e.g. -c 'print server'); without it, requests are read
    /// from standard input (one per line; at a terminal, after a `Qmgr:` prompt as PBS shows).
    #[arg(short = 'c', value_name = "COMMAND")]
    pub command: Option<String>,
    /// Stop at the first failing request of a script (qmgr -a).
    #[arg(short = 'a', long = "abort")]
    pub abort: bool,
    /// Echo each request to standard output before running it (qmgr -e).
    #[arg(short = 'e', long = "echo")]
    pub echo: bool,
    /// Answer `list`/`print` requests with JSON (an array of {object, name, attributes}).
    #[arg(long)]
    pub json: bool,
}

/// Runs `fairsort qmgr`. Exit status 1 if any request failed (messages already on stderr).
pub fn run(args: Args, global: &Global) -> CliResult {
    let home = Home::existing(global.home.as_deref()).map_err(|e| Failure::user(e.to_string()))?;
    let requests = match &args.command {
        Some(c) => vec![c.clone()],
        None if std::io::stdin().is_terminal() => return interactive(&args, &home),
        None => {
            let mut text = String::new();
            std::io::stdin()
                .read_to_string(&mut text)
                .map_err(|e| Failure::user(format!("reading standard input: {e}")))?;
            if let Some(line) = fairsort::files::lines::first_overlong_line(text.as_bytes()) {
                return Err(Failure::user(format!(
                    "<stdin>:{line}: {}",
                    fairsort::files::lines::too_long_message()
                )));
            }
            script_requests(&text)
        }
    };
    let user = current_user();
    let host = current_host();
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    // As real qmgr: the exit status is the last request's (0 when it succeeded), and with -a
    // the first failure ends the run with 1 (refused by the parser) or 2 (by the server).
    let mut status = 0u8;
    let mut kept = KeptNote::default();
    for req in &requests {
        if args.echo && !req.trim().is_empty() {
            writeln!(out, "{req}")?;
        }
        match run_request(&home, &user, &host, req, args.json) {
            Ok(Some(Reply::Output(text))) => {
                out.write_all(text.as_bytes())?;
                status = 0;
            }
            Ok(Some(Reply::Quit)) => break,
            Ok(Some(Reply::Done)) => {
                status = 0;
                print_hazards(req);
                kept.record(req);
            }
            Ok(None) => {}
            Err(e) => {
                out.flush()?;
                crate::cli::say::line(format_args!("{}", e.render()));
                status = e.exit_status();
                if args.abort {
                    status = if matches!(e, RequestError::Parse(..)) {
                        1
                    } else {
                        2
                    };
                }
                if args.abort || e.is_fatal() {
                    break;
                }
            }
        }
    }
    out.flush()?;
    print_kept(&kept);
    match status {
        0 => Ok(()),
        n => Err(Failure::silent(n)),
    }
}

/// qmgr at a terminal: a `Qmgr: ` prompt before each request, as PBS's qmgr shows; `quit`,
/// `exit` or end of input (Ctrl-D) ends it. Errors are printed and the session goes on.
fn interactive(args: &Args, home: &Home) -> CliResult {
    let (user, host) = (current_user(), current_host());
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let mut line = String::new();
    let mut kept = KeptNote::default();
    loop {
        {
            let mut out = std::io::stdout().lock();
            write!(out, "Qmgr: ")?;
            out.flush()?;
        }
        line.clear();
        if input
            .read_line(&mut line)
            .map_err(|e| Failure::user(format!("reading standard input: {e}")))?
            == 0
        {
            crate::outln!();
            print_kept(&kept);
            return Ok(());
        }
        let req = line.trim_end_matches(['\n', '\r']);
        match run_request(home, &user, &host, req, args.json) {
            Ok(Some(Reply::Output(text))) => std::io::stdout().lock().write_all(text.as_bytes())?,
            Ok(Some(Reply::Quit)) => {
                print_kept(&kept);
                return Ok(());
            }
            Ok(Some(Reply::Done)) => {
                print_hazards(req);
                kept.record(req);
            }
            Ok(_) => {}
            Err(e) => {
                crate::cli::say::line(format_args!("{}", e.render()));
                if e.is_fatal() {
                    return Err(Failure::silent(1));
                }
            }
        }
    }
}

/// After a stored `job_sort_formula`, one `warning:` line per way the real pbs_sched would
/// crash or misbehave on it (`fairsort::formula::pbs_hazards`); the change itself stands.
fn print_hazards(request: &str) {
    for line in fairsort::qmgr::formula_hazards(request) {
        crate::cli::say::line(format_args!("warning: {line}"));
    }
}

/// After the run, the one line naming the PBS attributes it kept that fairsort does not model.
fn print_kept(kept: &KeptNote) {
    if let Some(line) = kept.line() {
        crate::cli::say::line(format_args!("{line}"));
    }
}
