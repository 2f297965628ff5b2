//! The `sources:` block of every report's text header: where the tree, the usage, the formula
//! (or weights), the algorithm and the half-life came from (`fairsort::scenario::Sources`, which
//! the reports' `--json` carry as their `sources` object).

use fairsort::scenario::sources::{From, Source, Sources};
use std::path::Path;

/// `path` made absolute (canonical when it exists), for what the home records of an import.
pub fn absolute(path: &Path) -> String {
    if path.as_os_str() == "-" {
        return "-".to_string();
    }
    std::fs::canonicalize(path)
        .or_else(|_| std::path::absolute(path))
        .unwrap_or_else(|_| path.to_path_buf())
        .display()
        .to_string()
}

/// A duration in seconds in the largest whole unit that fits, and the seconds.
pub fn duration(secs: f64) -> String {
    if !secs.is_finite() {
        return "none (no decay)".to_string();
    }
    let units = [(86_400.0, "day"), (3_600.0, "hour"), (60.0, "minute")];
    for (size, name) in units {
        if secs >= size {
            let n = secs / size;
            let n_text = if (n - n.round()).abs() < 1e-9 {
                format!("{}", n.round())
            } else {
                format!("{n:.2}")
            };
            let plural = if n_text == "1" { "" } else { "s" };
            return format!(
                "{n_text} {name}{plural} ({} s)",
                fairsort::order::explain::fmt(secs)
            );
        }
    }
    format!("{} s", fairsort::order::explain::fmt(secs))
}

/// One source in words: where it came from, then what it is.
pub fn describe(s: &Source, half_life: bool) -> String {
    let mut out = match s.from {
        From::Home => format!("home {}", s.path.as_deref().unwrap_or("")),
        From::File => format!(
            "{} {}",
            s.flag.as_deref().unwrap_or(""),
            s.path.as_deref().unwrap_or("")
        ),
        From::Flag => s.flag.clone().unwrap_or_default(),
        From::Example => format!("example {}", s.path.as_deref().unwrap_or("")),
        From::Trace => match &s.path {
            Some(p) => format!("built from the trace {p}"),
            None => "built from the trace".to_string(),
        },
        From::Default => "default".to_string(),
        From::None => "none".to_string(),
    };
    let value = s
        .value
        .as_deref()
        .map(|v| match (half_life, v.parse::<f64>()) {
            (true, Ok(secs)) => duration(secs),
            _ => v.to_string(),
        });
    let mut notes: Vec<String> = Vec::new();
    if let Some(v) = value {
        notes.push(v);
    }
    if let Some(d) = &s.detail {
        notes.push(d.clone());
    }
    if let Some(p) = &s.imported {
        // Stored in UTC (ISO 8601, as the audit log); shown as every other date is.
        let when = match p.imported.parse::<jiff::Timestamp>() {
            Ok(t) => super::dates::DateFlags::default().show(t.as_second()),
            Err(_) => p.imported.clone(),
        };
        notes.push(format!(
            "imported from {} ({}) {when} by {}",
            p.source, p.format, p.by
        ));
    }
    if !notes.is_empty() {
        out.push_str(&format!(" ({})", notes.join("; ")));
    }
    out
}

/// The `sources:` lines of a text header (label column 12 wide, as the headers' other lines);
/// `formula_label` names the formula's line (`formula`, or `weights` on a Slurm or flux site).
pub fn header(s: &Sources, formula_label: &str) -> String {
    let rows = [
        ("tree", describe(&s.tree, false)),
        ("usage", describe(&s.usage, false)),
        (formula_label, describe(&s.formula, false)),
        ("algorithm", describe(&s.algorithm, false)),
        ("half-life", describe(&s.half_life, true)),
    ];
    let mut out = String::new();
    for (i, (label, text)) in rows.iter().enumerate() {
        let lead = if i == 0 { "sources:" } else { "" };
        out.push_str(&format!("{lead:<12}{label:<10}{text}\n"));
    }
    if let Some(kind) = s.site {
        out.push_str(&format!("{:<12}{:<10}{kind} (the home's)\n", "", "site"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_as_people_say_them() {
        assert_eq!(duration(604_800.0), "7 days (604800 s)");
        assert_eq!(duration(86_400.0), "1 day (86400 s)");
        assert_eq!(duration(5.0), "5 s");
        assert_eq!(duration(f64::INFINITY), "none (no decay)");
    }

    #[test]
    fn a_header_names_every_input() {
        let s = Sources {
            tree: Source::file("--tree", "t.rg").value("pbs"),
            ..Sources::default()
        };
        let h = header(&s, "formula");
        assert!(
            h.starts_with("sources:    tree      --tree t.rg (pbs)\n"),
            "{h}"
        );
        assert!(h.contains("            usage     none\n"), "{h}");
        assert_eq!(h.lines().count(), 5);
    }
}
