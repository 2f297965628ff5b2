//! The one `note:` line a qmgr run ends with when it kept PBS attributes fairsort does not model
//! (`note: kept 20 server attributes fairsort does not model: scheduling, default_queue, ...`),
//! so that an admin who loads a real `print server` knows which settings change nothing here.

use crate::qmgr::exec::is_kept_name;
use crate::qmgr::parser::{parse, Object, Verb};

/// Scheduler attributes kept as text that a PBS site's cycle order reads.
const CYCLE_READS: [&str; 2] = ["preempt_queue_prio", "preempt_prio"];

/// Widest the list of names may get before the rest is counted as "and N more".
const NAMES_WIDTH: usize = 100;

/// The kept attributes a run has set, in the order first set.
#[derive(Debug, Default, Clone)]
pub struct KeptNote {
    /// (object word, attribute name as stored) pairs, each once.
    kept: Vec<(&'static str, String)>,
}

impl KeptNote {
    /// Records the kept attributes of a `set` request that succeeded.
    pub fn record(&mut self, line: &str) {
        let Ok(Some(cmd)) = parse(line) else { return };
        let (Verb::Set, Some(object)) = (cmd.verb, cmd.object) else {
            return;
        };
        let word = match object {
            Object::Server => "server",
            Object::Sched => "sched",
            Object::Queue => "queue",
            Object::Resource => return,
        };
        for a in cmd
            .attrs
            .iter()
            .filter(|a| a.value.as_ref().is_some_and(|(_, v)| !v.is_empty()))
        {
            if !is_kept_name(object, &a.name) {
                continue;
            }
            // Kept, and read by the PBS site's cycle order (`fairsort order`).
            if object == Object::Sched && CYCLE_READS.contains(&a.name.as_str()) {
                continue;
            }
            let entry = (word, a.name.clone());
            if !self
                .kept
                .iter()
                .any(|(w, n)| *w == word && n.eq_ignore_ascii_case(&a.name))
            {
                self.kept.push(entry);
            }
        }
    }

    /// The note line, or None when nothing was kept.
    pub fn line(&self) -> Option<String> {
        if self.kept.is_empty() {
            return None;
        }
        let mut counts: Vec<(&str, usize)> = Vec::new();
        for (w, _) in &self.kept {
            match counts.iter_mut().find(|(c, _)| c == w) {
                Some((_, n)) => *n += 1,
                None => counts.push((w, 1)),
            }
        }
        let total: usize = counts.iter().map(|(_, n)| n).sum();
        let parts: Vec<String> = counts.iter().map(|(w, n)| format!("{n} {w}")).collect();
        let what = match parts.as_slice() {
            [one] => one.clone(),
            [init @ .., last] => format!("{} and {last}", init.join(", ")),
            [] => String::new(),
        };
        let mut names: Vec<&str> = Vec::new();
        for (_, n) in &self.kept {
            if !names.iter().any(|m| m.eq_ignore_ascii_case(n)) {
                names.push(n);
            }
        }
        let mut list = String::new();
        let mut shown = 0;
        for n in &names {
            if shown > 0 && list.len() + 2 + n.len() > NAMES_WIDTH {
                break;
            }
            if shown > 0 {
                list.push_str(", ");
            }
            list.push_str(n);
            shown += 1;
        }
        if shown < names.len() {
            list.push_str(&format!(" and {} more", names.len() - shown));
        }
        let noun = if total == 1 {
            "attribute"
        } else {
            "attributes"
        };
        Some(format!(
            "note: kept {what} {noun} fairsort does not model: {list}"
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_line_counting_each_attribute_once() {
        let mut k = KeptNote::default();
        assert_eq!(k.line(), None);
        k.record("set server scheduling = False");
        k.record("set server Scheduling = True");
        k.record("set server job_sort_formula = ncpus");
        k.record("unset server default_queue");
        k.record("print server");
        assert_eq!(
            k.line().as_deref(),
            Some("note: kept 1 server attribute fairsort does not model: scheduling")
        );
        k.record("set sched log_events = 4095, preempt_order = SCR");
        k.record("set queue workq resources_default.ncpus = 1");
        assert_eq!(
            k.line().as_deref(),
            Some(
                "note: kept 1 server, 2 sched and 1 queue attributes fairsort does not model: \
                 scheduling, log_events, preempt_order, resources_default.ncpus"
            )
        );
    }

    #[test]
    fn a_long_list_ends_with_and_n_more() {
        let mut k = KeptNote::default();
        for a in [
            "scheduling",
            "default_queue",
            "log_events",
            "mailer",
            "mail_from",
            "query_other_jobs",
            "resources_default.ncpus",
            "default_chunk.ncpus",
            "scheduler_iteration",
            "resv_enable",
            "node_fail_requeue",
            "max_array_size",
        ] {
            k.record(&format!("set server {a} = 1"));
        }
        let line = k.line().unwrap();
        assert!(line.starts_with("note: kept 12 server attributes fairsort does not model: scheduling, default_queue, "), "{line}");
        let (_, tail) = line.split_once(": scheduling").unwrap();
        assert!(tail.len() <= NAMES_WIDTH + 20, "{line}");
        let more: usize = line
            .rsplit_once(" and ")
            .and_then(|(_, t)| t.strip_suffix(" more"))
            .and_then(|n| n.parse().ok())
            .unwrap();
        let shown = line.split(": ").nth(2).unwrap().split(", ").count();
        assert_eq!(shown + more, 12, "{line}");
    }
}
