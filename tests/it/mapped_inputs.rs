//! Large inputs are mapped only when nobody but root and the caller can write them
//! (docs/security.md, "Files fairsort maps"); others are read into memory. Both ways give the
//! same answers, end to end.

use std::os::unix::fs::PermissionsExt;

use crate::common::{fairsort, write};

/// A PBS `resource_group` of `users` users in groups of 100 (well over the 1 MiB from which a
/// text tree may be mapped).
fn big_tree(users: usize) -> String {
    let mut s = String::new();
    for g in 0..users.div_ceil(100) {
        s += &format!("group{g} {} root {}\n", 10 + g, 1 + g % 7);
    }
    for u in 0..users {
        s += &format!("user{u} {} group{} {}\n", 100_000 + u, u / 100, 1 + u % 5);
    }
    s
}

/// `share` over the same large tree: mapped (mode 0644, the caller's own file) and read
/// (modes 0664 and 0646: its group or others could rewrite it under a mapping) print the same
/// table and JSON.
#[test]
fn a_large_input_another_user_could_write_is_read_with_the_same_results() {
    let dir = tempfile::tempdir().unwrap();
    let tree = write(&dir, "resource_group", &big_tree(60_000));
    assert!(std::fs::metadata(&tree).unwrap().len() > 1 << 20);
    let run = |mode: u32, args: &[&str]| {
        std::fs::set_permissions(&tree, std::fs::Permissions::from_mode(mode)).unwrap();
        let out = fairsort()
            .arg("share")
            .arg("--tree")
            .arg(&tree)
            .args(["-a", "pbs"])
            .args(args)
            .assert()
            .success()
            .get_output()
            .stdout
            .clone();
        String::from_utf8(out).unwrap()
    };
    for args in [&[][..], &["--json"][..]] {
        let mapped = run(0o644, args);
        assert!(mapped.contains("user59999"), "{}", &mapped[..200]);
        assert_eq!(run(0o664, args), mapped, "{args:?}");
        assert_eq!(run(0o646, args), mapped, "{args:?}");
    }
}
