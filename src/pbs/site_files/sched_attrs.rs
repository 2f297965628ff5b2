//! The scheduler object's attributes, from `qmgr -c 'list sched'` (`Sched NAME`, then indented
//! `attr = value` lines, a long list continued on lines starting with a tab) or from
//! `qmgr -c 'print sched'` (`set sched attr = value`), with typed views of those the cycle
//! reads as pbs_sched does (`fifo.cpp`: `preempt_queue_prio`, `preempt_prio`, ...).

use crate::files::text;
use crate::files::FormatError;
use crate::pbs::cycle::rules::PreemptClass;

use super::qmgr_print::{parse_qmgr_print, Attrs, DEFAULT_SCHED};

/// Label used in messages when no path is known.
pub const FILE: &str = "sched";

/// One scheduler object.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SchedAttrs {
    /// Its name (`default` for the default scheduler).
    pub name: String,
    /// Every attribute, as text.
    pub attrs: Attrs,
    /// The file's name, for errors about values.
    pub file: String,
}

/// `preempt_prio` as pbs_sched reads it: the levels, highest first, each one class or a
/// `+`-joined combination; and the elements it ignores (an unknown class name).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PreemptPrio {
    /// The levels pbs_sched keeps, in the order written.
    pub levels: Vec<Vec<PreemptClass>>,
    /// Elements pbs_sched drops (`preempt_bit_field` fails on them), as written.
    pub ignored: Vec<String>,
}

/// Reads `list sched` or `print sched` output (told apart by the first line that is not blank
/// or a comment) into its scheduler objects.
pub fn read_sched_attrs(text: &str, file: &str) -> Result<Vec<SchedAttrs>, FormatError> {
    let first = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with('#'));
    if first.is_some_and(|l| l.starts_with("Sched ") || l == "Sched") {
        read_list(text, file)
    } else {
        Ok(parse_qmgr_print(text, file)?
            .into_iter()
            .filter(|o| o.kind == "sched")
            .map(|o| SchedAttrs {
                name: o.name,
                attrs: o.attrs,
                file: file.to_string(),
            })
            .collect())
    }
}

/// The default scheduler of `scheds` (named `default`), else the only one.
pub fn default_sched(scheds: &[SchedAttrs]) -> Option<&SchedAttrs> {
    scheds
        .iter()
        .find(|s| s.name == DEFAULT_SCHED)
        .or(match scheds {
            [one] => Some(one),
            _ => None,
        })
}

fn read_list(text: &str, file: &str) -> Result<Vec<SchedAttrs>, FormatError> {
    let mut out: Vec<SchedAttrs> = Vec::new();
    let mut last: Option<String> = None;
    for item in text::lines(text, file) {
        let (n, line) = item?;
        if line.trim().is_empty() {
            last = None;
            continue;
        }
        if let Some(name) = line.strip_prefix("Sched ") {
            out.push(SchedAttrs {
                name: name.trim().to_string(),
                attrs: Attrs::default(),
                file: file.to_string(),
            });
            last = None;
            continue;
        }
        let Some(sched) = out.last_mut() else {
            return Err(FormatError::line(file, n, "expected `Sched NAME` first"));
        };
        if let Some(more) = line.strip_prefix('\t') {
            // qmgr's line extension of a long comma list: "\n\t" then the next element.
            let Some(name) = &last else {
                return Err(FormatError::line(
                    file,
                    n,
                    "continuation line without an attribute",
                ));
            };
            sched.attrs.append_text(name, more.trim(), n);
            continue;
        }
        let Some((name, value)) = line.split_once(" = ") else {
            return Err(FormatError::line(file, n, "expected `attribute = value`"));
        };
        let name = name.trim();
        sched.attrs.set(name, value.trim().to_string(), n);
        last = Some(name.to_string());
    }
    Ok(out)
}

impl SchedAttrs {
    /// `job_sort_formula_threshold`, when set.
    pub fn threshold(&self) -> Result<Option<f64>, FormatError> {
        self.typed(
            "job_sort_formula_threshold",
            |v| v.parse::<f64>().ok(),
            "a number",
        )
    }

    /// `preempt_queue_prio`, when set (`strtol` to the end, as pbs_sched reads it).
    pub fn preempt_queue_prio(&self) -> Result<Option<i64>, FormatError> {
        self.typed(
            "preempt_queue_prio",
            |v| v.parse::<i64>().ok(),
            "an integer",
        )
    }

    /// `preempt_prio`, when set, read as pbs_sched's `preempt_bit_field` does.
    pub fn preempt_prio(&self) -> Option<PreemptPrio> {
        self.attrs.value("preempt_prio").map(parse_preempt_prio)
    }

