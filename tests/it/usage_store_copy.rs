//! `usage.bin`, the binary copy of the usage store: written with every committed
//! store, used only for the exact text it was made from, never trusted over a hand edit of
//! `usage.toml`, and a damaged or foreign copy is only a miss.

use std::path::Path;

use crate::common::{data, fairsort_home};

fn show_csv(home: &Path) -> String {
    let out = fairsort_home(home)
        .args(["usage", "show", "--csv"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn recorded_home() -> tempfile::TempDir {
    let home = tempfile::tempdir().unwrap();
    fairsort_home(home.path())
        .args(["usage", "record"])
        .arg(data("usage/pbs_logs"))
        .assert()
        .success();
    home
}

#[test]
fn the_copy_is_written_with_the_store_and_gives_what_the_text_gives() {
    let home = recorded_home();
    let copy = home.path().join("usage.bin");
    assert!(copy.is_file());
    let with_copy = show_csv(home.path());
    std::fs::remove_file(&copy).unwrap();
    assert_eq!(show_csv(home.path()), with_copy);
    // a writer that finds no copy (or a stale one) makes it again
    fairsort_home(home.path())
        .args(["usage", "record"])
        .arg(data("usage/pbs_logs"))
        .assert()
        .success();
    assert!(copy.is_file());
    assert_eq!(show_csv(home.path()), with_copy);
}

#[test]
fn a_hand_edit_of_the_text_wins_over_the_copy() {
    let home = recorded_home();
    let store = home.path().join("usage.toml");
    let text = std::fs::read_to_string(&store).unwrap();
    assert!(text.contains("usage = 1201.0"), "{text}");
    std::fs::write(&store, text.replace("usage = 1201.0", "usage = 77.5")).unwrap();
    let shown = show_csv(home.path());
    assert!(shown.contains(",77.5"), "{shown}");
    assert!(!shown.contains("1201"), "{shown}");
    // an edit fairsort would never write is refused with its line, copy or not
    std::fs::write(&store, text.replace("usage = 1201.0", "usage = -3.0")).unwrap();
    let out = fairsort_home(home.path())
        .args(["usage", "show", "--csv"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("usage.toml:") && err.contains("usage must be a finite number >= 0"),
        "{err}"
    );
    // and a re-record of a charged log (which needs no parse otherwise) refuses it too
    let out = fairsort_home(home.path())
        .args(["usage", "record"])
        .arg(data("usage/pbs_logs"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        std::fs::read_to_string(&store).unwrap(),
        text.replace("usage = 1201.0", "usage = -3.0")
    );
}

#[test]
fn a_damaged_or_foreign_copy_is_only_a_miss() {
    let home = recorded_home();
    let want = show_csv(home.path());
    let copy = home.path().join("usage.bin");
    let valid = std::fs::read(&copy).unwrap();
    for at in [0, 9, 30, valid.len() / 2, valid.len() - 1] {
        let mut bytes = valid.clone();
        bytes[at] ^= 0x20;
        std::fs::write(&copy, &bytes).unwrap();
        assert_eq!(show_csv(home.path()), want, "byte {at}");
    }
    std::fs::write(&copy, &valid[..valid.len() / 3]).unwrap();
    assert_eq!(show_csv(home.path()), want);
    // the copy of another home's store (another text) is not used
    let other = tempfile::tempdir().unwrap();
    fairsort_home(other.path())
        .args(["usage", "set", "zed", "5"])
        .assert()
        .success();
    std::fs::copy(other.path().join("usage.bin"), &copy).unwrap();
    assert_eq!(show_csv(home.path()), want);
}
