//! The usage store's TOML text written directly, byte for byte what the `toml` crate writes for
//! it, without building a TOML document of 50 000 tables first (that took about as
//! long as charging a 500 MB log). Only for stores whose every string is plain (printable ASCII
//! without quotes or backslashes, which TOML writes as they are between `"`); any other store is
//! left to the `toml` crate. The tests compare both on generated stores.

use crate::digits::push_int;
use crate::usage::error::UsageError;
use crate::usage::store::UsageStore;
use std::fmt::Write as _;
use std::path::Path;

impl UsageStore {
    /// The store as the TOML text kept in the home, with its header comment.
    pub fn render(&self, path: &Path) -> Result<String, UsageError> {
        let text = match render(self) {
            Some(text) => text,
            None => toml::to_string(self).map_err(|e| UsageError::Store {
                path: path.to_path_buf(),
                message: e.to_string(),
            })?,
        };
        Ok(format!(
            "# fairsort usage store (docs/usage.md). Change it with `fairsort usage`.\n{text}"
        ))
    }
}

/// The TOML text of `store` (without the header comment), or `None` when a string is not plain.
pub(crate) fn render(store: &UsageStore) -> Option<String> {
    let s = &store.settings;
    let plain = |t: &str| {
        t.bytes()
            .all(|c| (b' '..=b'~').contains(&c) && c != b'"' && c != b'\\')
    };
    let all_plain = plain(&s.reset)
        && store
            .entries
            .iter()
            .all(|e| plain(&e.name) && e.account.as_deref().is_none_or(plain))
        && store
            .marks
            .iter()
            .all(|m| plain(&m.file) && plain(&m.reader) && plain(&m.check));
    // TOML integers are i64: a larger count is the `toml` crate's error to report.
    let fits = |v: u64| i64::try_from(v).is_ok();
    let all_fit = fits(store.ledger_bytes)
        && store
            .marks
            .iter()
            .all(|m| fits(m.offset) && fits(m.lines) && fits(m.jobs) && fits(m.eval_errors));
    if !all_plain || !all_fit || store.entries.is_empty() {
        return None;
    }
    let mut o = String::with_capacity(256 + store.entries.len() * 40 + store.marks.len() * 200);
    let _ = writeln!(o, "version = {}", store.version);
    if let Some(t) = store.last_decay {
        let _ = writeln!(o, "last_decay = {t}");
    }
    let _ = writeln!(o, "ledger_bytes = {}", store.ledger_bytes);
    let _ = writeln!(o, "\n[settings]\nmodel = \"{}\"", s.model.name());
    let _ = writeln!(o, "decay_time = {}", s.decay_time);
    o.push_str("decay_factor = ");
    float(&mut o, s.decay_factor);
    let _ = writeln!(o, "\nhalf_life = {}", s.half_life);
    let _ = writeln!(o, "calc_period = {}", s.calc_period);
    let _ = writeln!(o, "reset = \"{}\"", s.reset);
    let _ = writeln!(o, "usage_reset_period = {}", s.usage_reset_period);
    for e in &store.entries {
        let _ = write!(o, "\n[[entity]]\nname = \"{}\"\n", e.name);
        if let Some(a) = &e.account {
            let _ = writeln!(o, "account = \"{a}\"");
        }
        o.push_str("usage = ");
        float(&mut o, e.usage);
        o.push('\n');
        if !e.bins.is_empty() {
            o.push_str("bins = [");
            for (i, b) in e.bins.iter().enumerate() {
                if i > 0 {
                    o.push_str(", ");
                }
                float(&mut o, *b);
            }
            o.push_str("]\n");
        }
    }
    for m in &store.marks {
        let _ = write!(
            o,
            "\n[[charged]]\nfile = \"{}\"\nreader = \"{}\"\noffset = {}\ncheck = \"{}\"\nlines = {}\njobs = {}\neval_errors = {}\n",
            m.file, m.reader, m.offset, m.check, m.lines, m.jobs, m.eval_errors
        );
    }
    Some(o)
}

