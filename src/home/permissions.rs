//! Who may change the server: the `managers` attribute holds PBS-style `user@host` patterns.
//! The caller is the real OS user (from the process's uid, not from an environment variable).

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

/// The real OS user running this process: the real uid from `/proc/self/status`, looked up in
/// `/etc/passwd`; only if that fails, `$USER`/`$LOGNAME`; else `uid<N>` or `unknown`.
/// Permissions rely on this, so an environment variable never overrides a known uid.
pub fn current_user() -> String {
    let uid = std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| uid_from_status(&s));
    if let Some(uid) = uid {
        if let Some(name) = std::fs::read_to_string("/etc/passwd")
            .ok()
            .and_then(|p| user_from_passwd(&p, uid))
        {
            return name;
        }
        return format!("uid{uid}");
    }
    std::env::var("USER")
        .or_else(|_| std::env::var("LOGNAME"))
        .unwrap_or_else(|_| "unknown".to_string())
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

/// The real uid: first number of the `Uid:` line of `/proc/self/status`.
fn uid_from_status(status: &str) -> Option<u32> {
    status
        .lines()
        .find_map(|l| l.strip_prefix("Uid:"))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok())
}

/// The name of `uid` in an `/etc/passwd` text.
fn user_from_passwd(passwd: &str, uid: u32) -> Option<String> {
    passwd.lines().find_map(|l| {
        let mut f = l.split(':');
        let name = f.next()?;
        let _pw = f.next()?;
        let id: u32 = f.next()?.parse().ok()?;
        (id == uid && !name.is_empty()).then(|| name.to_string())
    })
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
    fn uid_and_passwd_parsing() {
        let status = "Name:\tx\nUid:\t1000\t1000\t1000\t1000\nGid:\t5\n";
        assert_eq!(uid_from_status(status), Some(1000));
        let passwd = "root:x:0:0:root:/root:/bin/sh\nalice:x:1000:1000::/home/alice:/bin/sh\n";
        assert_eq!(user_from_passwd(passwd, 1000).as_deref(), Some("alice"));
        assert_eq!(user_from_passwd(passwd, 7), None);
        assert_eq!(user_from_passwd("garbage", 0), None);
    }

    #[test]
    fn current_user_is_not_taken_from_env() {
        // The uid lookup wins over $USER: the name must match /etc/passwd for our real uid.
        let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
        if let Some(uid) = uid_from_status(&status) {
            let passwd = std::fs::read_to_string("/etc/passwd").unwrap_or_default();
            let expected = user_from_passwd(&passwd, uid).unwrap_or(format!("uid{uid}"));
            assert_eq!(current_user(), expected);
        }
    }
}
