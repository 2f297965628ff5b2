//! `fairsort audit`: who changed the home, when, and with which command — the home's
//! `audit.log` (one record per committed change, stored in UTC) listed with dates in local time
//! (`--utc`, `--epoch` for scripts; `--json` has epoch seconds).

use super::dates::DateFlags;
use super::table::{Align, Table};
use super::{CliResult, Failure, Global};
use fairsort::home::Home;
use serde::Serialize;

/// Arguments of `fairsort audit`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Only the last N records.
    #[arg(long, value_name = "N")]
    pub last: Option<usize>,
    /// JSON output (times in epoch seconds).
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub dates: DateFlags,
}

/// One audit record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Record {
    /// When, in epoch seconds.
    pub time: i64,
    /// `user@host`.
    pub who: String,
    /// The command, as recorded (control characters escaped).
    pub command: String,
}

/// The records of `text` (`time<TAB>user@host<TAB>command` lines); a malformed line is an
/// error naming `file` and the line.
pub fn parse(text: &str, file: &str) -> Result<Vec<Record>, String> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.is_empty() {
            continue;
        }
        let bad = |what: &str| format!("{file}:{}: {what}", i + 1);
        let mut fields = line.splitn(3, '\t');
        let (Some(time), Some(who), Some(command)) = (fields.next(), fields.next(), fields.next())
        else {
            return Err(bad("expected time<TAB>user@host<TAB>command"));
        };
        let time = time
            .parse::<jiff::Timestamp>()
            .map_err(|_| {
                bad(&format!(
                    "bad time `{time}` (expected YYYY-MM-DDTHH:MM:SSZ)"
                ))
            })?
            .as_second();
        out.push(Record {
            time,
            who: who.to_string(),
            command: command.to_string(),
        });
    }
    Ok(out)
}

/// Runs `fairsort audit`.
pub fn run(args: Args, global: &Global) -> CliResult {
    let home = Home::existing(global.home.as_deref()).map_err(|e| Failure::user(e.to_string()))?;
    let file = home.file("audit.log");
    let text = home
        .read_text("audit.log")
        .map_err(|e| Failure::user(e.to_string()))?
        .unwrap_or_default();
    let mut records = parse(&text, &file.display().to_string()).map_err(Failure::user)?;
    if let Some(n) = args.last {
        records.drain(..records.len().saturating_sub(n));
    }
    if args.json {
        let text = serde_json::to_string_pretty(&records)?;
        crate::outln!("{text}");
        return Ok(());
    }
    let mut t = Table::new(&[
        ("time", Align::Left),
        ("who", Align::Left),
        ("command", Align::Left),
    ]);
    for r in &records {
        t.row(vec![
            args.dates.show(r.time),
            r.who.clone(),
            r.command.clone(),
        ]);
    }
    crate::out!("{}", t.render());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_and_malformed_lines() {
        let text = "2024-04-13T12:00:00Z\troot@h\tcreate home\n\n2024-04-13T12:00:05Z\tbob@h\tqmgr -c 'set server a=1'\tx\n";
        let r = parse(text, "audit.log").unwrap();
        assert_eq!(r.len(), 2);
        assert_eq!(r[0].time, 1_713_009_600);
        assert_eq!(r[1].who, "bob@h");
        assert_eq!(r[1].command, "qmgr -c 'set server a=1'\tx");
        assert_eq!(
            parse("2024-04-13T12:00:00Z\troot@h\n", "a.log").unwrap_err(),
            "a.log:1: expected time<TAB>user@host<TAB>command"
        );
        assert!(parse("x\ty\tz\n", "a.log")
            .unwrap_err()
            .starts_with("a.log:1: bad time `x`"));
    }
}