/// A float as TOML writes it: `Display`, with `.0` after an integral value.
fn float(o: &mut String, v: f64) {
    match (v.is_sign_negative(), v.is_nan(), v == 0.0) {
        (true, true, _) => o.push_str("-nan"),
        (false, true, _) => o.push_str("nan"),
        (true, false, true) => o.push_str("-0.0"),
        (false, false, true) => o.push_str("0.0"),
        (_, false, false) => {
            if (1.0..9_007_199_254_740_992.0).contains(&v) && v.fract() == 0.0 {
                // `Display` of an integral value below 2^53 is its integer (no exponent).
                push_int(o, v as i64);
                o.push_str(".0");
            } else if v % 1.0 == 0.0 {
                let _ = write!(o, "{v}.0");
            } else {
                let _ = write!(o, "{v}");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::usage::decay::ModelKind;
    use crate::usage::marks::Mark;
    use crate::usage::store::Entry;
    use proptest::prelude::*;

    fn toml_text(s: &UsageStore) -> String {
        toml::to_string(s).unwrap()
    }

    fn name() -> impl Strategy<Value = String> {
        prop_oneof!["[a-z][a-z0-9_.:-]{0,12}", "[ -~]{1,30}", "[a-zé ]{1,8}"]
    }

    fn value() -> impl Strategy<Value = f64> {
        prop_oneof![
            0.0..1e12f64,
            (0u64..1u64 << 53).prop_map(|v| v as f64),
            any::<f64>().prop_filter("finite", |v| v.is_finite()),
            Just(1.0),
            Just(-0.0),
            Just(f64::MAX),
            Just(5e-324),
            (1u64..1u64 << 53).prop_map(|v| v as f64 + 1.0),
            Just(9_007_199_254_740_991.0),
            Just(9_007_199_254_740_992.0),
        ]
    }

    fn model() -> impl Strategy<Value = ModelKind> {
        prop_oneof![
            Just(ModelKind::Pbs),
            Just(ModelKind::Slurm),
            Just(ModelKind::Flux),
            Just(ModelKind::HalfLife)
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]

        /// Whenever the direct text is written, it is the `toml` crate's text, byte for byte.
        #[test]
        fn the_direct_text_is_the_toml_crates(
            entries in proptest::collection::vec(
                (name(), proptest::option::of(name()), value(),
                 proptest::collection::vec(value(), 0..4)), 0..8),
            marks in proptest::collection::vec((name(), 0u64..1 << 40, 0u64..1000), 0..3),
            last in proptest::option::of(0i64..253_402_300_799),
            ledger in prop_oneof![any::<u64>(), 0u64..1 << 40],
            model in model(),
            factor in value(),
            reset in prop_oneof![Just("NONE".to_string()), Just("WEEKLY".to_string()), name()],
        ) {
            let mut s = UsageStore {
                last_decay: last,
                ledger_bytes: ledger,
                ..UsageStore::default()
            };
            s.settings.model = model;
            s.settings.decay_factor = factor;
            s.settings.reset = reset;
            s.entries = entries
                .into_iter()
                .map(|(name, account, usage, bins)| Entry { name, account, usage, bins })
                .collect();
            s.marks = marks
                .into_iter()
                .map(|(file, offset, jobs)| Mark {
                    file,
                    reader: "pbs euser cput".into(),
                    offset,
                    check: "0123456789abcdef".into(),
                    lines: jobs * 3,
                    jobs,
                    eval_errors: jobs / 7,
                })
                .collect();
            match toml::to_string(&s) {
                Ok(t) => {
                    if let Some(text) = render(&s) {
                        prop_assert_eq!(text, t);
                    }
                }
                Err(_) => prop_assert!(render(&s).is_none()),
            }
        }
    }

    #[test]
    fn a_plain_store_is_written_directly_and_others_are_not() {
        let mut s = UsageStore::default();
        s.entries.push(Entry {
            name: "alice".into(),
            account: None,
            usage: 286_738.0,
            bins: vec![],
        });
        assert_eq!(render(&s).unwrap(), toml_text(&s));
        s.last_decay = Some(1_713_000_000);
        s.settings.model = ModelKind::Flux;
        s.entries.push(Entry {
            name: "bob".into(),
            account: Some("bank one".into()),
            usage: 0.1,
            bins: vec![0.1, 0.0, -0.0, 1e300, 5e-324],
        });
        s.marks.push(Mark {
            file: "/var/spool/pbs/server_priv/accounting/20240413".into(),
            reader: "pbs egroup:euser ncpus,walltime".into(),
            offset: 525_057_260,
            check: "795f6c23262ebace".into(),
            lines: 1_334_016,
            jobs: 444_672,
            eval_errors: 3,
        });
        assert_eq!(render(&s).unwrap(), toml_text(&s));
        s.entries[0].name = "a\"b".into();
        assert!(render(&s).is_none());
        s.entries.clear();
        assert!(render(&s).is_none());
    }
}
