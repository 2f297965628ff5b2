//! The home's Slurm site configuration, so `fairsort order --jobs squeue.json` on a Slurm home
//! needs no flags: the text of `slurm.conf` and, optionally, of `sacctmgr show qos -P` and
//! `sacctmgr show assoc -P`, kept verbatim in one TOML file (`slurm.toml`) so the three change
//! together. As for the share tree: only managers may store it, permission is checked before
//! the lock, every text is parsed (and the file read back) before the change commits, and the
//! change is audited; bad input changes nothing.

use crate::home::dir::{files, Home};
use crate::home::error::HomeError;
use crate::home::permissions::{current_host, is_manager, unauthorized};
use crate::home::site::{provenance_now, SiteKind};
use crate::slurm::{parse_assoc_priorities, parse_qos_priorities, parse_slurm_conf, SlurmConf};
use serde::{Deserialize, Serialize};

/// The file's name in the home.
pub const FILE: &str = "slurm.toml";

/// A Slurm site's configuration texts, as captured.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SlurmSite {
    /// The text of `slurm.conf` (`Include` files pasted in).
    pub conf: String,
    /// `sacctmgr show qos -P` (Name, Priority), if given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub qos: Option<String>,
    /// `sacctmgr show assoc -P` (with Priority; the tree too when no other is stored), if given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub assoc: Option<String>,
}

impl SlurmSite {
    /// Parses every text (the names are used in messages); returns the parsed slurm.conf.
    pub fn validate(&self, names: (&str, &str, &str)) -> Result<SlurmConf, HomeError> {
        let conf =
            parse_slurm_conf(&self.conf, names.0).map_err(|e| HomeError::Slurm(e.to_string()))?;
        if let Some(q) = &self.qos {
            parse_qos_priorities(q, names.1).map_err(|e| HomeError::Slurm(e.to_string()))?;
        }
        if let Some(a) = &self.assoc {
            parse_assoc_priorities(a, names.2).map_err(|e| HomeError::Slurm(e.to_string()))?;
        }
        Ok(conf)
    }

    /// The TOML text the home stores.
    fn render(&self) -> Result<String, HomeError> {
        let body = toml::to_string(self)
            .map_err(|e| HomeError::Slurm(format!("cannot store the configuration: {e}")))?;
        Ok(format!(
            "# fairsort: this Slurm site's configuration (`fairsort slurm import`).\n{body}"
        ))
    }

    fn parse(text: &str, path: &std::path::Path) -> Result<SlurmSite, HomeError> {
        toml::from_str(text).map_err(|e| HomeError::Slurm(format!("{}: {e}", path.display())))
    }
}

impl Home {
    /// The stored Slurm configuration, or `None` when none was imported.
    pub fn slurm_site(&self) -> Result<Option<SlurmSite>, HomeError> {
        let path = self.file(FILE);
        match self.read_text(files::SLURM)? {
            Some(text) => {
                let site = SlurmSite::parse(&text, &path)?;
                let name = path.display().to_string();
                site.validate((&name, &name, &name))?;
                Ok(Some(site))
            }
            None => Ok(None),
        }
    }

    /// Validates `site` and stores it as the home's Slurm configuration (replacing any). Only
    /// managers may; nothing changes on error.
    pub fn store_slurm_site(&self, user: &str, site: &SlurmSite) -> Result<(), HomeError> {
        self.store_slurm_site_from(user, site, "-")
    }

    /// [`Home::store_slurm_site`] of a configuration read from `origin` (the `slurm.conf`
    /// given), which the site record keeps (`site.toml`, in the same transaction): the home
    /// becomes a Slurm site.
    pub fn store_slurm_site_from(
        &self,
        user: &str,
        site: &SlurmSite,
        origin: &str,
    ) -> Result<(), HomeError> {
        let host = current_host();
        let parts = [
            Some("slurm.conf"),
            site.qos.as_ref().map(|_| "qos"),
            site.assoc.as_ref().map(|_| "assoc"),
        ];
        let command = format!(
            "slurm import ({})",
            parts
                .iter()
                .flatten()
                .copied()
                .collect::<Vec<_>>()
                .join(", ")
        );
        // Permission before the lock: a refused user never waits for, nor holds, the lock.
        let managers = self.load()?.server.managers;
        if !is_manager(user, &host, &managers) {
            return Err(unauthorized("", user, &host, &managers).into());
        }
        site.validate(("slurm.conf", "qos", "assoc"))?;
        let text = site.render()?;
        // What is written must read back as the same texts.
        if SlurmSite::parse(&text, &self.file(FILE))? != *site {
            return Err(HomeError::Slurm(format!(
                "the configuration does not read back the same from {FILE}"
            )));
        }
        self.with_exclusive(user, &command, |state, change| {
            if !is_manager(user, &host, &state.server.managers) {
                return Err(unauthorized("", user, &host, &state.server.managers).into());
            }
            let mut record = self.site()?.record;
            record.kind = SiteKind::Slurm;
            // A Slurm site has no PBS site's files.
            record.pbs = None;
            change.remove_after(files::PBS);
            let format = parts
                .iter()
                .flatten()
                .copied()
                .collect::<Vec<_>>()
                .join(", ");
            record.slurm = Some(provenance_now(user, origin, &format, text.as_bytes()));
            change.write(files::SLURM, text.into_bytes());
            change.write(files::SITE, record.render()?.into_bytes());
            Ok(())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texts_round_trip_through_toml() {
        let site = SlurmSite {
            conf: "PriorityType=priority/multifactor\n# a '''quoted''' \"comment\"\n".into(),
            qos: Some("Name|Priority\nnormal|10\n".into()),
            assoc: None,
        };
        let text = site.render().unwrap();
        assert_eq!(
            SlurmSite::parse(&text, std::path::Path::new("x")).unwrap(),
            site
        );
        assert!(site.validate(("a", "b", "c")).is_ok());
        let bad = SlurmSite {
            qos: Some("Name|Priority\nnormal|high\n".into()),
            ..site
        };
        let e = bad.validate(("a", "qos.psv", "c")).unwrap_err().to_string();
        assert!(e.contains("qos.psv") && e.contains("high"), "{e}");
    }
}
