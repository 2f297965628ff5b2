//! Which scheduler a home describes, and where each stored part came from: `site.toml`, written
//! in the same transaction as every part it describes (`tree import`, `slurm import`) and
//! removed with them (`site remove`). A home without it (made before fairsort kept one) is read
//! by the rule of [`inferred_kind`]: a stored Slurm configuration makes a Slurm site, a stored
//! Slurm or flux tree a Slurm or flux site, anything else a PBS site.
//!
//! Like every file of the home, it is opened without following links, checked on every read
//! (line and column of the first problem), and a file that fails is never rewritten: every
//! change reads it first and stops.

use crate::fairshare::{Algorithm, TreeSource};
use crate::files::toml_spans::{line_col, locate, one_line};
use crate::home::dir::{files, Home};
use crate::home::error::HomeError;
use crate::home::permissions::{current_host, is_manager, unauthorized};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// The file's name in the home.
pub const FILE: &str = "site.toml";

/// The comment at the top of every `site.toml`.
const HEADER: &str = "# fairsort: which scheduler this home describes and where each part came from.\n\
# Written with every `fairsort tree import` and `fairsort slurm import`; see `fairsort site show`.\n\n";

/// The scheduler a home describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum SiteKind {
    /// A PBS site: `resource_group`, `job_sort_formula`, PBS's decay.
    #[default]
    Pbs,
    /// A Slurm site: an sshare/sacctmgr tree, `slurm.conf`'s weights and flags.
    Slurm,
    /// A flux-accounting site: the bank tree of its database.
    Flux,
}

impl SiteKind {
    /// The scheduler whose tree this is (`None`: fairsort's own format, of any site).
    pub fn of_tree(source: TreeSource) -> Option<SiteKind> {
        match source {
            TreeSource::Pbs => Some(SiteKind::Pbs),
            TreeSource::Slurm => Some(SiteKind::Slurm),
            TreeSource::Flux => Some(SiteKind::Flux),
            TreeSource::Native => None,
        }
    }

    /// The word the reports use (`pbs`, `slurm`, `flux`).
    pub fn as_str(self) -> &'static str {
        match self {
            SiteKind::Pbs => "pbs",
            SiteKind::Slurm => "slurm",
            SiteKind::Flux => "flux",
        }
    }
}

impl std::fmt::Display for SiteKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            SiteKind::Pbs => "PBS",
            SiteKind::Slurm => "Slurm",
            SiteKind::Flux => "flux",
        })
    }
}

/// Where one stored part came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Provenance {
    /// The file given to the import, as given (`-` for standard input).
    pub source: String,
    /// Its format (`pbs`, `sshare`, `sacctmgr`, `flux-db`, `toml`, `json`; `slurm.conf` and the
    /// `sacctmgr` captures for a Slurm configuration).
    pub format: String,
    /// When it was imported, UTC (`YYYY-MM-DDTHH:MM:SSZ`, as the audit log).
    pub imported: String,
    /// Who imported it (`user@host`).
    pub by: String,
    /// BLAKE3 of the stored file as written (64 hex digits): a later hand edit shows.
    pub blake3: String,
}

/// The content of `site.toml`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct SiteRecord {
    /// The scheduler.
    pub kind: SiteKind,
    /// The share tree's import (`resource_group` or `tree.toml`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tree: Option<Provenance>,
    /// The Slurm configuration's import (`slurm.toml`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slurm: Option<Provenance>,
    /// The PBS site's files' import (`pbs.toml`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pbs: Option<Provenance>,
}

/// Longest `source` kept (a path).
const MAX_SOURCE: usize = 4096;

impl SiteRecord {
    /// Checks what serde cannot: the key path of the first problem and the message.
    fn check_at(&self) -> Result<(), (Vec<&'static str>, String)> {
        for (table, part) in [
            ("tree", &self.tree),
            ("slurm", &self.slurm),
            ("pbs", &self.pbs),
        ] {
            let Some(p) = part else { continue };
            let bad = |key: &'static str, msg: String| Err((vec![table, key], msg));
            if p.source.is_empty()
                || p.source.len() > MAX_SOURCE
                || p.source.contains(char::is_control)
            {
                return bad(
                    "source",
                    format!("source: a path of 1 to {MAX_SOURCE} bytes without control characters"),
                );
            }
            if p.format.is_empty()
                || p.format.len() > 64
                || !p
                    .format
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-_.,+ ".contains(c))
            {
                return bad(
                    "format",
                    "format: letters, digits, `-_.,+` and spaces (at most 64)".into(),
                );
            }
            if !is_utc_time(&p.imported) {
                return bad(
                    "imported",
                    "imported: a UTC time YYYY-MM-DDTHH:MM:SSZ".into(),
                );
            }
            if p.by.len() > 512 || p.by.contains(char::is_control) || !p.by.contains('@') {
                return bad("by", "by: user@host".into());
            }
            if p.blake3.len() != 64 || !p.blake3.bytes().all(|b| b.is_ascii_hexdigit()) {
                return bad("blake3", "blake3: 64 hex digits".into());
            }
        }
        if self.slurm.is_some() && self.kind != SiteKind::Slurm {
            return Err((
                vec!["kind"],
                "kind: a Slurm configuration is recorded, so the kind is `slurm`".into(),
            ));
        }
        if self.pbs.is_some() && self.kind != SiteKind::Pbs {
            return Err((
                vec!["kind"],
                "kind: a PBS site's files are recorded, so the kind is `pbs`".into(),
            ));
        }
        Ok(())
    }

