//! What a home holds, in one value (`fairsort site show`): the site's scheduler, the tree and
//! where it came from, the usage with its last record and decay, the formula or a Slurm site's
//! weights, the decay model and its half-life, and the cluster's size.

use crate::home::dir::{files, Home};
use crate::home::error::HomeError;
use crate::home::site::{hash_hex, Provenance, SiteKind};
use crate::usage::decay::ModelKind;
use serde::Serialize;

/// The home's stored tree.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TreeView {
    /// The file it is kept in.
    pub file: String,
    /// Its scheduler's format (`pbs`, `slurm`, `flux`, `native`).
    pub source: String,
    /// The root's name.
    pub root: String,
    /// Accounts and users.
    pub nodes: usize,
    /// Its import, as the site record keeps it.
    pub imported: Option<Provenance>,
    /// Whether the file is no longer what the import wrote (a hand edit).
    pub edited_since_import: bool,
}

/// The home's usage store.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct UsageView {
    /// `usage.toml`.
    pub file: String,
    /// Entities (or associations) with usage.
    pub entities: usize,
    /// Their usage summed.
    pub total: f64,
    /// Epoch seconds of the last decay.
    pub last_decay: Option<i64>,
    /// The last `fairsort usage record` in the audit log.
    pub last_record: Option<Audited>,
}

/// One record of the audit log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Audited {
    /// Its UTC time.
    pub time: String,
    /// The command.
    pub command: String,
}

/// A Slurm site's stored configuration.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SlurmView {
    /// `slurm.toml`.
    pub file: String,
    /// Its import, as the site record keeps it.
    pub imported: Option<Provenance>,
    /// Whether the file is no longer what the import wrote (a hand edit).
    pub edited_since_import: bool,
}

/// The decay the site's usage follows.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DecayView {
    /// `pbs`, `slurm`, `flux` or `half-life`.
    pub model: String,
    /// Its half-life in seconds (`None`: no decay).
    pub half_life: Option<f64>,
    /// Where it is set (the usage store, `server.toml`, `slurm.toml`, or a default).
    pub from: String,
    /// The parameters in the scheduler's words.
    pub detail: String,
}

/// The cluster's size.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClusterView {
    /// Nodes.
    pub nodes: Option<u64>,
    /// Cores (or CPUs) of all nodes.
    pub cores: Option<u64>,
    /// Where it is set.
    pub from: String,
}

/// Everything `fairsort site show` prints.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SiteView {
    /// The home directory.
    pub home: String,
    /// The scheduler.
    pub site: SiteKind,
    /// Whether `site.toml` says so (`false`: inferred from what the home stores).
    pub recorded: bool,
    /// The tree, if one is stored.
    pub tree: Option<TreeView>,
    /// The usage, if any was recorded or set.
    pub usage: Option<UsageView>,
    /// The `job_sort_formula`, if set.
    pub formula: Option<String>,
    /// A Slurm site's `PriorityWeight*` (name, value), if its configuration is stored.
    pub weights: std::collections::BTreeMap<String, String>,
    /// A Slurm site's configuration, if stored.
    pub slurm: Option<SlurmView>,
    /// A PBS site's own files (`pbs.toml`), if imported (same shape: file, import, edits).
    pub pbs: Option<SlurmView>,
    /// The fair-share algorithm.
    pub algorithm: String,
    /// The decay.
    pub decay: DecayView,
    /// The cluster's size.
    pub cluster: ClusterView,
}

fn edited(home: &Home, name: &str, p: Option<&Provenance>) -> Result<bool, HomeError> {
    let Some(p) = p else { return Ok(false) };
    Ok(match home.dir().read(name)? {
        Some((text, _)) => hash_hex(text.as_bytes()) != p.blake3,
        None => true,
    })
}

/// An audited command line without the global `--home DIR` (or `--home=DIR`) written before
/// the subcommand's name.
fn without_global_options(command: &str) -> &str {
    let mut rest = command;
    loop {
        if let Some(r) = rest.strip_prefix("--home=") {
            rest = r.split_once(' ').map_or("", |(_, r)| r);
        } else if let Some(r) = rest.strip_prefix("--home ") {
            rest = r.split_once(' ').map_or("", |(_, r)| r);
        } else {
            return rest;
        }
    }
}

