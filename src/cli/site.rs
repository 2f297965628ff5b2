//! `fairsort site`: which site the home describes. `show` prints what it holds (the scheduler,
//! the tree and where it came from, the usage with its last record and decay, the formula or
//! weights, the decay model and half-life, the cluster's size); `remove` removes the stored site
//! (tree, Slurm configuration, site record) in one audited change.

use super::failure::home_failure as user_error;
use super::sources::duration;
use super::table::{Align, Table};
use super::{CliResult, Global};
use fairsort::home::site_view::SiteView;
use fairsort::home::{current_user, Home};

/// Arguments of `fairsort site`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    pub action: Action,
}

/// What to do with the home's site.
#[derive(Debug, clap::Subcommand)]
pub enum Action {
    /// Print what the home holds: the site's scheduler, its tree and where it came from, the
    /// usage and its last record and decay, the formula or weights, the decay model and
    /// half-life, the cluster's size.
    Show {
        /// JSON instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Remove the stored site (the share tree, the Slurm configuration and the site record; the
    /// attributes of server.toml and the usage stay). Managers only; audited.
    Remove,
}

/// Runs `fairsort site`.
pub fn run(args: Args, global: &Global) -> CliResult {
    let home = Home::existing(global.home.as_deref()).map_err(user_error)?;
    match args.action {
        Action::Show { json } => {
            let view = home.site_view().map_err(user_error)?;
            if json {
                let text = serde_json::to_string_pretty(&view)?;
                crate::outln!("{text}");
            } else {
                crate::out!("{}", render(&view));
            }
            Ok(())
        }
        Action::Remove => {
            let kind = home.site().map_err(user_error)?.kind;
            let removed = home.remove_site(&current_user()).map_err(user_error)?;
            crate::outln!(
                "removed the {kind} site from {}: {} (server.toml and the usage kept)",
                home.path().display(),
                removed.join(", ")
            );
            Ok(())
        }
    }
}

/// The table of `site show`.
fn render(v: &SiteView) -> String {
    let mut t = Table::new(&[("part", Align::Left), ("what the home holds", Align::Left)]);
    t.row(vec![
        "site".into(),
        format!(
            "{}{}",
            v.site,
            if v.recorded {
                ""
            } else {
                " (inferred: no site.toml; what the home stores decides)"
            }
        ),
    ]);
    t.row(vec!["home".into(), v.home.clone()]);
    match &v.tree {
        Some(tr) => {
            t.row(vec![
                "tree".into(),
                format!(
                    "{} ({} tree, root {}, {} nodes)",
                    tr.file, tr.source, tr.root, tr.nodes
                ),
            ]);
            t.row(vec![
                "tree source".into(),
                match &tr.imported {
                    Some(p) => format!(
                        "{} ({}), imported {} by {}{}",
                        p.source,
                        p.format,
                        p.imported,
                        p.by,
                        if tr.edited_since_import {
                            "; edited since"
                        } else {
                            ""
                        }
                    ),
                    None => "not recorded (imported before fairsort kept a site record)".into(),
                },
            ]);
        }
        None => t.row(vec![
            "tree".into(),
            "none (fairsort tree import FILE)".into(),
        ]),
    }
    match &v.usage {
        Some(u) => {
            t.row(vec![
                "usage".into(),
                format!(
                    "{} ({} entit{}, total {})",
                    u.file,
                    u.entities,
                    if u.entities == 1 { "y" } else { "ies" },
                    fairsort::order::explain::fmt(u.total)
                ),
            ]);
            t.row(vec![
                "last record".into(),
                match &u.last_record {
                    Some(a) => format!("{} ({})", a.time, a.command),
                    None => "none in the audit log".into(),
                },
            ]);
            t.row(vec![
                "last decay".into(),
                match u.last_decay {
                    Some(at) => super::dates::DateFlags {
                        utc: true,
                        epoch: false,
                    }
                    .show(at),
                    None => "never".into(),
                },
            ]);
        }
        None => t.row(vec!["usage".into(), "none (fairsort usage record)".into()]),
    }
    t.row(vec![
        "formula".into(),
        v.formula.clone().unwrap_or_else(|| "unset".into()),
    ]);
    if let Some(sl) = &v.slurm {
        let edited = sl.edited_since_import;
        t.row(vec![
            "slurm.conf".into(),
            match &sl.imported {
                Some(p) => format!(
                    "{} ({}), imported {} by {}{}",
                    p.source,
                    p.format,
                    p.imported,
                    p.by,
                    if edited { "; edited since" } else { "" }
                ),
                None => "stored (import not recorded)".into(),
            },
        ]);
        for (n, x) in &v.weights {
            t.row(vec!["weight".into(), format!("{n}={x}")]);
        }
    }
    if let Some(p) = &v.pbs {
        t.row(vec![
            "pbs files".into(),
            match &p.imported {
                Some(i) => format!(
                    "{} ({}; {}), imported {} by {}{}",
                    p.file,
                    i.format,
                    i.source,
                    i.imported,
                    i.by,
                    if p.edited_since_import {
                        "; edited since"
                    } else {
                        ""
                    }
                ),
                None => format!("{} (import not recorded)", p.file),
            },
        ]);
    }
    t.row(vec!["algorithm".into(), v.algorithm.clone()]);
    t.row(vec![
        "decay".into(),
        format!(
            "{}: {} (from {})",
            v.decay.model, v.decay.detail, v.decay.from
        ),
    ]);
    t.row(vec![
        "half-life".into(),
        duration(v.decay.half_life.unwrap_or(f64::INFINITY)),
    ]);
    t.row(vec![
        "cluster".into(),
        match (v.cluster.nodes, v.cluster.cores) {
            (Some(n), Some(c)) => format!("{n} nodes, {c} cores (from {})", v.cluster.from),
            (Some(n), None) => format!("{n} nodes (from {})", v.cluster.from),
            _ => v.cluster.from.clone(),
        },
    ]);
    t.render()
}