    /// Parses and checks the text of `site.toml` read from `path` (named in errors).
    pub fn parse(text: &str, path: &Path) -> Result<SiteRecord, HomeError> {
        let corrupt = |(line, column): (usize, usize), message: String| HomeError::Corrupt {
            path: path.to_path_buf(),
            line,
            column,
            message,
        };
        let record: SiteRecord = toml::from_str(text).map_err(|e| {
            let at = e.span().map_or((1, 1), |s| line_col(text, s.start));
            corrupt(at, one_line(e.message()))
        })?;
        record
            .check_at()
            .map_err(|(steps, message)| corrupt(locate(text, &steps), message))?;
        Ok(record)
    }

    /// The text the home stores.
    pub fn render(&self) -> Result<String, HomeError> {
        let body = toml::to_string(self).map_err(|e| HomeError::Corrupt {
            path: FILE.into(),
            line: 1,
            column: 1,
            message: format!("cannot serialise the site record: {e}"),
        })?;
        Ok(format!("{HEADER}{body}"))
    }
}

/// Whether `s` is `YYYY-MM-DDTHH:MM:SSZ`.
fn is_utc_time(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 20
        && b.iter().enumerate().all(|(i, c)| match i {
            4 | 7 => *c == b'-',
            10 => *c == b'T',
            13 | 16 => *c == b':',
            19 => *c == b'Z',
            _ => c.is_ascii_digit(),
        })
}

/// The half-life, in seconds, of a decay by `factor` every `period` seconds (PBS's
/// `fairshare_decay_factor` per `fairshare_decay_time`): `period · ln 2 / −ln factor`.
pub fn pbs_half_life(period: f64, factor: f64) -> f64 {
    period * std::f64::consts::LN_2 / -factor.ln()
}

/// The BLAKE3 of `bytes`, as 64 hex digits.
pub fn hash_hex(bytes: &[u8]) -> String {
    blake3::hash(bytes).to_hex().to_string()
}

/// A provenance for a part imported now by `user` on this host.
pub fn provenance_now(user: &str, source: &str, format: &str, stored: &[u8]) -> Provenance {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let source: String = source
        .chars()
        .map(|c| if c.is_control() { '?' } else { c })
        .collect();
    let source = if source.is_empty() {
        "-".to_string()
    } else {
        source
    };
    Provenance {
        source: truncate(&source, MAX_SOURCE),
        format: format.to_string(),
        imported: crate::home::audit::utc_timestamp(secs),
        by: format!("{user}@{}", current_host()),
        blake3: hash_hex(stored),
    }
}

fn truncate(s: &str, max: usize) -> String {
    let mut end = s.len().min(max);
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    s[..end].to_string()
}

/// The kind of a home without `site.toml`: Slurm when it holds a Slurm configuration
/// (`slurm.toml`), else the scheduler of its stored tree when that is a Slurm or flux tree
/// (`tree.toml`'s source), else PBS.
pub fn inferred_kind(has_slurm_conf: bool, tree: Option<TreeSource>) -> SiteKind {
    if has_slurm_conf {
        return SiteKind::Slurm;
    }
    tree.and_then(SiteKind::of_tree)
        .filter(|k| *k != SiteKind::Pbs)
        .unwrap_or(SiteKind::Pbs)
}

/// Which site a home describes: the record (or the inferred kind) with what it stores.
#[derive(Debug, Clone, PartialEq)]
pub struct Site {
    /// The scheduler.
    pub kind: SiteKind,
    /// Whether `kind` was read from `site.toml` (`false`: inferred, see [`inferred_kind`]).
    pub recorded: bool,
    /// The record (empty when inferred).
    pub record: SiteRecord,
}