/// The last audit record whose command starts with `prefix`: (time, command).
fn last_audited(home: &Home, prefix: &str) -> Result<Option<Audited>, HomeError> {
    let Some((text, _)) = home.dir().read(files::AUDIT)? else {
        return Ok(None);
    };
    Ok(text.lines().rev().find_map(|l| {
        let mut f = l.splitn(3, '\t');
        let (time, _, command) = (f.next()?, f.next()?, f.next()?);
        without_global_options(command)
            .starts_with(prefix)
            .then(|| Audited {
                time: time.to_string(),
                command: command.to_string(),
            })
    }))
}

impl Home {
    /// What the home holds (see [`SiteView`]), read without a lock.
    pub fn site_view(&self) -> Result<SiteView, HomeError> {
        let state = self.load()?;
        let site = self.site()?;
        let tree = match self.stored_tree()? {
            Some(spec) => {
                let name = if self.dir().identity(files::NATIVE_TREE)?.is_some() {
                    files::NATIVE_TREE
                } else {
                    files::TREE
                };
                let imported = site.record.tree.clone();
                Some(TreeView {
                    file: self.file(name).display().to_string(),
                    source: serde_json::to_value(spec.source)
                        .ok()
                        .and_then(|v| v.as_str().map(str::to_string))
                        .unwrap_or_default(),
                    root: spec.root_name.clone(),
                    nodes: spec.nodes.len(),
                    edited_since_import: edited(self, name, imported.as_ref())?,
                    imported,
                })
            }
            None => None,
        };
        let store = if self.dir().identity(files::USAGE)?.is_some() {
            Some(
                crate::home::usage_files::load_store(&self.usage_path())
                    .map_err(|e| HomeError::Tree(e.to_string()))?,
            )
        } else {
            None
        };
        let usage = match &store {
            Some(s) => Some(UsageView {
                file: self.usage_path().display().to_string(),
                entities: s.entries.len(),
                total: s.entries.iter().map(|e| e.usage).sum(),
                last_decay: s.last_decay,
                last_record: last_audited(self, "usage record")?,
            }),
            None => None,
        };
        let slurm_site = self.slurm_site()?;
        let conf = slurm_site
            .as_ref()
            .map(|s| s.validate(("", "", "")))
            .transpose()?;
        let weights = conf
            .as_ref()
            .map(|c| {
                let mut w: std::collections::BTreeMap<String, String> = [
                    ("PriorityWeightAge".to_string(), c.weight_age.to_string()),
                    ("PriorityWeightAssoc".into(), c.weight_assoc.to_string()),
                    (
                        "PriorityWeightFairshare".into(),
                        c.weight_fairshare.to_string(),
                    ),
                    ("PriorityWeightJobSize".into(), c.weight_jobsize.to_string()),
                    (
                        "PriorityWeightPartition".into(),
                        c.weight_partition.to_string(),
                    ),
                    ("PriorityWeightQOS".into(), c.weight_qos.to_string()),
                ]
                .into_iter()
                .collect();
                if !c.weight_tres.is_empty() {
                    let tres: Vec<String> = c
                        .weight_tres
                        .iter()
                        .map(|(n, v)| format!("{n}={v}"))
                        .collect();
                    w.insert("PriorityWeightTRES".into(), tres.join(","));
                }
                w
            })
            .unwrap_or_default();
        let slurm = match &slurm_site {
            Some(_) => {
                let imported = site.record.slurm.clone();
                Some(SlurmView {
                    file: self.file(files::SLURM).display().to_string(),
                    edited_since_import: edited(self, files::SLURM, imported.as_ref())?,
                    imported,
                })
            }
            None => None,
        };
        let pbs = match self.dir().identity(files::PBS)? {
            Some(_) => {
                let imported = site.record.pbs.clone();
                Some(SlurmView {
                    file: self.file(files::PBS).display().to_string(),
                    edited_since_import: edited(self, files::PBS, imported.as_ref())?,
                    imported,
                })
            }
            None => None,
        };
        let sched = &state.sched;
        let pbs_half = crate::home::site::pbs_half_life(
            sched.fairshare_decay_time as f64,
            sched.fairshare_decay_factor,
        );
        let decay = match (&store, site.kind, &conf) {
            (Some(s), _, _) => {
                let st = &s.settings;
                let (half, detail) = match st.model {
                    ModelKind::Pbs => (
                        crate::home::site::pbs_half_life(st.decay_time as f64, st.decay_factor),
                        format!(
                            "× {} every {} s (fairshare_decay_factor, fairshare_decay_time)",
                            st.decay_factor, st.decay_time
                        ),
                    ),
                    ModelKind::Slurm => (
                        st.half_life as f64,
                        format!(
                            "PriorityDecayHalfLife {} s, PriorityCalcPeriod {} s, PriorityUsageResetPeriod {}",
                            st.half_life, st.calc_period, st.reset
                        ),
                    ),
                    ModelKind::Flux => (
                        st.half_life as f64,
                        format!(
                            "priority_decay_half_life {} s, decay_factor {}, priority_usage_reset_period {} s",
                            st.half_life, st.decay_factor, st.usage_reset_period
                        ),
                    ),
                    ModelKind::HalfLife => (st.half_life as f64, format!("2^(−t/{} s)", st.half_life)),
                };
                DecayView {
                    model: serde_json::to_value(st.model)
                        .ok()
                        .and_then(|v| v.as_str().map(str::to_string))
                        .unwrap_or_default(),
                    half_life: Some(half),
                    from: self.usage_path().display().to_string(),
                    detail,
                }
            }
            (None, SiteKind::Slurm, Some(c)) => DecayView {
                model: "slurm".into(),
                half_life: (c.decay_half_life > 0).then_some(f64::from(c.decay_half_life)),
                from: self.file(files::SLURM).display().to_string(),
                detail: format!("PriorityDecayHalfLife {} s", c.decay_half_life),
            },
            (None, SiteKind::Slurm, None) => DecayView {
                model: "slurm".into(),
                half_life: Some(604_800.0),
                from: "Slurm's default".into(),
                detail: "PriorityDecayHalfLife 7-0".into(),
            },
            (None, SiteKind::Flux, _) => DecayView {
                model: "flux".into(),
                half_life: Some(604_800.0),
                from: "flux-accounting's default".into(),
                detail: "priority_decay_half_life 7 days".into(),
            },
            (None, SiteKind::Pbs, _) => DecayView {
                model: "pbs".into(),
                half_life: Some(pbs_half),
                from: self.file(files::STATE).display().to_string(),
                detail: format!(
                    "× {} every {} s (fairshare_decay_factor, fairshare_decay_time)",
                    sched.fairshare_decay_factor, sched.fairshare_decay_time
                ),
            },
        };
        let server = &state.server;
        let cluster = match (&conf, server.replay_nodes) {
            (_, Some(n)) => ClusterView {
                nodes: Some(n),
                cores: server.replay_cores_per_node.map(|c| c * n),
                from: format!(
                    "{} (replay_nodes, replay_cores_per_node)",
                    self.file(files::STATE).display()
                ),
            },
            (Some(c), None) => {
                let live: Vec<_> = c.nodes.iter().filter(|n| !n.future).collect();
                ClusterView {
                    nodes: Some(live.len() as u64),
                    cores: Some(live.iter().map(|n| u64::from(n.cpus)).sum()),
                    from: format!(
                        "{} (slurm.conf's NodeName lines)",
                        self.file(files::SLURM).display()
                    ),
                }
            }
            (None, None) => ClusterView {
                nodes: None,
                cores: None,
                from: "not set (server replay_nodes, or a Slurm site's slurm.conf)".into(),
            },
        };
        Ok(SiteView {
            home: self.path().display().to_string(),
            site: site.kind,
            recorded: site.recorded,
            tree,
            usage,
            formula: server.job_sort_formula.clone(),
            weights,
            slurm,
            pbs,
            algorithm: self.site_algorithm(&state)?.to_string(),
            decay,
            cluster,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::without_global_options;

    #[test]
    fn the_global_home_option_is_not_the_command() {
        assert_eq!(without_global_options("usage record x"), "usage record x");
        assert_eq!(
            without_global_options("--home /h usage record x"),
            "usage record x"
        );
        assert_eq!(
            without_global_options("--home=/h usage record"),
            "usage record"
        );
        assert_eq!(without_global_options("--home"), "--home");
    }
}
