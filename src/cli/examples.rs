//! The one list of built-in example names, for every command's `--example`: the same name
//! means the same site everywhere, and an unknown name is refused with the whole list.

/// Every example, with what it is (the words of `--help` and of the refusal).
pub const NAMES: [(&str, &str); 4] = [
    (
        "pbs",
        "a PBS site: share tree, qstat queue and job_sort_formula",
    ),
    (
        "slurm",
        "a Slurm site's multifactor priority as sprio shows it (slurm.conf, squeue --json, sshare)",
    ),
    (
        "slurm-tree",
        "a Slurm account tree's jobs ordered by a formula",
    ),
    (
        "flux",
        "a flux-accounting site's mf_priority (accounting DB, flux jobs --json)",
    ),
];

/// Older names still taken, and the name they stand for.
const ALIASES: [(&str, &str); 1] = [("sprio", "slurm")];

/// A clap value parser: the example's name (an alias gives its name), or a refusal listing them.
pub fn parse(s: &str) -> Result<String, String> {
    if let Some((name, _)) = NAMES.iter().find(|(n, _)| *n == s) {
        return Ok((*name).to_string());
    }
    if let Some((_, name)) = ALIASES.iter().find(|(a, _)| *a == s) {
        return Ok((*name).to_string());
    }
    Err(format!(
        "unknown example `{s}` (expected one of: {})",
        list()
    ))
}

/// `pbs, slurm, slurm-tree, flux`.
pub fn list() -> String {
    NAMES.map(|(n, _)| n).join(", ")
}

/// The refusal of an example a command has no use for (`plot --example flux`).
pub fn not_here(name: &str, command: &str, takes: &[&str]) -> String {
    let what = NAMES
        .iter()
        .find(|(n, _)| *n == name)
        .map_or("", |(_, w)| *w);
    format!(
        "--example {name} ({what}) has nothing for `{command}`: it takes {}",
        takes.join(" or ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_list_for_every_command() {
        assert_eq!(parse("sprio"), Ok("slurm".into()));
        assert_eq!(parse("slurm-tree"), Ok("slurm-tree".into()));
        let e = parse("lsf").unwrap_err();
        assert!(e.contains("pbs, slurm, slurm-tree, flux"), "{e}");
        for (n, _) in NAMES {
            assert_eq!(parse(n), Ok(n.to_string()));
        }
        // The examples with a formula tree are the library's.
        for k in fairsort::scenario::example::EXAMPLES {
            assert!(NAMES.iter().any(|(n, _)| *n == k), "{k}");
        }
    }
}