/// The fair-share algorithm of a Slurm site's `slurm.conf`: Fair Tree (Slurm's default) unless
/// `PriorityFlags` has `NO_FAIR_TREE` (classic) or `DEPTH_OBLIVIOUS`.
pub fn slurm_algorithm(conf: Option<&crate::slurm::SlurmConf>) -> Algorithm {
    match conf {
        Some(c) if c.flags.depth_oblivious => Algorithm::DepthOblivious,
        Some(c) if c.flags.no_fair_tree => Algorithm::Classic,
        _ => Algorithm::FairTree,
    }
}

impl Home {
    /// `site.toml`, checked; `None` when the home has none.
    pub fn site_record(&self) -> Result<Option<SiteRecord>, HomeError> {
        match self.read_text(FILE)? {
            Some(text) => SiteRecord::parse(&text, &self.file(FILE)).map(Some),
            None => Ok(None),
        }
    }

    /// The site the home describes: its record, or the kind inferred from what it stores.
    pub fn site(&self) -> Result<Site, HomeError> {
        if let Some(record) = self.site_record()? {
            return Ok(Site {
                kind: record.kind,
                recorded: true,
                record,
            });
        }
        let has_slurm = self.dir().identity(files::SLURM)?.is_some();
        let tree = if has_slurm {
            None
        } else {
            self.stored_tree_source()?
        };
        Ok(Site {
            kind: inferred_kind(has_slurm, tree),
            recorded: false,
            record: SiteRecord::default(),
        })
    }

    /// The source of the stored tree (`None`: no tree): `resource_group` is a PBS tree;
    /// `tree.toml` says its `source` among its top-level keys, which TOML puts before the first
    /// table, so only those lines are read.
    pub(crate) fn stored_tree_source(&self) -> Result<Option<TreeSource>, HomeError> {
        use std::io::BufRead;
        let Some(file) = self.dir().open_read(files::NATIVE_TREE)? else {
            return Ok(self.dir().identity(files::TREE)?.map(|_| TreeSource::Pbs));
        };
        let path = self.file(files::NATIVE_TREE);
        let mut top = String::new();
        for line in std::io::BufReader::new(file).lines() {
            let line = line.map_err(|e| HomeError::io(&path, e))?;
            if line.trim_start().starts_with('[') {
                break;
            }
            top.push_str(&line);
            top.push('\n');
        }
        #[derive(Deserialize)]
        struct Top {
            #[serde(default)]
            source: TreeSource,
        }
        let top: Top = toml::from_str(&top).map_err(|e| {
            HomeError::Tree(format!("{}: {}", path.display(), one_line(e.message())))
        })?;
        Ok(Some(top.source))
    }

    /// The fair-share algorithm of the home's site: a PBS site's `fairshare_algorithm`, a
    /// Slurm site's from its `slurm.conf` ([`slurm_algorithm`]), a flux site's weighted walk.
    pub fn site_algorithm(&self, state: &crate::home::HomeState) -> Result<Algorithm, HomeError> {
        Ok(match self.site()?.kind {
            SiteKind::Pbs => state.sched.fairshare_algorithm,
            SiteKind::Flux => Algorithm::Flux,
            SiteKind::Slurm => {
                let conf = self
                    .slurm_site()?
                    .map(|s| s.validate(("", "", "")))
                    .transpose()?;
                slurm_algorithm(conf.as_ref())
            }
        })
    }

    /// Removes the stored site: the share tree (`resource_group`, `tree.toml`), the Slurm
    /// configuration, `site.toml` and the snapshot, in one audited transaction; the state
    /// (`server.toml`) and usage stay. Only managers may. Returns the files removed; an error
    /// when the home stores no site.
    pub fn remove_site(&self, user: &str) -> Result<Vec<&'static str>, HomeError> {
        let host = current_host();
        let managers = self.load()?.server.managers;
        if !is_manager(user, &host, &managers) {
            return Err(unauthorized("", user, &host, &managers).into());
        }
        // A site record that fails its check is never dropped unseen: fix it first.
        let kind = self.site()?.kind;
        const PARTS: [&str; 5] = [
            files::NATIVE_TREE,
            files::TREE,
            files::SLURM,
            files::PBS,
            FILE,
        ];
        let present = |home: &Home| -> Result<Vec<&'static str>, HomeError> {
            let mut v = Vec::new();
            for name in PARTS {
                if home.dir().identity(name)?.is_some() {
                    v.push(name);
                }
            }
            Ok(v)
        };
        if present(self)?.is_empty() {
            return Err(HomeError::Tree(format!(
                "{}: no site stored (no share tree, Slurm configuration or site record)",
                self.path().display()
            )));
        }
        let names = present(self)?;
        let command = format!("site remove ({kind}: {})", names.join(", "));
        self.with_exclusive(user, &command, |state, change| {
            if !is_manager(user, &host, &state.server.managers) {
                return Err(unauthorized("", user, &host, &state.server.managers).into());
            }
            let names = present(self)?;
            for name in &names {
                change.remove_after(name);
            }
            change.remove_after(files::SNAPSHOT);
            Ok(names)
        })
    }
}

