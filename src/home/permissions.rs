//! Who may change the server: the `managers` attribute holds PBS-style `user@host` patterns.
//! The caller is the real OS user: the process's real uid, named by the system's user database
//! (`getpwuid_r`, so LDAP and SSSD users are named as `id` names them), never an environment
//! variable.
//!
//! What the check protects: the manager check is enforced by fairsort itself, so it protects a
//! home that only its managers can write (the StrictModes check refuses a home writable by
//! group or others). A user who can write the home directory can always change it: with any
//! editor, or by running fairsort in a user namespace where they appear as root.

use crate::home::error::Rejection;

/// Checks a `managers` entry: `user@host`, where user may be `*` and host may be `*`,
/// `*.domain` (suffix match) or a host name, as PBS's ACLs.
pub(crate) fn check_pattern(p: &str) -> Result<(), String> {
    let Some((user, host)) = p.split_once('@') else {
        return Err(format!("manager entry '{p}' is not of the form user@host"));
    };
    let ok_part = |s: &str| {
        !s.is_empty()
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || "._-*$".contains(c))
    };
    if !ok_part(user) || !ok_part(host) || host.contains('@') {
        return Err(format!("manager entry '{p}' is not of the form user@host"));
    }
    if host.len() > 1 && host[1..].contains('*') || user != "*" && user.contains('*') {
        return Err(format!(
            "manager entry '{p}': '*' is allowed only as the whole user or at the start of the host"
        ));
    }
    Ok(())
}

/// True when `user` on `host` matches one of the `managers` patterns.
pub(crate) fn is_manager(user: &str, host: &str, managers: &[String]) -> bool {
    managers.iter().any(|m| matches(m, user, host))
}

fn matches(pattern: &str, user: &str, host: &str) -> bool {
    let Some((pu, ph)) = pattern.split_once('@') else {
        return false;
    };
    let user_ok = pu == "*" || pu == user;
    let host = host.to_ascii_lowercase();
    let ph = ph.to_ascii_lowercase();
    let host_ok = if ph == "*" {
        true
    } else if let Some(suffix) = ph.strip_prefix('*') {
        host.ends_with(suffix)
    } else {
        // PBS compares fully qualified names; a short name matches its own domain.
        ph == host
            || host.split('.').next() == Some(ph.as_str())
            || ph.split('.').next() == Some(host.as_str())
    };
    user_ok && host_ok
}

/// The refusal of a change by `user`@`host`: PBS's `Unauthorized Request` (15007) for `object`
/// (qmgr's `obj=` label), then a line naming the user and the managers.
pub(crate) fn unauthorized(object: &str, user: &str, host: &str, managers: &[String]) -> Rejection {
    let who = if managers.is_empty() {
        "nobody (the managers attribute is empty)".to_string()
    } else {
        managers.join(", ")
    };
    Rejection::pbs(crate::pbs::defs::codes::PERM, object).with_detail(format!(
        "fairsort: {user}@{host} is not a manager of this home; managers: {who}"
    ))
}

/// The real OS user running this process: the name of the real uid in the system's user
/// database (NSS: files, LDAP, SSSD, ...); `uid<N>` if it has no name there.
/// Permissions rely on this, so an environment variable never overrides it.
pub fn current_user() -> String {
    let uid = nix::unistd::getuid();
    match nix::unistd::User::from_uid(uid) {
        Ok(Some(u)) if !u.name.is_empty() => u.name,
        _ => format!("uid{}", uid.as_raw()),
    }
}

/// This machine's host name (`/proc/sys/kernel/hostname`, else `/etc/hostname`, else `localhost`).
pub fn current_host() -> String {
    ["/proc/sys/kernel/hostname", "/etc/hostname"]
        .iter()
        .filter_map(|p| std::fs::read_to_string(p).ok())
        .map(|s| s.trim().to_string())
        .find(|s| !s.is_empty())
        .unwrap_or_else(|| "localhost".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn patterns_match_like_pbs_acls() {
        let list = m(&["root@*", "alice@*.example.com", "bob@head1"]);
        assert!(is_manager("root", "anything", &list));
        assert!(is_manager("alice", "n1.example.com", &list));
        assert!(!is_manager("alice", "n1.example.org", &list));
        assert!(is_manager("bob", "head1", &list));
        assert!(is_manager("bob", "head1.example.com", &list));
        assert!(!is_manager("bob", "head2", &list));
        assert!(!is_manager("carol", "head1", &list));
        assert!(is_manager("carol", "x", &m(&["*@*"])));
    }

    #[test]
    fn pattern_syntax() {
        assert!(check_pattern("root@*").is_ok());
        assert!(check_pattern("a.b@*.x.org").is_ok());
        assert!(check_pattern("root").is_err());
        assert!(check_pattern("@host").is_err());
        assert!(check_pattern("a@b@c").is_err());
        assert!(check_pattern("a@x*y").is_err());
        assert!(check_pattern("a b@x").is_err());
    }

    #[test]
    fn current_user_is_the_system_name_of_the_real_uid_not_env() {
        let uid = nix::unistd::getuid();
        let expected = nix::unistd::User::from_uid(uid)
            .ok()
            .flatten()
            .map(|u| u.name)
            .unwrap_or(format!("uid{}", uid.as_raw()));
        assert_eq!(current_user(), expected);
        // The same as the id command says, when there is one.
        if let Ok(out) = std::process::Command::new("id").arg("-un").output() {
            if out.status.success() {
                assert_eq!(current_user(), String::from_utf8_lossy(&out.stdout).trim());
            }
        }
    }

    #[test]
    fn refusal_names_user_and_managers() {
        let r = unauthorized("", "eve", "h", &m(&["root@*", "alice@*"]));
        assert_eq!(
            r.render("default"),
            "qmgr obj= svr=default: Unauthorized Request \nqmgr: Error (15007) returned from server\nfairsort: eve@h is not a manager of this home; managers: root@*, alice@*"
        );
    }
}
