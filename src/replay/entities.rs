//! `Entities`: the accounts and (account, user) associations of a trace.

use crate::mem::hash::SeededMap;
use crate::replay::trace::Trace;

/// Entities of a trace: accounts and (account, user) associations.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Entities {
    /// Account names, in first-seen order.
    pub accounts: Vec<String>,
    /// (account index, user name) per association, in first-seen order.
    pub assocs: Vec<(usize, String)>,
    /// Per trace job: its association.
    pub job_assoc: Vec<usize>,
}

impl Entities {
    /// The trace's entities.
    pub fn of(trace: &Trace) -> Entities {
        let mut e = Entities::default();
        let mut acc: SeededMap<&str, usize> = SeededMap::default();
        let mut assoc: SeededMap<(usize, &str), usize> = SeededMap::default();
        for j in &trace.jobs {
            let a = *acc.entry(j.account.as_str()).or_insert_with(|| {
                e.accounts.push(name_or_dash(&j.account));
                e.accounts.len() - 1
            });
            let u = *assoc.entry((a, j.user.as_str())).or_insert_with(|| {
                e.assocs.push((a, name_or_dash(&j.user)));
                e.assocs.len() - 1
            });
            e.job_assoc.push(u);
        }
        e
    }

    /// Share of shares per association (accounts equal under the root, users equal within
    /// their account).
    pub fn user_shares(&self) -> Vec<f64> {
        let mut users_in = vec![0usize; self.accounts.len()];
        for (a, _) in &self.assocs {
            if let Some(n) = users_in.get_mut(*a) {
                *n += 1;
            }
        }
        let na = self.accounts.len().max(1) as f64;
        self.assocs
            .iter()
            .map(|(a, _)| 1.0 / na / users_in.get(*a).copied().unwrap_or(1).max(1) as f64)
            .collect()
    }
}

fn name_or_dash(s: &str) -> String {
    if s.trim().is_empty() {
        "-".to_string()
    } else {
        s.to_string()
    }
}