    /// `preempt_order` as written (`SCR`, or levels with ranges).
    pub fn preempt_order(&self) -> Option<&str> {
        self.attrs.value("preempt_order")
    }

    /// `preempt_sort` as written (`min_time_since_start`).
    pub fn preempt_sort(&self) -> Option<&str> {
        self.attrs.value("preempt_sort")
    }

    /// `job_sort_formula`, when the scheduler object carries one.
    pub fn job_sort_formula(&self) -> Option<&str> {
        self.attrs.value("job_sort_formula")
    }

    fn typed<T>(
        &self,
        name: &str,
        parse: impl Fn(&str) -> Option<T>,
        what: &str,
    ) -> Result<Option<T>, FormatError> {
        match self.attrs.get(name) {
            None => Ok(None),
            Some(a) => parse(a.value.trim()).map(Some).ok_or_else(|| {
                FormatError::line(
                    &self.file,
                    a.line,
                    format!("{name} `{}` is not {what}", a.value),
                )
            }),
        }
    }
}

/// A class name of `preempt_prio` (pbs_sched's `preempt_prio_info`; 23.06 has no
/// `starving_jobs`).
fn class(name: &str) -> Option<PreemptClass> {
    Some(match name {
        "express_queue" => PreemptClass::ExpressQueue,
        "normal_jobs" => PreemptClass::NormalJobs,
        "fairshare" => PreemptClass::FairShare,
        "queue_softlimits" => PreemptClass::QueueSoftlimits,
        "server_softlimits" => PreemptClass::ServerSoftlimits,
        _ => return None,
    })
}

/// `preempt_prio`'s comma list: each element trimmed, split on `+` (empty parts skipped, as
/// `strtok` does); an element with an unknown class is dropped whole.
pub fn parse_preempt_prio(value: &str) -> PreemptPrio {
    let mut out = PreemptPrio {
        levels: Vec::new(),
        ignored: Vec::new(),
    };
    for element in value.split(',').map(str::trim).filter(|e| !e.is_empty()) {
        let level: Option<Vec<PreemptClass>> = element
            .split('+')
            .filter(|p| !p.is_empty())
            .map(class)
            .collect();
        match level {
            Some(l) if !l.is_empty() => out.levels.push(l),
            _ => out.ignored.push(element.to_string()),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIST: &str = "Sched default\n    sched_host = pbshost\n    preempt_queue_prio = 90\n    \
        preempt_prio = express_queue, normal_jobs, fairshare+queue_softlimits,\n\tserver_softlimits\n    \
        job_sort_formula_threshold = 20.5\n    preempt_order = SCR\n\n";

    #[test]
    fn list_sched_with_continuation() {
        let s = read_sched_attrs(LIST, FILE).unwrap();
        let d = default_sched(&s).unwrap();
        assert_eq!(d.preempt_queue_prio().unwrap(), Some(90));
        assert_eq!(d.threshold().unwrap(), Some(20.5));
        assert_eq!(d.preempt_order(), Some("SCR"));
        let p = d.preempt_prio().unwrap();
        assert_eq!(
            p.levels,
            vec![
                vec![PreemptClass::ExpressQueue],
                vec![PreemptClass::NormalJobs],
                vec![PreemptClass::FairShare, PreemptClass::QueueSoftlimits],
                vec![PreemptClass::ServerSoftlimits],
            ]
        );
        assert!(p.ignored.is_empty());
    }

    #[test]
    fn print_sched_and_unknown_classes() {
        let t = "#\ncreate sched default\nset sched preempt_prio = \"express_queue, starving_jobs, normal_jobs\"\n\
            set sched preempt_queue_prio = 15x\n";
        let s = read_sched_attrs(t, "print_sched").unwrap();
        let d = default_sched(&s).unwrap();
        let p = d.preempt_prio().unwrap();
        assert_eq!(p.levels.len(), 2);
        assert_eq!(p.ignored, ["starving_jobs"]);
        let e = d.preempt_queue_prio().unwrap_err();
        assert_eq!(
            e.to_string(),
            "print_sched:4: preempt_queue_prio `15x` is not an integer"
        );
        assert_eq!(d.threshold().unwrap(), None);
    }

    #[test]
    fn list_needs_a_sched_line_first() {
        assert!(
            read_sched_attrs("Sched a\n    x = 1\nSched b\n    y = 2\n", FILE)
                .map(|v| v.len())
                .unwrap()
                == 2
        );
        assert_eq!(
            read_sched_attrs("Sched a\nnot an attribute\n", FILE)
                .unwrap_err()
                .line_number(),
            Some(2)
        );
    }
}