/// The record after an import of a tree from `source` into a site of record `before`: the
/// tree's scheduler becomes the kind (fairsort's own format keeps the kind), and a Slurm
/// configuration is kept only while the site stays a Slurm site.
pub(crate) fn after_tree_import(
    before: SiteRecord,
    before_kind: SiteKind,
    source: TreeSource,
    tree: Provenance,
) -> SiteRecord {
    let kind = SiteKind::of_tree(source).unwrap_or(before_kind);
    SiteRecord {
        kind,
        tree: Some(tree),
        slurm: before.slurm.filter(|_| kind == SiteKind::Slurm),
        pbs: before.pbs.filter(|_| kind == SiteKind::Pbs),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prov() -> Provenance {
        Provenance {
            source: "/srv/sshare.psv".into(),
            format: "sshare".into(),
            imported: "2025-06-01T12:00:00Z".into(),
            by: "alice@head1".into(),
            blake3: "0".repeat(64),
        }
    }

    #[test]
    fn a_record_round_trips_and_a_bad_one_names_its_line() {
        let r = SiteRecord {
            kind: SiteKind::Slurm,
            tree: Some(prov()),
            slurm: Some(Provenance {
                format: "slurm.conf, qos, assoc".into(),
                ..prov()
            }),
            pbs: None,
        };
        let text = r.render().unwrap();
        assert_eq!(SiteRecord::parse(&text, Path::new("s")).unwrap(), r);
        let bad = text.replace("2025-06-01T12:00:00Z", "yesterday");
        let e = SiteRecord::parse(&bad, Path::new("/h/site.toml"))
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("/h/site.toml:") && e.contains("imported"),
            "{e}"
        );
        let e = SiteRecord::parse("kind = \"lsf\"\n", Path::new("x"))
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("x:1:"), "{e}");
        let pbs_with_slurm = text.replace("kind = \"slurm\"", "kind = \"pbs\"");
        assert!(SiteRecord::parse(&pbs_with_slurm, Path::new("x")).is_err());
    }

    #[test]
    fn the_kind_of_a_home_without_a_record() {
        assert_eq!(inferred_kind(false, None), SiteKind::Pbs);
        assert_eq!(inferred_kind(false, Some(TreeSource::Pbs)), SiteKind::Pbs);
        assert_eq!(
            inferred_kind(false, Some(TreeSource::Native)),
            SiteKind::Pbs
        );
        assert_eq!(
            inferred_kind(false, Some(TreeSource::Slurm)),
            SiteKind::Slurm
        );
        assert_eq!(inferred_kind(false, Some(TreeSource::Flux)), SiteKind::Flux);
        assert_eq!(inferred_kind(true, Some(TreeSource::Flux)), SiteKind::Slurm);
    }

    #[test]
    fn a_tree_import_sets_the_kind_and_keeps_slurm_only_on_a_slurm_site() {
        let slurm = SiteRecord {
            kind: SiteKind::Slurm,
            tree: None,
            slurm: Some(prov()),
            pbs: None,
        };
        let r = after_tree_import(slurm.clone(), SiteKind::Slurm, TreeSource::Native, prov());
        assert_eq!((r.kind, r.slurm.is_some()), (SiteKind::Slurm, true));
        let r = after_tree_import(slurm, SiteKind::Slurm, TreeSource::Pbs, prov());
        assert_eq!((r.kind, r.slurm.is_some()), (SiteKind::Pbs, false));
    }

    #[test]
    fn slurm_flags_choose_the_algorithm() {
        let mut c =
            crate::slurm::parse_slurm_conf("PriorityType=priority/multifactor\n", "c").unwrap();
        assert_eq!(slurm_algorithm(Some(&c)), Algorithm::FairTree);
        assert_eq!(slurm_algorithm(None), Algorithm::FairTree);
        c.flags.no_fair_tree = true;
        assert_eq!(slurm_algorithm(Some(&c)), Algorithm::Classic);
        c.flags.depth_oblivious = true;
        assert_eq!(slurm_algorithm(Some(&c)), Algorithm::DepthOblivious);
    }
}
